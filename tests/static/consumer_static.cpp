// Compile-time facts about the consumer's policies and aliases.

#include <optional>
#include <span>
#include <type_traits>

#include <catch2/catch.hpp>

#include <rmq/allocate/consistent_hash.hpp>
#include <rmq/consumer.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

struct NotAnOrderPolicy {};

// Used only inside decltype: clang would otherwise warn that they are never emitted.
[[maybe_unused]] auto concurrent_listener = [](std::span<const rmq::MessageExt>,
                                               rmq::ConsumeConcurrentlyContext&) {
    return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
};
[[maybe_unused]] auto orderly_listener = [](std::span<const rmq::MessageExt>, rmq::ConsumeOrderlyContext&) {
    return rmq::ConsumeOrderlyStatus::Success;
};
[[maybe_unused]] auto optional_listener =
    [](std::span<const rmq::MessageExt>,
       rmq::ConsumeConcurrentlyContext&) -> std::optional<rmq::ConsumeConcurrentlyStatus> {
    return std::nullopt;
};

}  // namespace

TEST_CASE("order policies model OrderPolicy", "[static][consumer]") {
    STATIC_REQUIRE(rmq::OrderPolicy<rmq::Concurrently>);
    STATIC_REQUIRE(rmq::OrderPolicy<rmq::Orderly>);
    STATIC_REQUIRE_FALSE(rmq::OrderPolicy<NotAnOrderPolicy>);
    STATIC_REQUIRE(rmq::Orderly::requires_queue_lock);
    STATIC_REQUIRE_FALSE(rmq::Concurrently::requires_queue_lock);
    STATIC_REQUIRE(rmq::Concurrently::span_flow_control);
    STATIC_REQUIRE_FALSE(rmq::Orderly::span_flow_control);
}

TEST_CASE("listeners are matched to their policy", "[static][consumer]") {
    STATIC_REQUIRE(rmq::ListenerFor<decltype(concurrent_listener), rmq::Concurrently>);
    STATIC_REQUIRE_FALSE(rmq::ListenerFor<decltype(concurrent_listener), rmq::Orderly>);
    STATIC_REQUIRE(rmq::ListenerFor<decltype(orderly_listener), rmq::Orderly>);
    STATIC_REQUIRE_FALSE(rmq::ListenerFor<decltype(orderly_listener), rmq::Concurrently>);
    STATIC_REQUIRE(rmq::ListenerFor<decltype(optional_listener), rmq::Concurrently>);
}

TEST_CASE("fwd.hpp aliases name the documented policies", "[static][consumer]") {
    using Tr = rmq::InProcessTransport;
    STATIC_REQUIRE(
        std::is_same_v<rmq::PushConsumer<Tr>,
                       rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::RemoteOffsetStore, Tr>>);
    STATIC_REQUIRE(
        std::is_same_v<rmq::OrderlyConsumer<Tr>,
                       rmq::Consumer<rmq::Orderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, Tr>>);
    STATIC_REQUIRE(std::is_same_v<
                   rmq::BroadcastConsumer<Tr>,
                   rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::LocalFileOffsetStore, Tr>>);
    STATIC_REQUIRE(std::is_same_v<rmq::Consumer<>, rmq::PushConsumer<Tr>>);
    STATIC_REQUIRE(std::is_same_v<rmq::PushConsumer<Tr>::context_type, rmq::ConsumeConcurrentlyContext>);
    STATIC_REQUIRE(std::is_same_v<rmq::OrderlyConsumer<Tr>::status_type, rmq::ConsumeOrderlyStatus>);
    // <rmq/consumer.hpp> alone reaches the per-key policy and its alias.
    STATIC_REQUIRE(std::is_same_v<rmq::KeyOrderly, rmq::KeyOrderlyBy<rmq::FirstKey, 16>>);
    STATIC_REQUIRE(
        std::is_same_v<rmq::KeyOrderlyConsumer<Tr>,
                       rmq::Consumer<rmq::KeyOrderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, Tr>>);
    STATIC_REQUIRE(rmq::OrderPolicy<rmq::KeyOrderly>);
}

