#pragma once

/// @file impl/metrics.ipp
/// Definitions of metrics.hpp.

#include <rmq/metrics.hpp>

// Only the definitions need these.
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <utility>

#include <fmt/format.h>

namespace rmq {
namespace detail {

struct FamilyInfo {
    std::string_view name;
    std::string_view type;
    std::string_view help;
};

// Every family rmq writes, in output order of a consumer then a producer. Times are milliseconds, as in
// the RocketMQ 5.x clients' histograms.
inline constexpr std::array<FamilyInfo, 21> families{{
    {"rocketmq_process_time", "histogram", "Time the listener took per call, in milliseconds."},
    {"rocketmq_consumer_cached_messages", "gauge", "Messages pulled and not yet consumed, per topic."},
    {"rocketmq_consumer_cached_bytes", "gauge", "Body bytes pulled and not yet consumed, per topic."},
    {"rmq_consumer_pulled_messages_total", "counter", "Messages pulled (after tag filtering)."},
    {"rmq_consumer_consumed_messages_total", "counter", "Messages consumed, by outcome."},
    {"rmq_consumer_pull_tps", "gauge", "Messages pulled per second over the last minute (PULL_TPS)."},
    {"rmq_consumer_pull_rt_milliseconds", "gauge", "Average pull round trip over the last minute (PULL_RT)."},
    {"rmq_consumer_consume_ok_tps", "gauge", "Messages consumed successfully per second, last minute."},
    {"rmq_consumer_consume_failed_tps",
     "gauge",
     "Messages whose consumption failed per second, last minute."},
    {"rmq_consumer_consume_rt_milliseconds", "gauge", "Average listener call time over the last minute."},
    {"rmq_consumer_consume_failed_messages_last_hour",
     "gauge",
     "Messages whose consumption failed, last hour."},
    {"rmq_consumer_queue_cached_messages", "gauge", "Messages cached for one owned queue."},
    {"rmq_consumer_queue_cached_bytes", "gauge", "Body bytes cached for one owned queue."},
    {"rmq_consumer_queue_lag_messages",
     "gauge",
     "Broker max offset minus committed offset of one owned queue."},
    {"rmq_consumer_queue_commit_offset",
     "gauge",
     "Committed consume offset of one owned queue (-1 unknown)."},
    {"rmq_consumer_queue_locked", "gauge", "1 when the broker lock of one owned queue is held."},
    {"rmq_consumer_sent_back_messages_total",
     "counter",
     "Failed messages sent back for a retry, by outcome."},
    {"rmq_consumer_dlq_messages_total",
     "counter",
     "Messages moved to the dead-letter queue by the consumer."},
    {"rmq_consumer_damaged_records_total", "counter", "Pulled records the decoder rejected."},
    {"rocketmq_send_cost_time", "histogram", "Time of one send call, in milliseconds."},
    {"rmq_producer_sends_total", "counter", "Send calls, by outcome."},
}};

using Labels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

/// Prometheus spells infinities and NaN its own way; finite values use the shortest exact form.
RMQ_DECL std::string sample_value(double v) {
    if (std::isnan(v)) {
        return "NaN";
    }
    if (std::isinf(v)) {
        return v > 0 ? "+Inf" : "-Inf";
    }
    return fmt::format("{}", v);
}

RMQ_DECL std::string sample_value(std::int64_t v) {
    return fmt::format("{}", v);
}

/// `name{a="x",b="y"} value` and a newline; `extra` is one more label (le of a bucket) when not empty.
RMQ_DECL void write_sample(std::string& out,
                           std::string_view name,
                           std::string_view suffix,
                           Labels labels,
                           std::pair<std::string_view, std::string_view> extra,
                           const std::string& v) {
    fmt::format_to(std::back_inserter(out), "{}{}{{", name, suffix);
    bool first = true;
    for (const auto& [k, val] : labels) {
        fmt::format_to(
            std::back_inserter(out), "{}{}=\"{}\"", first ? "" : ",", k, prometheus_escape_label_value(val));
        first = false;
    }
    if (!extra.first.empty()) {
        fmt::format_to(std::back_inserter(out), "{}{}=\"{}\"", first ? "" : ",", extra.first, extra.second);
    }
    fmt::format_to(std::back_inserter(out), "}} {}\n", v);
}

RMQ_DECL void write_histogram(std::string& out, std::string_view name, Labels labels, const Histogram& h) {
    std::int64_t cumulative = 0;
    for (std::size_t i = 0; i < h.bounds.size(); ++i) {
        cumulative += i < h.counts.size() ? h.counts[i] : 0;
        write_sample(
            out, name, "_bucket", labels, {"le", sample_value(h.bounds[i])}, sample_value(cumulative));
    }
    write_sample(out, name, "_bucket", labels, {"le", "+Inf"}, sample_value(h.count));
    write_sample(out, name, "_sum", labels, {}, sample_value(h.sum));
    write_sample(out, name, "_count", labels, {}, sample_value(h.count));
}

}  // namespace detail

RMQ_DECL std::string prometheus_escape_label_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (const char c : value) {
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '"':
            out += "\\\"";
            break;
        case '\n':
            out += "\\n";
            break;
        default:
            out += c;
        }
    }
    return out;
}

