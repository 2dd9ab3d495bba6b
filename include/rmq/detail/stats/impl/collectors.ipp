#pragma once

/// @file detail/stats/impl/collectors.ipp
/// Definitions of detail/stats/collectors.hpp.

#include <rmq/detail/stats/collectors.hpp>

namespace rmq::detail {

RMQ_DECL Histogram HistogramCounter::read() const {
    Histogram h;
    h.bounds.assign(bounds_->begin(), bounds_->end());
    if (count_ > 0) {
        h.counts.assign(counts_.begin(), counts_.end());
    }
    h.sum = static_cast<double>(sum_);
    h.count = count_;
    return h;
}

RMQ_DECL void ProducerStatsCollector::record_send(std::string_view topic, std::int64_t millis, bool ok) {
    const std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end()) {
        it = topics_.emplace(std::string(topic), Topic{}).first;
    }
    Topic& t = it->second;
    (ok ? t.ok : t.failed) += 1;
    (ok ? t.cost_ok : t.cost_failed).add(millis);
}

RMQ_DECL ProducerStats ProducerStatsCollector::snapshot() const {
    ProducerStats out;
    const std::lock_guard lock(mutex_);
    out.topics.reserve(topics_.size());
    for (const auto& [name, t] : topics_) {
        out.topics.push_back(ProducerTopicStats{
            .topic = name,
            .send_ok_total = t.ok,
            .send_failed_total = t.failed,
            .send_cost_time_ok = t.cost_ok.read(),
            .send_cost_time_failed = t.cost_failed.read(),
        });
    }
    return out;
}

RMQ_DECL WindowCounter::Window WindowCounter::read(std::int64_t now, std::int64_t since) const noexcept {
    const std::int64_t id = now / bucket_millis_;
    const std::int64_t oldest = id - static_cast<std::int64_t>(bucket_count) + 1;
    Window w;
    for (const Bucket& b : buckets_) {
        if (b.id >= oldest && b.id <= id) {
            w.sum += b.value;
            w.times += b.times;
        }
    }
    w.span_millis = std::max<std::int64_t>(1, now - std::max(oldest * bucket_millis_, since));
    return w;
}

RMQ_DECL void StatsCollector::record_consume_rt(std::string_view topic, std::int64_t millis) {
    with_topic(topic, [&](Topic& t, std::int64_t now) {
        t.consume_rt.add(now, millis);
        t.consume_rt_hour.add(now, millis);
        t.process_time.add(millis);
    });
}

RMQ_DECL void StatsCollector::record_consume_failed(std::string_view topic, std::int64_t count) {
    with_topic(topic, [&](Topic& t, std::int64_t now) {
        t.consume_failed.add(now, count);
        t.consume_failed_hour.add(now, count);
        t.consume_failed_total += count;
    });
}

RMQ_DECL void StatsCollector::record_consume(std::string_view topic,
                                             std::int64_t millis,
                                             std::int64_t ok,
                                             std::int64_t failed) {
    with_topic(topic, [&](Topic& t, std::int64_t now) {
        t.consume_rt.add(now, millis);
        t.consume_rt_hour.add(now, millis);
        t.process_time.add(millis);
        if (ok > 0) {
            t.consume_ok.add(now, ok);
            t.consume_ok_total += ok;
        }
        if (failed > 0) {
            t.consume_failed.add(now, failed);
            t.consume_failed_hour.add(now, failed);
            t.consume_failed_total += failed;
        }
    });
}

RMQ_DECL void StatsCollector::set_queue(QueueStats q) {
    if (q.broker_max_offset >= 0 && q.commit_offset >= 0) {
        q.lag = std::max<std::int64_t>(0, q.broker_max_offset - q.commit_offset);
    } else {
        q.lag = 0;
    }
    const std::lock_guard lock(misc_mutex_);
    auto key = q.mq;
    queues_.insert_or_assign(std::move(key), std::move(q));
}

RMQ_DECL void StatsCollector::set_subscription_inconsistent(bool inconsistent, std::string detail) {
    const std::lock_guard lock(misc_mutex_);
    subscription_inconsistent_ = inconsistent;
    subscription_detail_ = inconsistent ? std::move(detail) : std::string{};
}

RMQ_DECL ConsumerStats StatsCollector::snapshot() const {
    const std::int64_t now = clock_->coarse_steady_millis();
    ConsumerStats out;
    {
        const std::shared_lock lock(topics_mutex_);
        out.topics.reserve(topics_.size());
        for (const auto& [name, topic] : topics_) {
            out.topics.push_back(topic_stats(name, *topic, now));
        }
    }
    const std::lock_guard lock(misc_mutex_);
    out.queues.reserve(queues_.size());
    for (const auto& [mq, q] : queues_) {
        out.queues.push_back(q);
    }
    out.subscription_inconsistent = subscription_inconsistent_;
    out.subscription_inconsistent_detail = subscription_detail_;
    out.damaged_records = damaged_records_;
    out.send_back_total = send_back_total_;
    out.send_back_failed_total = send_back_failed_total_;
    out.sent_to_dlq_total = sent_to_dlq_total_;
    return out;
}

RMQ_DECL TopicStats StatsCollector::topic(std::string_view name) const {
    const std::int64_t now = clock_->coarse_steady_millis();
    const std::shared_lock lock(topics_mutex_);
    if (auto it = topics_.find(name); it != topics_.end()) {
        return topic_stats(it->first, *it->second, now);
    }
    return TopicStats{std::string(name)};
}

RMQ_DECL TopicStats StatsCollector::topic_stats(const std::string& name, Topic& t, std::int64_t now) const {
    const std::lock_guard lock(t.mutex);
    auto avg = [](const WindowCounter::Window& w) {
        return w.times == 0 ? 0.0 : static_cast<double>(w.sum) / static_cast<double>(w.times);
    };
    auto tps = [](const WindowCounter::Window& w) {
        return static_cast<double>(w.sum) * 1000.0 / static_cast<double>(w.span_millis);
    };
    TopicStats s{name};
    s.pull_rt = avg(t.pull_rt.read(now, start_));
    s.pull_tps = tps(t.pull_tps.read(now, start_));
    const auto rt = t.consume_rt.read(now, start_);
    s.consume_rt = rt.sum != 0 ? avg(rt) : avg(t.consume_rt_hour.read(now, start_));
    s.consume_ok_tps = tps(t.consume_ok.read(now, start_));
    s.consume_failed_tps = tps(t.consume_failed.read(now, start_));
    s.consume_failed_msgs = t.consume_failed_hour.read(now, start_).sum;
    s.pulled_msgs_total = t.pulled_total;
    s.consume_ok_total = t.consume_ok_total;
    s.consume_failed_total = t.consume_failed_total;
    s.process_time = t.process_time.read();
    return s;
}

}  // namespace rmq::detail
