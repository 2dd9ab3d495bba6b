#pragma once

/// @file detail/stats/collectors.hpp
/// What the consumer and the producer update from their threads and read rmq::ConsumerStats /
/// rmq::ProducerStats from: histograms, sliding windows, per-topic and per-queue figures. Internal: reached
/// through <rmq/stats.hpp>, which includes it after the snapshot types.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/clock.hpp>
#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/stats.hpp>

namespace rmq::detail {

/// A fixed-bucket histogram of millisecond observations (bounds: one of the *_buckets arrays).
class HistogramCounter {
public:
    static constexpr std::size_t bucket_count = 7;

    explicit HistogramCounter(const std::array<double, bucket_count>& bounds) noexcept
        : bounds_(&bounds) {}

    void add(std::int64_t millis) noexcept {
        const auto v = static_cast<double>(millis);
        counts_[static_cast<std::size_t>(std::lower_bound(bounds_->begin(), bounds_->end(), v) -
                                         bounds_->begin())] += 1;
        sum_ += millis;
        count_ += 1;
    }

    [[nodiscard]] Histogram read() const;

private:
    const std::array<double, bucket_count>* bounds_;
    std::array<std::int64_t, bucket_count + 1> counts_{};
    std::int64_t sum_ = 0;
    std::int64_t count_ = 0;
};

/// Sums over a sliding window of fixed buckets (the current one plus five full ones): no allocation, no
/// timer.
class WindowCounter {
public:
    static constexpr std::size_t bucket_count = 6;

    explicit WindowCounter(std::int64_t bucket_millis) noexcept
        : bucket_millis_(bucket_millis) {}

    void add(std::int64_t now, std::int64_t value) noexcept {
        const std::int64_t id = now / bucket_millis_;
        Bucket& b = buckets_[static_cast<std::size_t>(id) % bucket_count];
        if (b.id != id) {
            b = Bucket{id, 0, 0};
        }
        b.value += value;
        b.times += 1;
    }

    struct Window {
        std::int64_t sum = 0;
        std::int64_t times = 0;
        std::int64_t span_millis = 1;
    };

    /// The window ending now; its span starts at the oldest bucket or at `since` (collector start), if later.
    [[nodiscard]] Window read(std::int64_t now, std::int64_t since) const noexcept;

private:
    struct Bucket {
        std::int64_t id = -1;
        std::int64_t value = 0;
        std::int64_t times = 0;
    };

    std::int64_t bucket_millis_;
    std::array<Bucket, bucket_count> buckets_{};
};

/// Thread-safe collector behind rmq::ConsumerStats. Hot-path calls take a shared lock on the topic map and
/// the topic's own mutex; only the first call for a topic allocates.
class StatsCollector {
public:
    /// Minute window: 10 s buckets; hour window: 10 min buckets (Java samples at the same periods).
    static constexpr std::int64_t minute_bucket_millis = 10'000;
    static constexpr std::int64_t hour_bucket_millis = 600'000;

    explicit StatsCollector(std::shared_ptr<Clock> clock = system_clock())
        : clock_(std::move(clock))
        , start_(clock_->coarse_steady_millis()) {}

    /// PULL_RT: one pull that found messages took `millis`.
    void record_pull_rt(std::string_view topic, std::int64_t millis) {
        with_topic(topic, [&](Topic& t, std::int64_t now) { t.pull_rt.add(now, millis); });
    }

    /// PULL_TPS: `count` messages arrived (after client-side filtering).
    void record_pulled(std::string_view topic, std::int64_t count) {
        with_topic(topic, [&](Topic& t, std::int64_t now) {
            t.pull_tps.add(now, count);
            t.pulled_total += count;
        });
    }

    /// CONSUME_RT: one listener call took `millis`.
    void record_consume_rt(std::string_view topic, std::int64_t millis);

    /// CONSUME_OK_TPS: `count` messages consumed successfully.
    void record_consume_ok(std::string_view topic, std::int64_t count) {
        with_topic(topic, [&](Topic& t, std::int64_t now) {
            t.consume_ok.add(now, count);
            t.consume_ok_total += count;
        });
    }

    /// CONSUME_FAILED_TPS: `count` messages failed (sent back, suspended or dropped).
    void record_consume_failed(std::string_view topic, std::int64_t count);

    /// One listener call at once: CONSUME_RT `millis`, then `ok` successes and `failed` failures (zero counts
    /// are not recorded). Same figures as the three calls above, one lock round-trip instead of three: it
    /// runs once per batch on the consume threads.
    void record_consume(std::string_view topic, std::int64_t millis, std::int64_t ok, std::int64_t failed);

    /// Replaces the figures of one queue (the consumer calls it when asked for a snapshot or periodically).
    void set_queue(QueueStats q);

    /// Forgets a queue no longer owned.
    void remove_queue(const MessageQueue& mq) {
        const std::lock_guard lock(misc_mutex_);
        queues_.erase(mq);
    }

    /// Sets or clears the subscription-inconsistency flag with a description of the difference.
    void set_subscription_inconsistent(bool inconsistent, std::string detail = {});

    /// Counts records the decoder rejected.
    void add_damaged_records(std::int64_t count) {
        const std::lock_guard lock(misc_mutex_);
        damaged_records_ += count;
    }

