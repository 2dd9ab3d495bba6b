#pragma once

/// @file allocate/by_broker.hpp
/// rmq::AllocateByBroker: the broker splits the queues (RocketMQ 5.x QUERY_ASSIGNMENT), not the member.

#include <string>
#include <string_view>

#include <rmq/concepts/allocate_policy.hpp>

namespace rmq {

/// Broker-side assignment (rmq::BrokerAllocatePolicy): at each rebalance the consumer sends QUERY_ASSIGNMENT
/// with `strategy_name` to a broker of the topic, which splits the topic's queues among the group's members
/// as it sees them, so members never compute the split from different member lists. Needs a 5.x broker
/// (a 4.x one refuses: rmq::AssignmentUnsupported, logged, and the member keeps what it has, i.e. nothing at
/// first), rmq::Concurrently and clustering consumption. See docs/policies/allocate.md.
///
/// @code
/// rmq::Consumer<rmq::Concurrently, rmq::AllocateByBroker, rmq::RemoteOffsetStore, rmq::RemotingTransport>
///     consumer{transport, config, rmq::AllocateByBroker{.strategy_name = "AVG_BY_CIRCLE"}};
/// @endcode
struct AllocateByBroker {
    /// The strategy the broker applies: "AVG" (Java's default, rmq::AllocateAveragely) or "AVG_BY_CIRCLE"
    /// (rmq::AllocateAveragelyByCircle); a 5.3.3 broker answers no assignment for another name.
    std::string strategy_name{"AVG"};

    [[nodiscard]] std::string_view broker_strategy_name() const noexcept { return strategy_name; }
};

static_assert(BrokerAllocatePolicy<AllocateByBroker>);

}  // namespace rmq
