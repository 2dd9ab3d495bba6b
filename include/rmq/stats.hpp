#pragma once

/// @file stats.hpp
/// Consumer statistics (Java's ConsumerStatsManager): per-topic pull/consume rates and
/// latencies over the last minute, cumulative counters and a listener-time histogram, per-queue cache and lag
/// figures, and health flags; producer statistics (send counters and a send-time histogram).
/// rmq::ConsumerStats and rmq::ProducerStats are plain snapshots; the collectors the clients update from
/// their threads are in detail/stats/collectors.hpp. rmq/metrics.hpp exports both in Prometheus' text format.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

namespace rmq {

/// A cumulative histogram in milliseconds, as Prometheus and the RocketMQ 5.x clients' OpenTelemetry
/// histograms keep it.
struct Histogram {
    /// Upper bounds of the buckets (inclusive, ascending); an implicit +Inf bucket follows the last.
    std::vector<double> bounds;
    /// Observations per bucket, not cumulated: `counts[i]` fell in (bounds[i-1], bounds[i]]; `counts.back()`
    /// (index bounds.size()) above the last bound. Empty while nothing was observed.
    std::vector<std::int64_t> counts;
    /// Sum of all observations.
    double sum = 0;
    /// Number of observations.
    std::int64_t count = 0;
};

/// Bucket bounds (ms) of the listener-time histogram: rocketmq_process_time's in the 5.x clients.
inline constexpr std::array<double, 7> process_time_buckets{1, 5, 10, 100, 1000, 10'000, 60'000};
/// Bucket bounds (ms) of the send-time histogram: rocketmq_send_cost_time's in the 5.x clients.
inline constexpr std::array<double, 7> send_cost_time_buckets{1, 5, 10, 20, 50, 200, 500};

/// Java's ConsumeStatus for one topic of the group.
struct TopicStats {
    std::string topic;
    /// Average pull round trip, ms, last minute (PULL_RT).
    double pull_rt = 0;
    /// Messages pulled per second, last minute (PULL_TPS).
    double pull_tps = 0;
    /// Average listener call time, ms, last minute; the last hour when the minute saw no call (CONSUME_RT).
    double consume_rt = 0;
    /// Messages consumed successfully per second, last minute (CONSUME_OK_TPS).
    double consume_ok_tps = 0;
    /// Messages whose consumption failed per second, last minute (CONSUME_FAILED_TPS).
    double consume_failed_tps = 0;
    /// Messages whose consumption failed in the last hour (consumeFailedMsgs).
    std::int64_t consume_failed_msgs = 0;
    /// Messages pulled since start (after client-side tag filtering); the sum behind pull_tps.
    std::int64_t pulled_msgs_total = 0;
    /// Messages consumed successfully since start; the sum behind consume_ok_tps.
    std::int64_t consume_ok_total = 0;
    /// Messages whose consumption failed since start; the sum behind consume_failed_tps.
    std::int64_t consume_failed_total = 0;
    /// Listener call times since start, ms (buckets: process_time_buckets); the calls behind consume_rt.
    Histogram process_time{};
};

/// One owned queue, filled by the consumer from its ProcessQueue (Java's ProcessQueueInfo plus the lag).
struct QueueStats {
    MessageQueue mq;
    /// The offset store's value (readOffset MEMORY_FIRST_THEN_STORE), -1 when unknown.
    std::int64_t commit_offset = -1;
    /// Messages cached (pulled, not yet consumed).
    std::int64_t cached_msg_count = 0;
    /// Body bytes cached.
    std::int64_t cached_msg_bytes = 0;
    std::int64_t cached_msg_min_offset = 0;
    std::int64_t cached_msg_max_offset = 0;
    /// The queue's max offset reported by the last pull, -1 when unknown.
    std::int64_t broker_max_offset = -1;
    /// broker_max_offset − commit_offset (0 when either is unknown): messages not yet consumed.
    std::int64_t lag = 0;
    bool locked = false;
    bool dropped = false;
    std::int64_t last_pull_timestamp = 0;
    std::int64_t last_consume_timestamp = 0;
};

/// A snapshot of a consumer's statistics.
struct ConsumerStats {
    /// One entry per topic seen, ordered by topic.
    std::vector<TopicStats> topics;
    /// One entry per owned queue, ordered like MessageQueue.
    std::vector<QueueStats> queues;
    /// The broker's registry shows a different subscription for this group.
    bool subscription_inconsistent = false;
    /// What differs, when subscription_inconsistent.
    std::string subscription_inconsistent_detail;
    /// Records the decoder rejected (bad magic, CRC, truncated) since start.
    std::int64_t damaged_records = 0;
    /// Failed messages sent back to the broker for a retry since start (CONSUMER_SEND_MSG_BACK, or the retry
    /// copy when that failed).
    std::int64_t send_back_total = 0;
    /// Failed messages that could not be sent back at all since start (consumed again locally).
    std::int64_t send_back_failed_total = 0;
    /// Messages moved straight to the dead-letter queue by an orderly consumer since start.
    std::int64_t sent_to_dlq_total = 0;
};

/// One topic's sends of a producer, counted per send() call (retries inside one call are one send).
struct ProducerTopicStats {
    std::string topic;
    /// send() calls that returned a SendResult.
    std::int64_t send_ok_total = 0;
    /// send() calls that threw after the message was validated (broker errors, timeouts, no route).
    std::int64_t send_failed_total = 0;
    /// Time of the successful calls, ms (buckets: send_cost_time_buckets).
    Histogram send_cost_time_ok{};
    /// Time of the failed calls, ms.
    Histogram send_cost_time_failed{};
};

/// A snapshot of a producer's statistics.
struct ProducerStats {
    /// One entry per topic sent to, ordered by topic.
    std::vector<ProducerTopicStats> topics;
};

/// One line per topic in the manner of the Java client's periodic "Stats In One Minute" lines (what
/// ConsumerConfig::stats_log_interval logs): the minute's rates and latencies, the cache, the totals.
[[nodiscard]] RMQ_DECL std::vector<std::string> stats_log_lines(const ConsumerStats& stats,
                                                                std::string_view group);

}  // namespace rmq

// The collectors that fill these snapshots: the consumer and the producer reach them through this header.
#include <rmq/detail/stats/collectors.hpp>

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/stats.ipp>
#endif
