#pragma once

/// @file detail/consumer_stats.hpp
/// Counters a Consumer keeps for consumer.stats() (consumer.md §10): cumulative per topic, sampled per queue.

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include <rmq/message_queue.hpp>

namespace rmq {

/// Cumulative counters of one topic since start (Java's PULL_RT, PULL_TPS, CONSUME_RT, CONSUME_OK_TPS and
/// CONSUME_FAILED_TPS items; rates are derived by the reader from two snapshots).
struct TopicConsumeStats {
    std::int64_t pull_rt_total_millis = 0;  ///< summed pull round trips (FOUND answers)
    std::int64_t pull_times = 0;            ///< FOUND answers
    std::int64_t pulled_msgs = 0;           ///< messages kept after the client-side tag check
    std::int64_t consume_rt_total_millis = 0;
    std::int64_t consume_times = 0;  ///< listener calls
    std::int64_t consume_ok_msgs = 0;
    std::int64_t consume_failed_msgs = 0;

    /// Mean pull round trip in ms (0 before the first pull).
    [[nodiscard]] double pull_rt_avg() const noexcept {
        return pull_times == 0 ? 0.0
                               : static_cast<double>(pull_rt_total_millis) / static_cast<double>(pull_times);
    }

    /// Mean listener time in ms (0 before the first call).
    [[nodiscard]] double consume_rt_avg() const noexcept {
        return consume_times == 0
                   ? 0.0
                   : static_cast<double>(consume_rt_total_millis) / static_cast<double>(consume_times);
    }
};

/// One owned queue at the time of the snapshot.
struct QueueConsumeStats {
    std::int64_t cached_msg_count = 0;   ///< ProcessQueue::msg_count()
    std::int64_t cached_msg_bytes = 0;   ///< ProcessQueue::msg_size()
    std::int64_t lag = 0;                ///< broker backlog estimate (ProcessQueue::msg_acc_cnt())
    std::int64_t committed_offset = -1;  ///< the offset store's in-memory value
    bool locked = false;                 ///< orderly: broker lock believed held
};

/// What consumer.stats() returns.
struct ConsumerStats {
    std::map<std::string, TopicConsumeStats> topics;
    std::map<MessageQueue, QueueConsumeStats> queues;
    std::int64_t flow_control_times = 0;            ///< pulls deferred by the count/size/span/pool checks
    std::int64_t pull_errors = 0;                   ///< pulls that failed (broker error or transport)
    std::int64_t send_back_failures = 0;            ///< send-backs that failed twice (kept for a local retry)
    std::int64_t subscription_inconsistencies = 0;  ///< times the group's subscriptions were seen to differ
    bool subscription_inconsistent = false;         ///< the latest check found a difference
};

namespace detail {

/// Thread-safe accumulation of TopicConsumeStats.
class StatsCollector {
public:
    void pull(const std::string& topic, std::int64_t rt_millis, std::int64_t msgs) {
        const std::lock_guard lock(mutex_);
        auto& t = topics_[topic];
        t.pull_rt_total_millis += rt_millis;
        t.pull_times += 1;
        t.pulled_msgs += msgs;
    }

    void consume_rt(const std::string& topic, std::int64_t rt_millis) {
        const std::lock_guard lock(mutex_);
        auto& t = topics_[topic];
        t.consume_rt_total_millis += rt_millis;
        t.consume_times += 1;
    }

    void consume_result(const std::string& topic, std::int64_t ok, std::int64_t failed) {
        const std::lock_guard lock(mutex_);
        auto& t = topics_[topic];
        t.consume_ok_msgs += ok;
        t.consume_failed_msgs += failed;
    }

    [[nodiscard]] std::map<std::string, TopicConsumeStats> topics() const {
        const std::lock_guard lock(mutex_);
        return topics_;
    }

    std::atomic<std::int64_t> flow_control_times{0};
    std::atomic<std::int64_t> pull_errors{0};
    std::atomic<std::int64_t> send_back_failures{0};
    std::atomic<std::int64_t> subscription_inconsistencies{0};

private:
    mutable std::mutex mutex_;
    std::map<std::string, TopicConsumeStats> topics_;
};

}  // namespace detail
}  // namespace rmq
