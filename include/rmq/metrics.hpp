#pragma once

/// @file metrics.hpp
/// Prometheus text exposition (format 0.0.4) of rmq::ConsumerStats and rmq::ProducerStats: counters
/// `*_total`, gauges, and histograms with `_bucket{le=...}`, `_sum`, `_count`. Names follow the RocketMQ 5.x
/// clients' metrics where one exists (rocketmq_process_time, rocketmq_consumer_cached_messages,
/// rocketmq_consumer_cached_bytes, rocketmq_send_cost_time); rmq's other figures are `rmq_*`. docs/metrics.md
/// lists every family, its labels and the Java names.

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/stats.hpp>

namespace rmq {

/// The Content-Type of a /metrics response in this format.
inline constexpr std::string_view prometheus_content_type = "text/plain; version=0.0.4; charset=utf-8";

/// One exposition built from any number of consumers and producers: samples of the same family from several
/// clients share one `# HELP` / `# TYPE` block, as the format requires. Families appear in the order first
/// added; each client's samples in the order of its snapshot. Not thread-safe (build one per scrape).
class PrometheusText {
public:
    /// Adds a consumer's figures, every sample labelled `consumer_group` and `client_id`.
    PrometheusText&
    add(const ConsumerStats& stats, std::string_view consumer_group, std::string_view client_id);

    /// Adds a producer's figures, every sample labelled `producer_group` and `client_id`.
    PrometheusText&
    add(const ProducerStats& stats, std::string_view producer_group, std::string_view client_id);

    /// The exposition text (ends with a newline when not empty).
    [[nodiscard]] std::string str() const;

private:
    struct Family {
        std::string_view name;
        std::string_view type;
        std::string_view help;
        std::string samples;
    };

    Family& family(std::string_view name);
    void add_topics(const ConsumerStats& stats, std::string_view group, std::string_view client);
    void add_queues(const ConsumerStats& stats, std::string_view group, std::string_view client);

    std::deque<Family> families_;  // a deque: references to a family stay valid as others are added
};

/// The exposition of one consumer (PrometheusText().add(stats, consumer_group, client_id).str()).
[[nodiscard]] RMQ_DECL std::string
to_prometheus(const ConsumerStats& stats, std::string_view consumer_group, std::string_view client_id);

/// The exposition of one producer.
[[nodiscard]] RMQ_DECL std::string
to_prometheus(const ProducerStats& stats, std::string_view producer_group, std::string_view client_id);

/// A label value as the format writes it between quotes: backslash, double quote and newline escaped.
[[nodiscard]] RMQ_DECL std::string prometheus_escape_label_value(std::string_view value);

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/metrics.ipp>
#endif