RMQ_DECL PrometheusText::Family& PrometheusText::family(std::string_view name) {
    for (Family& f : families_) {
        if (f.name == name) {
            return f;
        }
    }
    for (const auto& info : detail::families) {
        if (info.name == name) {
            return families_.emplace_back(Family{info.name, info.type, info.help, {}});
        }
    }
    throw std::logic_error(fmt::format("rmq: unknown metric family {}", name));
}

RMQ_DECL void
PrometheusText::add_topics(const ConsumerStats& stats, std::string_view group, std::string_view client) {
    using detail::sample_value;
    using detail::write_sample;
    std::map<std::string_view, std::pair<std::int64_t, std::int64_t>> cached;
    for (const TopicStats& t : stats.topics) {
        cached[t.topic];
    }
    for (const QueueStats& q : stats.queues) {
        auto& c = cached[q.mq.topic];
        c.first += q.cached_msg_count;
        c.second += q.cached_msg_bytes;
    }
    for (const TopicStats& t : stats.topics) {
        detail::write_histogram(family("rocketmq_process_time").samples,
                                "rocketmq_process_time",
                                {{"consumer_group", group}, {"client_id", client}, {"topic", t.topic}},
                                t.process_time);
    }
    for (const auto& [topic, c] : cached) {
        const detail::Labels l{{"consumer_group", group}, {"client_id", client}, {"topic", topic}};
        write_sample(family("rocketmq_consumer_cached_messages").samples,
                     "rocketmq_consumer_cached_messages",
                     "",
                     l,
                     {},
                     sample_value(c.first));
        write_sample(family("rocketmq_consumer_cached_bytes").samples,
                     "rocketmq_consumer_cached_bytes",
                     "",
                     l,
                     {},
                     sample_value(c.second));
    }
    const std::pair<std::string_view, double TopicStats::*> rates[] = {
        {"rmq_consumer_pull_tps", &TopicStats::pull_tps},
        {"rmq_consumer_pull_rt_milliseconds", &TopicStats::pull_rt},
        {"rmq_consumer_consume_ok_tps", &TopicStats::consume_ok_tps},
        {"rmq_consumer_consume_failed_tps", &TopicStats::consume_failed_tps},
        {"rmq_consumer_consume_rt_milliseconds", &TopicStats::consume_rt},
    };
    for (const TopicStats& t : stats.topics) {
        const detail::Labels l{{"consumer_group", group}, {"client_id", client}, {"topic", t.topic}};
        write_sample(family("rmq_consumer_pulled_messages_total").samples,
                     "rmq_consumer_pulled_messages_total",
                     "",
                     l,
                     {},
                     sample_value(t.pulled_msgs_total));
        auto& consumed = family("rmq_consumer_consumed_messages_total").samples;
        write_sample(consumed,
                     "rmq_consumer_consumed_messages_total",
                     "",
                     l,
                     {"invocation_status", "success"},
                     sample_value(t.consume_ok_total));
        write_sample(consumed,
                     "rmq_consumer_consumed_messages_total",
                     "",
                     l,
                     {"invocation_status", "failure"},
                     sample_value(t.consume_failed_total));
        for (const auto& [name, field] : rates) {
            write_sample(family(name).samples, name, "", l, {}, sample_value(t.*field));
        }
        write_sample(family("rmq_consumer_consume_failed_messages_last_hour").samples,
                     "rmq_consumer_consume_failed_messages_last_hour",
                     "",
                     l,
                     {},
                     sample_value(t.consume_failed_msgs));
    }
}