    /// Counts one message sent back (`ok`) or not sent back at all.
    void record_send_back(bool ok) {
        const std::lock_guard lock(misc_mutex_);
        (ok ? send_back_total_ : send_back_failed_total_) += 1;
    }

    /// Counts one message moved to the DLQ.
    void record_sent_to_dlq() {
        const std::lock_guard lock(misc_mutex_);
        sent_to_dlq_total_ += 1;
    }

    /// The statistics now.
    [[nodiscard]] ConsumerStats snapshot() const;

    /// One topic's figures now (zeros for a topic never seen).
    [[nodiscard]] TopicStats topic(std::string_view name) const;

private:
    struct Topic {
        std::mutex mutex;
        WindowCounter pull_rt{minute_bucket_millis};
        WindowCounter pull_tps{minute_bucket_millis};
        WindowCounter consume_rt{minute_bucket_millis};
        WindowCounter consume_rt_hour{hour_bucket_millis};
        WindowCounter consume_ok{minute_bucket_millis};
        WindowCounter consume_failed{minute_bucket_millis};
        WindowCounter consume_failed_hour{hour_bucket_millis};
        HistogramCounter process_time{process_time_buckets};
        std::int64_t pulled_total = 0;
        std::int64_t consume_ok_total = 0;
        std::int64_t consume_failed_total = 0;
    };

    template <class F>
    void with_topic(std::string_view name, F&& f) {
        const std::int64_t now = clock_->coarse_steady_millis();
        Topic& t = topic_counters(name);
        const std::lock_guard tl(t.mutex);
        f(t, now);
    }

    // The counters of `name`, created on first use. A thread keeps the last topic it recorded for (a consume
    // thread records for one topic call after call): then no shared lock and no map look-up. Topics are never
    // removed, so the pointer lives as long as this collector; the collector's id, not its address (which a
    // later collector may reuse), says whose it is.
    Topic& topic_counters(std::string_view name) {
        struct Last {
            std::uint64_t owner = 0;
            std::string name;
            Topic* topic = nullptr;
        };

        thread_local Last last;
        if (last.owner == id_ && last.name == name) {
            return *last.topic;
        }
        Topic* found = nullptr;
        {
            const std::shared_lock lock(topics_mutex_);
            if (const auto it = topics_.find(name); it != topics_.end()) {
                found = it->second.get();
            }
        }
        if (found == nullptr) {
            const std::unique_lock lock(topics_mutex_);
            auto it = topics_.find(name);
            if (it == topics_.end()) {
                it = topics_.emplace(std::string(name), std::make_unique<Topic>()).first;
            }
            found = it->second.get();
        }
        last.owner = id_;
        last.name.assign(name);
        last.topic = found;
        return *found;
    }

    [[nodiscard]] static std::uint64_t next_id() noexcept {
        static std::atomic<std::uint64_t> ids{0};
        return ids.fetch_add(1) + 1;
    }

    TopicStats topic_stats(const std::string& name, Topic& t, std::int64_t now) const;

    std::shared_ptr<Clock> clock_;
    std::uint64_t id_ = next_id();
    std::int64_t start_;
    mutable std::shared_mutex topics_mutex_;
    std::map<std::string, std::unique_ptr<Topic>, std::less<>> topics_;
    mutable std::mutex misc_mutex_;
    std::map<MessageQueue, QueueStats> queues_;
    bool subscription_inconsistent_ = false;
    std::string subscription_detail_;
    std::int64_t damaged_records_ = 0;
    std::int64_t send_back_total_ = 0;
    std::int64_t send_back_failed_total_ = 0;
    std::int64_t sent_to_dlq_total_ = 0;
};

/// Thread-safe collector behind rmq::ProducerStats (one mutex: sends are synchronous round trips).
class ProducerStatsCollector {
public:
    /// One send() call to `topic` took `millis` and succeeded (`ok`) or threw.
    void record_send(std::string_view topic, std::int64_t millis, bool ok);

    [[nodiscard]] ProducerStats snapshot() const;

private:
    struct Topic {
        std::int64_t ok = 0;
        std::int64_t failed = 0;
        HistogramCounter cost_ok{send_cost_time_buckets};
        HistogramCounter cost_failed{send_cost_time_buckets};
    };

    mutable std::mutex mutex_;
    std::map<std::string, Topic, std::less<>> topics_;
};

/// Times one send() call from construction to destruction and records it: failed when the destructor runs
/// during stack unwinding (the call threw), succeeded otherwise.
class SendRecorder {
public:
    SendRecorder(ProducerStatsCollector& stats, std::string_view topic, std::shared_ptr<Clock> clock)
        : stats_(stats)
        , topic_(topic)
        , clock_(std::move(clock))
        , begin_(clock_->steady_millis())
        , exceptions_(std::uncaught_exceptions()) {}

    SendRecorder(const SendRecorder&) = delete;
    SendRecorder& operator=(const SendRecorder&) = delete;

    ~SendRecorder() {
        try {
            stats_.record_send(
                topic_, clock_->steady_millis() - begin_, std::uncaught_exceptions() == exceptions_);
        } catch (...) {  // NOLINT(bugprone-empty-catch): statistics never turn a send into a failure
        }
    }

private:
    ProducerStatsCollector& stats_;
    std::string topic_;
    std::shared_ptr<Clock> clock_;
    std::int64_t begin_;
    int exceptions_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/stats/impl/collectors.ipp>
#endif
