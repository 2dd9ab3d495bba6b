#pragma once

/// @file detail/consumer/impl/queue_locker.hpp
/// QueueLocker's definitions.

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <rmq/detail/consumer/queue_locker.hpp>

namespace rmq::detail {

/// LOCK_BATCH_MQ for one queue; marks its ProcessQueue locked when granted.
template <class T>
bool QueueLocker<T>::lock_queue(const MessageQueue& mq) {
    if (s_.stopping.load()) {
        return false;
    }
    try {
        const auto locked = s_.transport.lock_batch(s_.group, s_.client_id, std::vector<MessageQueue>{mq});
        const bool ok = std::find(locked.begin(), locked.end(), mq) != locked.end();
        if (ok) {
            if (auto pq = s_.find_pq(mq)) {
                pq->set_locked(true);
                pq->set_last_lock_timestamp(s_.clock->steady_millis());
            }
        }
        return ok;
    } catch (const std::exception& e) {
        log_repeated(LogLevel::Warn,
                     fmt::format("lock {} {}", s_.group, mq.broker_name),
                     "group [{}]: lock of {} failed: {}",
                     s_.group,
                     mq,
                     e.what());
        return false;
    }
}

/// UNLOCK_BATCH_MQ for the given queues (errors logged).
template <class T>
void QueueLocker<T>::unlock_queues(const std::vector<MessageQueue>& mqs) {
    if (mqs.empty()) {
        return;
    }
    try {
        s_.transport.unlock_batch(s_.group, s_.client_id, mqs);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: unlock failed: {}", s_.group, e.what());
    }
}

/// Java's lockAll: renews the broker lock of every owned queue, one request per broker.
template <class T>
void QueueLocker<T>::lock_all() {
    std::map<std::string, std::vector<MessageQueue>> by_broker;
    for (const auto& [mq, pq] : s_.table_snapshot()) {
        if (!pq->dropped()) {
            by_broker[mq.broker_name].push_back(mq);
        }
    }
    for (const auto& [broker, mqs] : by_broker) {
        try {
            apply_granted_locks(mqs, s_.transport.lock_batch(s_.group, s_.client_id, mqs));
        } catch (const std::exception& e) {
            log_repeated(LogLevel::Warn,
                         fmt::format("lockAll {} {}", s_.group, broker),
                         "group [{}]: lockAll on {} failed: {}",
                         s_.group,
                         broker,
                         e.what());
        }
    }
}

/// Queues granted turn locked (with a fresh lock time), the others unlocked.
template <class T>
void QueueLocker<T>::apply_granted_locks(const std::vector<MessageQueue>& asked,
                                         const std::vector<MessageQueue>& granted) {
    const std::set<MessageQueue> ok(granted.begin(), granted.end());
    for (const auto& mq : asked) {
        if (auto pq = s_.find_pq(mq)) {
            if (ok.contains(mq)) {
                pq->set_locked(true);
                pq->set_last_lock_timestamp(s_.clock->steady_millis());
            } else {
                pq->set_locked(false);
            }
        }
    }
}

/// Java's unlockAll(oneway=false) at shutdown: releases every owned queue's broker lock.
template <class T>
void QueueLocker<T>::unlock_all() {
    std::map<std::string, std::vector<MessageQueue>> by_broker;
    for (const auto& [mq, pq] : s_.table_snapshot()) {
        by_broker[mq.broker_name].push_back(mq);
    }
    for (const auto& [broker, mqs] : by_broker) {
        unlock_queues(mqs);
        for (const auto& mq : mqs) {
            if (auto pq = s_.find_pq(mq)) {
                pq->set_locked(false);
            }
        }
    }
}

template <class T>
void QueueLocker<T>::start_renewal() {
    if (T::Order::requires_queue_lock && s_.clustering) {
        const std::int64_t renew = s_.config.lock_renewal_interval;
        s_.scheduler.every(std::min<std::int64_t>(1000, renew), renew, [this] {
            if (!s_.stopping.load()) {
                lock_all();
            }
        });
    }
}

}  // namespace rmq::detail