RMQ_DECL void
PrometheusText::add_queues(const ConsumerStats& stats, std::string_view group, std::string_view client) {
    using detail::sample_value;
    using detail::write_sample;
    const std::pair<std::string_view, std::int64_t QueueStats::*> gauges[] = {
        {"rmq_consumer_queue_cached_messages", &QueueStats::cached_msg_count},
        {"rmq_consumer_queue_cached_bytes", &QueueStats::cached_msg_bytes},
        {"rmq_consumer_queue_lag_messages", &QueueStats::lag},
        {"rmq_consumer_queue_commit_offset", &QueueStats::commit_offset},
    };
    for (const auto& [name, field] : gauges) {
        auto& out = family(name).samples;
        for (const QueueStats& q : stats.queues) {
            const std::string queue_id = std::to_string(q.mq.queue_id);
            write_sample(out,
                         name,
                         "",
                         {{"consumer_group", group},
                          {"client_id", client},
                          {"topic", q.mq.topic},
                          {"broker_name", q.mq.broker_name},
                          {"queue_id", queue_id}},
                         {},
                         sample_value(q.*field));
        }
    }
    auto& locked = family("rmq_consumer_queue_locked").samples;
    for (const QueueStats& q : stats.queues) {
        const std::string queue_id = std::to_string(q.mq.queue_id);
        write_sample(locked,
                     "rmq_consumer_queue_locked",
                     "",
                     {{"consumer_group", group},
                      {"client_id", client},
                      {"topic", q.mq.topic},
                      {"broker_name", q.mq.broker_name},
                      {"queue_id", queue_id}},
                     {},
                     sample_value(std::int64_t{q.locked ? 1 : 0}));
    }
}

RMQ_DECL PrometheusText&
PrometheusText::add(const ConsumerStats& stats, std::string_view consumer_group, std::string_view client_id) {
    using detail::sample_value;
    using detail::write_sample;
    add_topics(stats, consumer_group, client_id);
    add_queues(stats, consumer_group, client_id);
    const detail::Labels l{{"consumer_group", consumer_group}, {"client_id", client_id}};
    auto& sent_back = family("rmq_consumer_sent_back_messages_total").samples;
    write_sample(sent_back,
                 "rmq_consumer_sent_back_messages_total",
                 "",
                 l,
                 {"invocation_status", "success"},
                 sample_value(stats.send_back_total));
    write_sample(sent_back,
                 "rmq_consumer_sent_back_messages_total",
                 "",
                 l,
                 {"invocation_status", "failure"},
                 sample_value(stats.send_back_failed_total));
    write_sample(family("rmq_consumer_dlq_messages_total").samples,
                 "rmq_consumer_dlq_messages_total",
                 "",
                 l,
                 {},
                 sample_value(stats.sent_to_dlq_total));
    write_sample(family("rmq_consumer_damaged_records_total").samples,
                 "rmq_consumer_damaged_records_total",
                 "",
                 l,
                 {},
                 sample_value(stats.damaged_records));
    return *this;
}

RMQ_DECL PrometheusText&
PrometheusText::add(const ProducerStats& stats, std::string_view producer_group, std::string_view client_id) {
    using detail::sample_value;
    using detail::write_sample;
    auto& cost = family("rocketmq_send_cost_time").samples;
    auto& sends = family("rmq_producer_sends_total").samples;
    for (const ProducerTopicStats& t : stats.topics) {
        const std::pair<std::string_view, const Histogram*> outcomes[] = {
            {"success", &t.send_cost_time_ok}, {"failure", &t.send_cost_time_failed}};
        for (const auto& [status, h] : outcomes) {
            detail::write_histogram(cost,
                                    "rocketmq_send_cost_time",
                                    {{"producer_group", producer_group},
                                     {"client_id", client_id},
                                     {"topic", t.topic},
                                     {"invocation_status", status}},
                                    *h);
        }
        const detail::Labels l{
            {"producer_group", producer_group}, {"client_id", client_id}, {"topic", t.topic}};
        write_sample(sends,
                     "rmq_producer_sends_total",
                     "",
                     l,
                     {"invocation_status", "success"},
                     sample_value(t.send_ok_total));
        write_sample(sends,
                     "rmq_producer_sends_total",
                     "",
                     l,
                     {"invocation_status", "failure"},
                     sample_value(t.send_failed_total));
    }
    return *this;
}

RMQ_DECL std::string PrometheusText::str() const {
    std::string out;
    for (const Family& f : families_) {
        fmt::format_to(std::back_inserter(out),
                       "# HELP {} {}\n# TYPE {} {}\n{}",
                       f.name,
                       f.help,
                       f.name,
                       f.type,
                       f.samples);
    }
    return out;
}

RMQ_DECL std::string
to_prometheus(const ConsumerStats& stats, std::string_view consumer_group, std::string_view client_id) {
    return PrometheusText().add(stats, consumer_group, client_id).str();
}

RMQ_DECL std::string
to_prometheus(const ProducerStats& stats, std::string_view producer_group, std::string_view client_id) {
    return PrometheusText().add(stats, producer_group, client_id).str();
}

}  // namespace rmq
