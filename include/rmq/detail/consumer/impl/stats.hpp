#pragma once

/// @file detail/consumer/impl/stats.hpp
/// ConsumerCore's views for users: the stats snapshot with each owned queue's state, the owned queues, and
/// the queue table they are read from.

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <rmq/detail/consumer/core.hpp>

namespace rmq::detail {

template <class Order, class Allocate, class OffsetStore, class Tr>
ConsumerStats ConsumerCore<Order, Allocate, OffsetStore, Tr>::stats() const {
    ConsumerStats out = stats_.snapshot();
    out.queues.clear();
    std::map<MessageQueue, std::int64_t> broker_max;
    {
        const std::lock_guard lock(table_mutex_);
        broker_max = broker_max_offset_;
    }
    for (const auto& [mq, pq] : table_snapshot()) {
        const auto info = pq->info();
        QueueStats q;
        q.mq = mq;
        q.commit_offset = offset_store_.read_offset(mq, ReadOffsetType::ReadFromMemory);
        q.cached_msg_count = pq->msg_count();
        q.cached_msg_bytes = pq->msg_size();
        q.cached_msg_min_offset = info.cached_msg_min_offset;
        q.cached_msg_max_offset = info.cached_msg_max_offset;
        if (const auto it = broker_max.find(mq); it != broker_max.end()) {
            q.broker_max_offset = it->second;
        }
        if (q.broker_max_offset >= 0 && q.commit_offset >= 0) {
            q.lag = std::max<std::int64_t>(0, q.broker_max_offset - q.commit_offset);
        }
        q.locked = info.locked;
        q.dropped = info.dropped;
        q.last_pull_timestamp = info.last_pull_timestamp;
        q.last_consume_timestamp = info.last_consume_timestamp;
        out.queues.push_back(std::move(q));
    }
    return out;
}

/// ConsumerConfig::stats_log_interval: the per-topic stats lines at Info, from the loop.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::schedule_stats_log() {
    const std::int64_t period = config_.stats_log_interval;
    if (period <= 0) {
        return;
    }
    scheduler_.every(period, period, [this] {
        if (!log_enabled(LogLevel::Info)) {
            return;
        }
        for (const std::string& line : stats_log_lines(stats(), group_)) {
            log_message(LogLevel::Info, line);
        }
    });
}

template <class Order, class Allocate, class OffsetStore, class Tr>
std::vector<MessageQueue> ConsumerCore<Order, Allocate, OffsetStore, Tr>::assigned_queues() const {
    std::vector<MessageQueue> out;
    const std::lock_guard lock(table_mutex_);
    for (const auto& [mq, pq] : table_) {
        if (!pq->dropped()) {
            out.push_back(mq);
        }
    }
    return out;
}

template <class Order, class Allocate, class OffsetStore, class Tr>
auto ConsumerCore<Order, Allocate, OffsetStore, Tr>::table_snapshot() const -> std::vector<QueueEntry> {
    const std::lock_guard lock(table_mutex_);
    return {table_.begin(), table_.end()};
}

template <class Order, class Allocate, class OffsetStore, class Tr>
std::shared_ptr<ProcessQueue>
ConsumerCore<Order, Allocate, OffsetStore, Tr>::find_pq(const MessageQueue& mq) const {
    const std::lock_guard lock(table_mutex_);
    const auto it = table_.find(mq);
    return it == table_.end() ? nullptr : it->second;
}

}  // namespace rmq::detail
