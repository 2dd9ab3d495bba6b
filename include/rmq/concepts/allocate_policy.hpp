#pragma once

/// @file concepts/allocate_policy.hpp
/// The AllocatePolicy concept: how a rebalance splits a topic's queues among the consumers of a group.

#include <concepts>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/message_queue.hpp>

namespace rmq {

/// The one member an allocation policy needs (Java's AllocateMessageQueueStrategy.allocate):
/// `std::vector<MessageQueue> allocate(std::string_view group, std::string_view current_cid,
///  std::span<const MessageQueue> mq_all, std::span<const std::string> cid_all) const`.
/// It returns the queues `current_cid` owns, callable on a const policy, with exactly these argument types.
template <class P>
concept HasAllocate = requires(const P& p,
                               std::string_view group,
                               std::string_view current_cid,
                               std::span<const MessageQueue> mq_all,
                               std::span<const std::string> cid_all) {
    { p.allocate(group, current_cid, mq_all, cid_all) } -> std::same_as<std::vector<MessageQueue>>;
};

/// An allocation strategy (Java's AllocateMessageQueueStrategy). The consumer copies it in, calls it from its
/// rebalance thread with the topic's queues and the group's client ids, both sorted the Java way
/// (MessageQueue's order; client ids as strings), and owns exactly the returned queues. Contract beyond the
/// signature: the result depends only on the arguments (every consumer of the group computes the same split
/// independently), a client id not in `cid_all` gets nothing, and rmq::InvalidArgument thrown from `allocate`
/// keeps the previous assignment. An optional `name()` gives the strategy's Java name (e.g. "AVG").
///
/// Valid:
/// @code
/// struct AllMine {
///     std::vector<rmq::MessageQueue> allocate(std::string_view, std::string_view,
///                                             std::span<const rmq::MessageQueue> mq_all,
///                                             std::span<const std::string>) const {
///         return {mq_all.begin(), mq_all.end()};
///     }
/// };
/// static_assert(rmq::AllocatePolicy<AllMine>);
/// @endcode
/// Invalid (the diagnostic names HasAllocate):
/// @code
/// struct NoAllocate {};                       // no allocate() at all
/// struct NonConst {                           // allocate() not callable on a const policy
///     std::vector<rmq::MessageQueue> allocate(std::string_view, std::string_view,
///                                             std::span<const rmq::MessageQueue>,
///                                             std::span<const std::string>);
/// };
/// static_assert(!rmq::AllocatePolicy<NoAllocate>);   // FAILS to model
/// static_assert(!rmq::AllocatePolicy<NonConst>);     // FAILS to model
/// @endcode
template <class P>
concept AllocatePolicy = HasAllocate<P> && std::copy_constructible<P>;

/// Optional, for sticky strategies: `allocate(group, current_cid, mq_all, cid_all, previous) const` with
/// `previous` the queues of the topic this member owns now (sorted), returning the same as the four-argument
/// form. The consumer calls this overload when the policy has it; a sticky policy still models
/// rmq::AllocatePolicy, so it also works where no history exists.
template <class P>
concept StickyAllocatePolicy = AllocatePolicy<P> && requires(const P& p,
                                                             std::string_view group,
                                                             std::string_view current_cid,
                                                             std::span<const MessageQueue> mq_all,
                                                             std::span<const std::string> cid_all,
                                                             std::span<const MessageQueue> previous) {
    { p.allocate(group, current_cid, mq_all, cid_all, previous) } -> std::same_as<std::vector<MessageQueue>>;
};

/// The one member a broker-side allocation needs: `broker_strategy_name() const`, the name of the strategy
/// the broker applies (QUERY_ASSIGNMENT's strategyName; a 5.3.3 broker knows "AVG" and "AVG_BY_CIRCLE").
template <class P>
concept HasBrokerStrategyName = requires(const P& p) {
    { p.broker_strategy_name() } -> std::convertible_to<std::string_view>;
};

/// A policy under which the broker, not the member, splits the queues (Java 5.x with clientRebalance off):
/// at each rebalance the consumer asks a broker of the topic (QUERY_ASSIGNMENT, the transport must model
/// rmq::HasAssignment) which queues are its own, so every member takes the same view of the group. Only
/// for clustering consumption with an order policy that needs no queue lock (rmq::Concurrently), as in
/// Java, where orderly and broadcasting consumers always rebalance on the client. A failed query keeps the
/// previous assignment. rmq::AllocateByBroker is the stock one.
template <class P>
concept BrokerAllocatePolicy = HasBrokerStrategyName<P> && std::copy_constructible<P>;

}  // namespace rmq
