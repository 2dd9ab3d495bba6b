// Compile-time facts about the allocation policies: every stock strategy models rmq::AllocatePolicy, look-alikes do
// not, and stateless strategies cost nothing inside a host.

#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/averagely_by_circle.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/message_queue.hpp>

namespace {

struct NoAllocate {};

struct NonConstAllocate {
    std::vector<rmq::MessageQueue> allocate(std::string_view,
                                            std::string_view,
                                            std::span<const rmq::MessageQueue>,
                                            std::span<const std::string>);
};

struct WrongResult {
    std::vector<std::string> allocate(std::string_view,
                                      std::string_view,
                                      std::span<const rmq::MessageQueue>,
                                      std::span<const std::string>) const;
};

struct VectorArguments {  // the Java-shaped signature: a span argument does not convert to it
    std::vector<rmq::MessageQueue> allocate(std::string_view,
                                            std::string_view,
                                            const std::vector<rmq::MessageQueue>&,
                                            const std::vector<std::string>&) const;
};

struct MoveOnly {
    MoveOnly() = default;
    MoveOnly(MoveOnly&&) = default;
    MoveOnly(const MoveOnly&) = delete;
    std::vector<rmq::MessageQueue> allocate(std::string_view,
                                            std::string_view,
                                            std::span<const rmq::MessageQueue>,
                                            std::span<const std::string>) const;
};

}  // namespace

TEST_CASE("stock allocation strategies model AllocatePolicy", "[static][allocate]") {
    STATIC_REQUIRE(rmq::AllocatePolicy<rmq::AllocateAveragely>);
    STATIC_REQUIRE(rmq::AllocatePolicy<rmq::AllocateAveragelyByCircle>);
}

TEST_CASE("look-alike allocation policies are rejected", "[static][allocate]") {
    STATIC_REQUIRE_FALSE(rmq::AllocatePolicy<NoAllocate>);
    STATIC_REQUIRE_FALSE(rmq::HasAllocate<NoAllocate>);
    STATIC_REQUIRE_FALSE(rmq::AllocatePolicy<NonConstAllocate>);
    STATIC_REQUIRE_FALSE(rmq::AllocatePolicy<WrongResult>);
    STATIC_REQUIRE_FALSE(rmq::AllocatePolicy<VectorArguments>);
    STATIC_REQUIRE(rmq::HasAllocate<MoveOnly>);
    STATIC_REQUIRE_FALSE(rmq::AllocatePolicy<MoveOnly>);
    STATIC_REQUIRE_FALSE(rmq::AllocatePolicy<int>);
}

TEST_CASE("stateless allocation strategies are empty", "[static][allocate]") {
    STATIC_REQUIRE(std::is_empty_v<rmq::AllocateAveragely>);
    STATIC_REQUIRE(std::is_empty_v<rmq::AllocateAveragelyByCircle>);
}

TEST_CASE("allocation strategies carry Java's names", "[static][allocate]") {
    STATIC_REQUIRE(rmq::AllocateAveragely::name() == "AVG");
    STATIC_REQUIRE(rmq::AllocateAveragelyByCircle::name() == "AVG_BY_CIRCLE");
}
