#pragma once

/// @file detail/consumer/queue_locker.hpp
/// rmq::detail::QueueLocker: the broker queue locks of policies that require them (Java's lockOneMQ,
/// lockAll, unlockAll): lock one queue, renew all every lock_renewal_interval, release at shutdown, and the
/// locked flag of each owned queue's cache, which only this box and the queue's creation set.

#include <vector>

#include <rmq/message_queue.hpp>

#include <rmq/detail/consumer/state.hpp>

namespace rmq::detail {

template <class T>
class QueueLocker {
public:
    explicit QueueLocker(ConsumerState<T>& state)
        : s_(state) {}

    /// LOCK_BATCH_MQ for one queue; marks its cache locked when granted.
    bool lock_queue(const MessageQueue& mq);
    /// UNLOCK_BATCH_MQ for the given queues (errors logged); their caches' flags are the caller's.
    void unlock_queues(const std::vector<MessageQueue>& mqs);
    /// Java's lockAll: renews the lock of every owned queue, one request per broker.
    void lock_all();
    /// Java's unlockAll(oneway=false), at shutdown.
    void unlock_all();
    /// Clustering, policies with a queue lock: lock_all every lock_renewal_interval, the first after 1 s.
    void start_renewal();

private:
    void apply_granted_locks(const std::vector<MessageQueue>& asked,
                             const std::vector<MessageQueue>& granted);

    ConsumerState<T>& s_;
};

}  // namespace rmq::detail

#include <rmq/detail/consumer/impl/queue_locker.hpp>
