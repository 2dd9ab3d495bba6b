#pragma once

/// @file detail/pop_consumer/pop_queue.hpp
/// rmq::detail::PopQueue: Java's PopProcessQueue, one POP queue (topic, broker, queue id or -1) of a push
/// consumer in POP mode: how many of its popped messages are not done yet (flow control), and whether it was
/// let go.

#include <atomic>
#include <cstdint>

#include <rmq/message_queue.hpp>

namespace rmq::detail {

struct PopQueue {
    explicit PopQueue(MessageQueue queue)
        : mq(std::move(queue)) {}

    const MessageQueue mq;
    /// Popped and not yet acked, retried or given up (Java's waitAckCounter).
    std::atomic<std::int64_t> in_flight{0};
    /// Let go (stop_pop_requests, shutdown): no more pops, no listener call, no ack.
    std::atomic<bool> dropped{false};
};

}  // namespace rmq::detail
