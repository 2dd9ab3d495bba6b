#pragma once

/// @file detail/consumer/impl/stats.hpp
/// ConsumerCore's views for users: the stats snapshot with each owned queue's state, the periodic stats
/// log, the owned queues.

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <rmq/detail/consumer/core.hpp>

namespace rmq::detail {

template <class Order, class Allocate, class OffsetStore, class Tr>
ConsumerStats ConsumerCore<Order, Allocate, OffsetStore, Tr>::stats() const {
    ConsumerStats out = s_.stats.snapshot();
    out.queues.clear();
    std::map<MessageQueue, std::int64_t> broker_max;
    {
        const std::lock_guard lock(s_.table_mutex);
        broker_max = s_.broker_max_offset;
    }
    for (const auto& [mq, pq] : s_.table_snapshot()) {
        const auto info = pq->info();
        QueueStats q;
        q.mq = mq;
        q.commit_offset = committer_.memory_offset(mq);
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
    const std::int64_t period = s_.config.stats_log_interval;
    if (period <= 0) {
        return;
    }
    s_.scheduler.every(period, period, [this] {
        if (!log_enabled(LogLevel::Info)) {
            return;
        }
        for (const std::string& line : stats_log_lines(stats(), s_.group)) {
            log_message(LogLevel::Info, line);
        }
    });
}

template <class Order, class Allocate, class OffsetStore, class Tr>
std::vector<MessageQueue> ConsumerCore<Order, Allocate, OffsetStore, Tr>::assigned_queues() const {
    std::vector<MessageQueue> out = pop_.pop_queues();  // POP mode: the POP queues (queue id -1: any)
    const std::lock_guard lock(s_.table_mutex);
    for (const auto& [mq, pq] : s_.table) {
        if (!pq->dropped()) {
            out.push_back(mq);
        }
    }
    return out;
}

}  // namespace rmq::detail