TEST_CASE("policy instances can be passed to the constructor", "[static][consumer]") {
    using C = rmq::Consumer<rmq::Concurrently,
                            rmq::AllocateConsistentHash,
                            rmq::MemoryOffsetStore,
                            rmq::InProcessTransport>;
    STATIC_REQUIRE(std::is_constructible_v<C,
                                           rmq::InProcessTransport,
                                           rmq::ConsumerConfig,
                                           rmq::AllocateConsistentHash,
                                           rmq::MemoryOffsetStore>);
    STATIC_REQUIRE(
        std::
            is_constructible_v<C, rmq::InProcessTransport, rmq::ConsumerConfig, rmq::AllocateConsistentHash>);
    STATIC_REQUIRE_FALSE(std::is_copy_constructible_v<C>);
}

TEST_CASE("pulls complete on the consumer's loop with both stock transports", "[static][consumer]") {
    // The embedded broker posts ready answers to the caller, the TCP transport every answer, decoded in the
    // posted task (so the consumer frees pulled messages on the loop that allocated them).
    STATIC_REQUIRE(rmq::HasPullPostingToCaller<rmq::InProcessTransport>);
    STATIC_REQUIRE(rmq::HasPullPostingToCaller<rmq::RemotingTransport>);
}

TEST_CASE("optional capabilities are named concepts", "[static][consumer]") {
    // The embedded broker can list a group's members (subscription consistency check); the remoting
    // transport relies on SUBSCRIPTION_NOT_EXIST answers.
    STATIC_REQUIRE(rmq::HasGroupMembers<rmq::InProcessTransport>);
    STATIC_REQUIRE_FALSE(rmq::HasGroupMembers<rmq::RemotingTransport>);
    // A Service's optional hooks: Concurrently needs none; Orderly and KeyOrderly forget a removed queue's
    // state; only KeyOrderly creates state when a queue is added.
    using ConcurrentService = rmq::Concurrently::Service<rmq::OrderHost<rmq::Concurrently>>;
    using OrderlyService = rmq::Orderly::Service<rmq::OrderHost<rmq::Orderly>>;
    using KeyService = rmq::KeyOrderly::Service<rmq::OrderHost<rmq::KeyOrderly>>;
    STATIC_REQUIRE_FALSE(rmq::ServiceHasStart<ConcurrentService>);
    STATIC_REQUIRE_FALSE(rmq::ServiceObservesQueueRemoved<ConcurrentService>);
    STATIC_REQUIRE(rmq::ServiceObservesQueueRemoved<OrderlyService>);
    STATIC_REQUIRE_FALSE(rmq::ServiceObservesQueueAdded<OrderlyService>);
    STATIC_REQUIRE(rmq::ServiceObservesQueueAdded<KeyService>);
    STATIC_REQUIRE(rmq::ServiceObservesQueueRemoved<KeyService>);
    // No stock allocation strategy is sticky.
    STATIC_REQUIRE_FALSE(rmq::StickyAllocatePolicy<rmq::AllocateAveragely>);
    STATIC_REQUIRE_FALSE(rmq::StickyAllocatePolicy<rmq::AllocateConsistentHash>);
}

TEST_CASE("the stock services model OrderService on the public host facade", "[static][consumer]") {
    using rmq::OrderHost;
    STATIC_REQUIRE(rmq::HasService<rmq::Concurrently>);
    STATIC_REQUIRE(rmq::OrderService<rmq::Concurrently::Service<OrderHost<rmq::Concurrently>>,
                                     OrderHost<rmq::Concurrently>>);
    STATIC_REQUIRE(
        rmq::OrderService<rmq::Orderly::Service<OrderHost<rmq::Orderly>>, OrderHost<rmq::Orderly>>);
    STATIC_REQUIRE(rmq::OrderPolicy<rmq::KeyOrderly>);
    // A policy sees a queue read-only and cannot make one: only the consumer hands them out.
    STATIC_REQUIRE_FALSE(std::is_default_constructible_v<rmq::ConsumeQueue>);
    STATIC_REQUIRE_FALSE(std::is_constructible_v<rmq::ConsumeQueue, rmq::MessageQueue>);
    // The facade is abstract: a Service cannot make one, only receive the consumer's.
    STATIC_REQUIRE(std::is_abstract_v<OrderHost<rmq::Concurrently>>);
    STATIC_REQUIRE_FALSE(std::is_copy_constructible_v<OrderHost<rmq::Orderly>>);
}
