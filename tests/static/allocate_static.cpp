// Compile-time facts about the allocation policies: every stock strategy models rmq::AllocatePolicy,
// look-alikes do not, and stateless strategies cost nothing inside a host.

#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/averagely_by_circle.hpp>
#include <rmq/allocate/by_config.hpp>
#include <rmq/allocate/by_machine_room.hpp>
#include <rmq/allocate/consistent_hash.hpp>
#include <rmq/allocate/machine_room_nearby.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

namespace {

struct EmptyResolver {
    std::string broker_deploy_in(const rmq::MessageQueue&) const;
    std::string consumer_deploy_in(std::string_view) const;
};

struct StatefulResolver {
    std::string default_room;
    std::string broker_deploy_in(const rmq::MessageQueue&) const;
    std::string consumer_deploy_in(std::string_view) const;
};

struct BrokerOnlyResolver {
    std::string broker_deploy_in(const rmq::MessageQueue&) const;
};

struct NonConstResolver {
    std::string broker_deploy_in(const rmq::MessageQueue&);
    std::string consumer_deploy_in(std::string_view);
};

template <class Allocate>
struct Host {  // how a consumer holds its allocation policy
    RMQ_NO_UNIQUE_ADDRESS Allocate allocate;
    long other_state;
};

template <class Inner, class Resolver>
concept CanNest = requires { typename rmq::AllocateMachineRoomNearby<Inner, Resolver>; };

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
    STATIC_REQUIRE(rmq::AllocatePolicy<rmq::AllocateConsistentHash>);
    STATIC_REQUIRE(rmq::AllocatePolicy<rmq::AllocateByConfig>);
    STATIC_REQUIRE(rmq::AllocatePolicy<rmq::AllocateByMachineRoom>);
    STATIC_REQUIRE(
        rmq::AllocatePolicy<rmq::AllocateMachineRoomNearby<rmq::AllocateAveragely, EmptyResolver>>);
    STATIC_REQUIRE(
        rmq::AllocatePolicy<rmq::AllocateMachineRoomNearby<rmq::AllocateConsistentHash, StatefulResolver>>);
    STATIC_REQUIRE(rmq::AllocatePolicy<rmq::AllocateMachineRoomNearby<
                       rmq::AllocateMachineRoomNearby<rmq::AllocateAveragely, EmptyResolver>,
                       EmptyResolver>>);
}

TEST_CASE("machine-room resolvers", "[static][allocate]") {
    STATIC_REQUIRE(rmq::MachineRoomResolver<EmptyResolver>);
    STATIC_REQUIRE(rmq::MachineRoomResolver<StatefulResolver>);
    STATIC_REQUIRE_FALSE(rmq::MachineRoomResolver<BrokerOnlyResolver>);
    STATIC_REQUIRE_FALSE(rmq::MachineRoomResolver<NonConstResolver>);
    STATIC_REQUIRE(CanNest<rmq::AllocateAveragely, EmptyResolver>);
    STATIC_REQUIRE_FALSE(CanNest<rmq::AllocateAveragely, BrokerOnlyResolver>);
    STATIC_REQUIRE_FALSE(CanNest<NoAllocate, EmptyResolver>);
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
    STATIC_REQUIRE(sizeof(Host<rmq::AllocateAveragely>) == sizeof(long));
    STATIC_REQUIRE(sizeof(Host<rmq::AllocateAveragelyByCircle>) == sizeof(long));
    // The wrapper stores its inner strategy and resolver without padding when both are empty.
    STATIC_REQUIRE(sizeof(rmq::AllocateMachineRoomNearby<rmq::AllocateAveragely, EmptyResolver>) == 1);
    STATIC_REQUIRE(sizeof(Host<rmq::AllocateMachineRoomNearby<rmq::AllocateAveragely, EmptyResolver>>) ==
                   sizeof(long));
    STATIC_REQUIRE(sizeof(rmq::AllocateConsistentHash) == sizeof(int));
}

TEST_CASE("allocation strategies carry Java's names", "[static][allocate]") {
    STATIC_REQUIRE(rmq::AllocateAveragely::name() == "AVG");
    STATIC_REQUIRE(rmq::AllocateAveragelyByCircle::name() == "AVG_BY_CIRCLE");
    STATIC_REQUIRE(rmq::AllocateConsistentHash::name() == "CONSISTENT_HASH");
    STATIC_REQUIRE(rmq::AllocateByConfig::name() == "CONFIG");
    STATIC_REQUIRE(rmq::AllocateByMachineRoom::name() == "MACHINE_ROOM");
}
