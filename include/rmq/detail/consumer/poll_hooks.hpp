#pragma once

/// @file detail/consumer/poll_hooks.hpp
/// The few points where the push consumer's core serves rmq::LitePullConsumer (detail/lite_pull/) too: an
/// order policy whose messages are taken by poll() instead of a listener, a Service that may hold a queue's
/// pulls back (pause, a cache-wide threshold), and an allocation that pins the queues of a topic (assign).

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <rmq/message_queue.hpp>

namespace rmq::detail {

/// `Order::poll_driven`: messages wait in the cache until the application polls them. No listener, no retry
/// topic (nothing is sent back), and offsets move only when the application commits (no commit of filtered
/// offsets on an empty cache, Java's correctTagsOffset, which would commit what was never polled).
template <class Order>
concept PollDriven = requires {
    { Order::poll_driven } -> std::convertible_to<bool>;
} && Order::poll_driven;

/// `s.pull_delay(mq)`: > 0 holds the next pull of `mq` back that long (ms); 0 pulls now. Event loop.
template <class S>
concept ServiceDelaysPulls = requires(S& s, const MessageQueue& mq) {
    { s.pull_delay(mq) } -> std::convertible_to<std::int64_t>;
};

/// `s.on_queue_leaving(q)`: `q` is about to be let go, before its offset is persisted (the last moment to
/// commit it). Event loop; may be called again when the removal is retried.
template <class S, class Q>
concept ServiceObservesQueueLeaving = requires(S& s, const Q& q) { s.on_queue_leaving(q); };

/// `a.pinned(topic, mq_all)`: the queues of `topic` this member takes whatever the group (assign), or
/// nullopt to allocate as usual.
template <class A>
concept PinsQueues = requires(const A& a, const std::string& topic, std::span<const MessageQueue> all) {
    { a.pinned(topic, all) } -> std::same_as<std::optional<std::vector<MessageQueue>>>;
};

}  // namespace rmq::detail
