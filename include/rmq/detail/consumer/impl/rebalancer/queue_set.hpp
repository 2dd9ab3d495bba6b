#pragma once

/// @file detail/consumer/impl/rebalancer/queue_set.hpp
/// Rebalancer's definitions for the queue table: which queues stay, which are taken on, and how one goes.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <rmq/concepts/order_policy.hpp>
#include <rmq/error.hpp>

#include <rmq/detail/consumer/poll_hooks.hpp>
#include <rmq/detail/consumer/queue_access.hpp>
#include <rmq/detail/consumer/rebalancer.hpp>

namespace rmq::detail {

/// Java's updateProcessQueueTableInRebalance: true when the set of owned queues of `topic` changed.
template <class T>
bool Rebalancer<T>::update_process_queue_table(const std::string& topic,
                                               const std::vector<MessageQueue>& mine) {
    bool changed = drop_unwanted_queues(topic, mine);
    for (const auto& mq : mine) {
        if (!s_.find_pq(mq) && add_queue(mq)) {
            changed = true;
        }
    }
    return changed;
}

/// Drops the queues of `topic` that are no longer this member's (or whose pulls stalled) once the order
/// policy released them.
template <class T>
bool Rebalancer<T>::drop_unwanted_queues(const std::string& topic, const std::vector<MessageQueue>& mine) {
    const std::set<MessageQueue> wanted(mine.begin(), mine.end());
    bool changed = false;
    for (const auto& [mq, pq] : s_.table_snapshot()) {
        // A dropped queue still here (an illegal offset whose removal its policy deferred) goes too.
        if (mq.topic != topic || (wanted.contains(mq) && !pq->is_pull_expired() && !pq->dropped())) {
            continue;
        }
        pq->set_dropped(true);
        if (remove_queue(mq, pq)) {
            changed = true;
        }
    }
    return changed;
}

/// Takes `mq` on: its broker lock first when the order policy requires one (else retried in 500 ms), then a
/// start offset, a cache and a pull loop. False when it could not be taken now.
template <class T>
bool Rebalancer<T>::add_queue(const MessageQueue& mq) {
    const bool need_lock = T::Order::requires_queue_lock && s_.clustering;
    // Not locked (another member still holds it, releasing it right now) or the request failed: retried.
    if (need_lock && !locker_.lock_queue(mq)) {
        rebalance_later();
        return false;
    }
    auto pq = std::make_shared<ProcessQueue>(s_.clock);
    pq->set_locked(true);
    pq->set_last_lock_timestamp(s_.clock->steady_millis());
    std::int64_t next = -1;
    try {
        next = committer_.start_offset(mq, true);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: no start offset for {}: {}", s_.group, mq, e.what());
    }
    if (next < 0) {
        if (need_lock) {
            locker_.unlock_queues({mq});
        }
        return false;  // the kept offset, if any, stays for the next try
    }
    auto [kept_offset, kept_at] = committer_.take_kept(mq);
    // Under the lock the first pull re-reads the broker's offset (ready_after_lock) and decides there, with
    // the kept offset as its floor: deciding (and logging) here would be undone by that re-read.
    if (!need_lock) {
        next = committer_.continue_from(mq, next, kept_offset, kept_at);
        kept_offset = -1;
    }
    {
        const std::lock_guard lock(s_.table_mutex);
        s_.table.emplace(mq, pq);
    }
    if constexpr (ServiceObservesQueueAdded<Service>) {
        service_.on_queue_added(QueueAccess::queue(mq, pq));
    }
    puller_.start(mq, pq, next, kept_offset, kept_at);
    return true;
}

/// Java's truncateMessageQueueNotMyTopic: queues of topics no longer subscribed (unsubscribe) are dropped.
/// rmq deviation: their offsets are persisted first, as for any other dropped queue; Java leaves them to the
/// next persistAll, which discards offsets of queues it no longer holds, so a re-subscription there repeats
/// what was consumed since the last persist.
template <class T>
void Rebalancer<T>::truncate_not_my_topic(const std::map<std::string, SubscriptionData>& subs) {
    for (const auto& [mq, pq] : s_.table_snapshot()) {
        if (subs.contains(mq.topic)) {
            continue;
        }
        pq->set_dropped(true);
        (void)remove_queue(mq, pq);  // else tried again at the next rebalance
    }
}

/// Java's removeUnnecessaryMessageQueue (remove_unnecessary_queue), then the queue leaves the table when it
/// is still this ownership. False: not removed now (retried at the next rebalance, or by the caller).
template <class T>
bool Rebalancer<T>::remove_queue(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq) {
    if (!remove_unnecessary_queue(mq, pq)) {
        return false;
    }
    s_.erase_queue(mq, pq);
    return true;
}

/// Persist the offset; under a queue lock wait up to 1 s for running listener calls (none can start: the
/// queue is dropped); ask the policy; then release the broker lock.
template <class T>
bool Rebalancer<T>::remove_unnecessary_queue(const MessageQueue& mq,
                                             const std::shared_ptr<ProcessQueue>& pq) {
    if constexpr (ServiceObservesQueueLeaving<Service, ConsumeQueue>) {
        service_.on_queue_leaving(QueueAccess::queue(mq, pq));
    }
    committer_.persist_dropped(mq, *pq);
    const bool locked = T::Order::requires_queue_lock && s_.clustering;
    if (locked && !wait_listener_calls(*pq)) {
        pq->inc_try_unlock_times();
        return false;
    }
    if constexpr (ServiceObservesQueueRemoved<Service>) {
        if (!service_.on_queue_removed(QueueAccess::queue(mq, pq))) {
            pq->inc_try_unlock_times();
            return false;
        }
    }
    if (locked) {
        locker_.unlock_queues({mq});
        pq->set_locked(false);
    }
    return true;
}

/// Polls rather than waiting on a condition variable with a timeout: g++ 12's TSan does not intercept the
/// clock-based waits.
template <class T>
bool Rebalancer<T>::wait_listener_calls(const ProcessQueue& pq) const {
    if (s_.scheduler.driven()) {
        return pq.listener_calls() == 0;  // one thread runs everything: nothing can finish meanwhile
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(release_wait_millis);
    while (pq.listener_calls() != 0) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace rmq::detail
