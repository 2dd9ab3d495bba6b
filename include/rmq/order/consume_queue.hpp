#pragma once

/// @file order/consume_queue.hpp
/// rmq::ConsumeQueue: an owned queue as an order policy sees it. The policy reads it (which queue, dropped,
/// locked, how much is cached) and names it to the host; only the consumer changes the queue's cache, its
/// offsets and its locks, so what the consumer relies on cannot be broken by a policy.

#include <cstdint>
#include <memory>
#include <utility>

#include <rmq/message_queue.hpp>
#include <rmq/process_queue.hpp>

namespace rmq {

namespace detail {
struct QueueAccess;
}  // namespace detail

/// A handle to one queue this member owns, for one ownership: a queue dropped and taken on again is a new
/// ConsumeQueue (they compare unequal). Cheap to copy; every member is thread-safe.
class ConsumeQueue {
public:
    /// The broker queue.
    [[nodiscard]] const MessageQueue& mq() const noexcept { return mq_; }

    /// Whether the consumer let the queue go (rebalance, unsubscribe, offset reset, shutdown): start no more
    /// work for it; results reported for it afterwards change nothing.
    [[nodiscard]] bool dropped() const noexcept { return pq_->dropped(); }

    /// Whether the broker lock of the queue is held and fresh (renewed within 30 s): a policy that requires
    /// the lock consumes only then (Java: `isLocked() && !isLockExpired()`).
    [[nodiscard]] bool locked() const { return pq_->locked() && !pq_->is_lock_expired(); }

    /// Messages cached for the queue and not finished yet.
    [[nodiscard]] std::int64_t cached_count() const noexcept { return pq_->msg_count(); }

    /// A consistent snapshot of the queue's cache and timestamps (diagnostics).
    [[nodiscard]] ProcessQueue::Info info() const { return pq_->info(); }

    /// The same queue in the same ownership.
    friend bool operator==(const ConsumeQueue& a, const ConsumeQueue& b) noexcept { return a.pq_ == b.pq_; }

private:
    friend struct detail::QueueAccess;

    ConsumeQueue(MessageQueue mq, std::shared_ptr<ProcessQueue> pq)
        : mq_(std::move(mq))
        , pq_(std::move(pq)) {}

    [[nodiscard]] ProcessQueue& cache() const noexcept { return *pq_; }

    MessageQueue mq_;
    std::shared_ptr<ProcessQueue> pq_;
};

}  // namespace rmq
