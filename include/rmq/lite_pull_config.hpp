#pragma once

/// @file lite_pull_config.hpp
/// rmq::LitePullConfig: every setting of a rmq::LitePullConsumer, named after Java's DefaultLitePullConsumer
/// (and ClientConfig) fields with their defaults. The consumer runs on the push consumer's core, so the
/// config turns into a rmq::ConsumerConfig (to_consumer_config()), whose checks it passes through.

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include <rmq/consumer_config.hpp>
#include <rmq/error.hpp>

namespace rmq {

/// An aggregate: name what differs from Java's defaults, e.g.
/// `rmq::LitePullConfig{.consumer_group = "g", .auto_commit = false}`. docs/lite_pull.md has the table.
struct LitePullConfig {
    // ---- DefaultLitePullConsumer ----
    /// consumerGroup. Required (Validators.checkGroup, not DEFAULT_CONSUMER).
    std::string consumer_group{};
    /// messageModel: Clustering (queues shared by the group, offsets on the broker) or Broadcasting.
    MessageModel message_model = MessageModel::Clustering;
    /// consumeFromWhere: where a queue with no committed offset starts.
    ConsumeFromWhere consume_from_where = ConsumeFromWhere::LastOffset;
    /// consumeTimestamp, local `yyyyMMddHHmmss`, for ConsumeFromWhere::Timestamp (empty: now − 30 min).
    std::string consume_timestamp{};
    /// autoCommit: poll() commits what the previous polls returned; committed offsets reach the broker every
    /// auto_commit_interval_millis, when a queue leaves this member and at shutdown.
    bool auto_commit = true;
    /// autoCommitIntervalMillis, ≥ 1000 as in Java's checkConfig.
    std::int64_t auto_commit_interval_millis = 5000;
    /// pullBatchSize, [1, 1024]: messages asked per pull, and the most one poll() returns.
    int pull_batch_size = 10;
    /// pullThresholdForAll, [1, 6553500]: pulls of every queue pause while the batches waiting for poll(),
    /// counted as batches × pull_batch_size (Java's rule), exceed it.
    int pull_threshold_for_all = 10000;
    /// consumeMaxSpan, [1, 65535]: a queue is not pulled while its unpolled offsets span more.
    int consume_max_span = 2000;
    /// pullThresholdForQueue, [1, 65535]: a queue with more unpolled messages is not pulled.
    int pull_threshold_for_queue = 1000;
    /// pullThresholdSizeForQueue, [1, 1024] MiB of unpolled bodies per queue before its pulls pause.
    int pull_threshold_size_for_queue = 100;
    /// pollTimeoutMillis: what poll() without an argument waits.
    std::int64_t poll_timeout_millis = 5000;
    /// brokerSuspendMaxTimeMillis: how long the broker may hold a pull (long polling).
    std::int64_t broker_suspend_max_time_millis = 20000;
    /// consumerTimeoutMillisWhenSuspend: the pull's RPC timeout; must exceed the long-poll time.
    std::int64_t consumer_timeout_millis_when_suspend = 30000;
    /// pullTimeDelayMillsWhenException ms: pull retry delay after an error.
    std::int64_t pull_time_delay_mills_when_exception = 1000;
    /// topicMetadataCheckIntervalMillis: how often the queues of topics with a
    /// register_topic_message_queue_change_listener() are compared with the last seen (the first time after
    /// 10 s, or after one interval when shorter).
    std::int64_t topic_metadata_check_interval_millis = 30000;

    // ---- ClientConfig ----
    std::string namesrv_addr{};
    std::string client_ip{};
    std::string instance_name{default_instance_name};
    std::string unit_name{};
    /// Java's `namespace`.
    std::string namespace_{};
    std::int64_t heartbeat_broker_interval = 30000;
    /// persistConsumerOffsetInterval ms: how often committed offsets reach the broker without auto-commit.
    std::int64_t persist_consumer_offset_interval = 5000;
    std::int64_t mq_client_api_timeout = 3000;

    // ---- rmq ----
    /// rmq: rebalance period ms (as ConsumerConfig::rebalance_interval).
    std::int64_t rebalance_interval = 20000;
    /// rmq: how long a paused queue waits before its pull loop looks again (Java
    /// PULL_TIME_DELAY_MILLS_WHEN_PAUSE).
    std::int64_t pull_time_delay_mills_when_pause = 1000;
    /// rmq: pull delay when a queue or the whole cache is over a threshold (Java
    /// PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL).
    std::int64_t pull_time_delay_mills_when_flow_control = 50;

    /// The push consumer configuration the core runs with (one consume thread: nothing runs listeners).
    [[nodiscard]] ConsumerConfig to_consumer_config() const {
        ConsumerConfig c;
        c.consumer_group = consumer_group;
        c.message_model = message_model;
        c.consume_from_where = consume_from_where;
        c.consume_timestamp = consume_timestamp;
        c.consume_thread_min = 1;
        c.consume_thread_max = 1;
        c.consume_concurrently_max_span = consume_max_span;
        c.pull_threshold_for_queue = pull_threshold_for_queue;
        c.pull_threshold_size_for_queue = pull_threshold_size_for_queue;
        c.pull_batch_size = pull_batch_size;
        c.broker_suspend_max_time_millis = broker_suspend_max_time_millis;
        c.consumer_timeout_millis_when_suspend = consumer_timeout_millis_when_suspend;
        c.pull_time_delay_mills_when_exception = pull_time_delay_mills_when_exception;
        c.pull_time_delay_mills_when_flow_control = pull_time_delay_mills_when_flow_control;
        c.namesrv_addr = namesrv_addr;
        c.client_ip = client_ip;
        c.instance_name = instance_name;
        c.unit_name = unit_name;
        c.namespace_ = namespace_;
        c.heartbeat_broker_interval = heartbeat_broker_interval;
        c.persist_consumer_offset_interval =
            auto_commit ? auto_commit_interval_millis : persist_consumer_offset_interval;
        c.mq_client_api_timeout = mq_client_api_timeout;
        c.rebalance_interval = rebalance_interval;
        c.await_termination_millis_when_shutdown = 0;  // no listener to wait for
        return c;
    }

    /// Java's checkConfig for the lite pull fields; the rest is ConsumerConfig::validate(). Throws
    /// rmq::InvalidArgument naming the field.
    void validate() const {
        if (auto_commit && auto_commit_interval_millis < 1000) {
            throw InvalidArgument(
                fmt::format("auto_commit_interval_millis (autoCommitIntervalMillis) must be >= 1000, got {}",
                            auto_commit_interval_millis));
        }
        detail::check_range(
            "pull_threshold_for_all", "pullThresholdForAll", pull_threshold_for_all, 1, 6553500);
        detail::check_range("pull_batch_size", "pullBatchSize", pull_batch_size, 1, 1024);
        detail::check_positive("poll_timeout_millis", poll_timeout_millis);
        detail::check_positive("pull_time_delay_mills_when_pause", pull_time_delay_mills_when_pause);
        detail::check_positive("topic_metadata_check_interval_millis", topic_metadata_check_interval_millis);
        to_consumer_config().validate();
    }
};

}  // namespace rmq
