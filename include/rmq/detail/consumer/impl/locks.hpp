#pragma once

/// @file detail/consumer/impl/locks.hpp
/// ConsumerCore's broker queue locks (orderly policies): lock one queue (Java's lockOneMQ), renew all
/// (lockAll, every lock_renewal_interval), release (unlockAll at shutdown).

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <rmq/detail/consumer/core.hpp>

namespace rmq::detail {

/// LOCK_BATCH_MQ for one queue; marks its ProcessQueue locked when granted.
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::lock_queue(const MessageQueue& mq) {
    if (stopping_.load()) {
        return false;
    }
    try {
        const auto locked = transport_.lock_batch(group_, client_id_, std::vector<MessageQueue>{mq});
        const bool ok = std::find(locked.begin(), locked.end(), mq) != locked.end();
        if (ok) {
            if (auto pq = find_pq(mq)) {
                pq->set_locked(true);
                pq->set_last_lock_timestamp(clock_->steady_millis());
            }
        }
        return ok;
    } catch (const std::exception& e) {
        log_repeated(LogLevel::Warn,
                     fmt::format("lock {} {}", group_, mq.broker_name),
                     "group [{}]: lock of {} failed: {}",
                     group_,
                     mq,
                     e.what());
        return false;
    }
}

/// UNLOCK_BATCH_MQ for the given queues (errors logged).
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::unlock_queues(const std::vector<MessageQueue>& mqs) {
    if (mqs.empty()) {
        return;
    }
    try {
        transport_.unlock_batch(group_, client_id_, mqs);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: unlock failed: {}", group_, e.what());
    }
}

/// Java's lockAll: renews the broker lock of every owned queue, one request per broker.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::lock_all() {
    std::map<std::string, std::vector<MessageQueue>> by_broker;
    for (const auto& [mq, pq] : table_snapshot()) {
        if (!pq->dropped()) {
            by_broker[mq.broker_name].push_back(mq);
        }
    }
    for (const auto& [broker, mqs] : by_broker) {
        try {
            apply_granted_locks(mqs, transport_.lock_batch(group_, client_id_, mqs));
        } catch (const std::exception& e) {
            log_repeated(LogLevel::Warn,
                         fmt::format("lockAll {} {}", group_, broker),
                         "group [{}]: lockAll on {} failed: {}",
                         group_,
                         broker,
                         e.what());
        }
    }
}

/// Queues granted turn locked (with a fresh lock time), the others unlocked.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::apply_granted_locks(
    const std::vector<MessageQueue>& asked, const std::vector<MessageQueue>& granted) {
    const std::set<MessageQueue> ok(granted.begin(), granted.end());
    for (const auto& mq : asked) {
        if (auto pq = find_pq(mq)) {
            if (ok.contains(mq)) {
                pq->set_locked(true);
                pq->set_last_lock_timestamp(clock_->steady_millis());
            } else {
                pq->set_locked(false);
            }
        }
    }
}

/// Java's unlockAll(oneway=false) at shutdown: releases every owned queue's broker lock.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::unlock_all() {
    std::map<std::string, std::vector<MessageQueue>> by_broker;
    for (const auto& [mq, pq] : table_snapshot()) {
        by_broker[mq.broker_name].push_back(mq);
    }
    for (const auto& [broker, mqs] : by_broker) {
        unlock_queues(mqs);
        for (const auto& mq : mqs) {
            if (auto pq = find_pq(mq)) {
                pq->set_locked(false);
            }
        }
    }
}

}  // namespace rmq::detail
