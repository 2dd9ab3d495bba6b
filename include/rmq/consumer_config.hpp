#pragma once

/// @file consumer_config.hpp
/// rmq::ConsumerConfig: every DefaultMQPushConsumer / ClientConfig setting (docs/configuration.md) under the
/// snake_case of its Java name with Java's default, Java's checkConfig, the client id rule and rmq's own
/// intervals.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/assignment.hpp>
#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/namespace.hpp>
#include <rmq/protocol.hpp>
#include <rmq/topic.hpp>

namespace rmq {

namespace detail {

/// Java's RemotingUtil.getLocalAddress for IPv4: the first non-loopback address that does not start with
/// "127.0" or "192.168", else the last non-loopback one, else "127.0.0.1".
std::string local_ipv4_address();

/// The local address, computed once per process (interfaces rarely change and getifaddrs is not free).
const std::string& cached_local_ipv4_address();

/// A process id for instance names.
long current_pid() noexcept;

/// Java's System.nanoTime() for instance names, made strictly increasing across the process so that two
/// consumers created in the same nanosecond (or on a coarse clock) never share a client id.
std::int64_t unique_nano_time() noexcept;

/// Parses `yyyyMMddHHmmss` (exactly 14 ASCII digits) as local time the way Java's lenient SimpleDateFormat
/// does (out-of-range fields roll over); nullopt when the text does not have that shape.
std::optional<std::int64_t> parse_yyyymmddhhmmss(std::string_view text);

/// Formats wall milliseconds as local `yyyyMMddHHmmss` (Java's UtilAll.timeMillisToHumanString3).
std::string format_yyyymmddhhmmss(std::int64_t wall_millis);

void check_range(
    std::string_view field, std::string_view java_name, std::int64_t value, std::int64_t lo, std::int64_t hi);

void check_positive(std::string_view field, std::int64_t value);

}  // namespace detail

/// Java's MixAll.DEFAULT instance name that clustering consumers replace with `<pid>#<nanotime>`.
inline constexpr std::string_view default_instance_name = "DEFAULT";

/// Every setting of a push consumer. An aggregate: name what differs from Java's defaults, in declaration
/// order, e.g. `rmq::ConsumerConfig{.consumer_group = "g", .consume_from_where =
/// rmq::ConsumeFromWhere::FirstOffset}`. Fields mirror DefaultMQPushConsumer / ClientConfig (snake_case of
/// the Java name, Java's default and unit) unless their comment says "rmq:". Java's
/// allocateMessageQueueStrategy, offsetStore and messageListener are the Consumer's policies and listener,
/// not fields. See docs/configuration.md for the full table.
struct ConsumerConfig {
    // ---- DefaultMQPushConsumer ----
    /// consumerGroup. Required; validate() applies Validators.checkGroup and rejects DEFAULT_CONSUMER.
    std::string consumer_group{};
    /// messageModel.
    MessageModel message_model = MessageModel::Clustering;
    /// consumeFromWhere: where a queue with no stored offset starts.
    ConsumeFromWhere consume_from_where = ConsumeFromWhere::LastOffset;
    /// consumeTimestamp, local time `yyyyMMddHHmmss`, used by ConsumeFromWhere::Timestamp. Empty means "now −
    /// 30 min" evaluated at start (Java evaluates it in the constructor); see consume_timestamp_millis().
    std::string consume_timestamp{};
    /// consumeThreadMin, [1, 1000]: core size of the consume pool.
    int consume_thread_min = 20;
    /// consumeThreadMax, [1, 1000], ≥ consume_thread_min. Like Java's unbounded queue, the pool does not grow
    /// beyond consume_thread_min.
    int consume_thread_max = 20;
    /// adjustThreadPoolNumsThreshold (unused: thread adjustment is a no-op in Java too).
    std::int64_t adjust_thread_pool_nums_threshold = 100000;
    /// consumeConcurrentlyMaxSpan, [1, 65535]: concurrent pulls pause while a queue's offset span exceeds it.
    int consume_concurrently_max_span = 2000;
    /// pullThresholdForQueue, [1, 65535]: cached messages per queue before pulls pause.
    int pull_threshold_for_queue = 1000;
    /// pullThresholdSizeForQueue, [1, 1024] MiB of cached bodies per queue before pulls pause.
    int pull_threshold_size_for_queue = 100;
    /// pullThresholdForTopic, -1 (unlimited) or [1, 6553500]; divided among the topic's queues at rebalance.
    int pull_threshold_for_topic = -1;
    /// pullThresholdSizeForTopic, -1 (unlimited) or [1, 102400] MiB; divided among the topic's queues.
    int pull_threshold_size_for_topic = -1;
    /// pullInterval ms, [0, 65535]: pause between two pulls of a queue.
    std::int64_t pull_interval = 0;
    /// consumeMessageBatchMaxSize, [1, 1024]: messages handed to one listener call.
    int consume_message_batch_max_size = 1;
    /// pullBatchSize, [1, 1024]: messages asked per pull.
    int pull_batch_size = 32;
    /// postSubscriptionWhenPull: send the expression with every pull.
    bool post_subscription_when_pull = false;
    /// unitMode (ClientConfig and DefaultMQPushConsumer share it).
    bool unit_mode = false;
    /// maxReconsumeTimes: -1 means 16 (concurrent) or INT32_MAX (orderly); see max_reconsume_times_for().
    int max_reconsume_times = -1;
    /// suspendCurrentQueueTimeMillis: orderly pause after SuspendCurrentQueueAMoment (not validated: the
    /// orderly service clamps it to [10, 30000] ms like Java).
    std::int64_t suspend_current_queue_time_millis = 1000;
    /// consumeTimeout, minutes: a concurrent message consuming longer is sent back by the expiry sweep.
    std::int64_t consume_timeout = 15;
    /// awaitTerminationMillisWhenShutdown. rmq deviation: Java's default 0 interrupts running listeners at
    /// once; rmq drains for up to 30000 ms by default (0 restores Java's behaviour). shutdown() returns
    /// within it (plus a small margin) whatever listeners do; the destructor waits for those still running.
    std::int64_t await_termination_millis_when_shutdown = 30000;
    /// rmq only: how long the consumer's destructor waits, after shutdown, for listeners still running. -1
    /// (default): without limit, so nothing a listener uses is freed under it. N >= 0: the destructor returns
    /// within N ms (plus the shutdown wait if the consumer was still running); a listener still running then
    /// finishes on its own, and the consumer's internals are freed on a background thread when the last one
    /// returns (never, if the process exits first). 0 leaves at once, like Java's awaitTermination default.
    std::int64_t await_termination_millis_when_destroyed = -1;

    /// popThresholdForQueue: POP mode, messages popped from one POP queue and not yet acked (or retried)
    /// beyond which the queue pops no more until some are done; [1, 65535].
    int pop_threshold_for_queue = 96;
    /// popInvisibleTime ms: POP mode, how long popped messages stay invisible to the group; [5000, 300000]
    /// (Java silently uses 60000 outside that range; rmq refuses it).
    std::int64_t pop_invisible_time = 60000;
    /// popBatchNums: POP mode, messages asked per POP_MESSAGE, [1, 32].
    int pop_batch_nums = 32;
    /// rmq extension (docs/pop.md): MessageRequestMode::Pop makes the consumer pop every subscribed topic
    /// (and %RETRY%group) from every broker of its route with queue id -1, without client rebalance and
    /// without offsets, as a Java consumer does once its broker assigns it POP mode. Needs rmq::Concurrently
    /// and a transport with rmq::HasPop; RocketMQ 5.x brokers.
    MessageRequestMode message_request_mode = MessageRequestMode::Pull;

    // ---- ClientConfig ----
    /// namesrvAddr, `host:port;host:port`, for transports that resolve routes through name servers.
    std::string namesrv_addr{};
    /// clientIP. Empty: detected at start (detail::local_ipv4_address, Java's rule).
    std::string client_ip{};
    /// instanceName; "DEFAULT" is replaced by `<pid>#<nanotime>` in clustering (changeInstanceNameToPID).
    std::string instance_name{default_instance_name};
    /// unitName, appended to the client id when not empty.
    std::string unit_name{};
    /// clientCallbackExecutorThreads; 0 means the number of CPUs (Java's default).
    int client_callback_executor_threads = 0;
    /// Java's `namespace` (a C++ keyword, hence the underscore): resources become `<ns>%<name>`.
    std::string namespace_{};
    /// pollNameServerInterval ms: route refresh period.
    std::int64_t poll_name_server_interval = 30000;
    /// heartbeatBrokerInterval ms.
    std::int64_t heartbeat_broker_interval = 30000;
    /// persistConsumerOffsetInterval ms: offset store persist period.
    std::int64_t persist_consumer_offset_interval = 5000;
    /// pullTimeDelayMillsWhenException ms: pull retry delay after an error.
    std::int64_t pull_time_delay_mills_when_exception = 1000;
    /// vipChannelEnabled (kept for completeness; rmq has no VIP channel).
    bool vip_channel_enabled = false;
    /// mqClientApiTimeout ms: heartbeat, consumer-id list and other small requests.
    std::int64_t mq_client_api_timeout = 3000;
    /// enableStreamRequestType: appends "@STREAM" to the client id.
    bool enable_stream_request_type = false;
    /// enableTrace (DefaultMQPushConsumer's enableMsgTrace): each listener call is traced to the trace topic
    /// (SubBefore and SubAfter records), for RocketMQ Dashboard. docs/trace.md.
    bool enable_msg_trace = false;
    /// traceTopic (DefaultMQPushConsumer's customizedTraceTopic): empty means RMQ_SYS_TRACE_TOPIC.
    std::string customized_trace_topic{};
    /// traceMsgBatchNum: trace records sent together (at most 20); fewer are sent after 5 s.
    int trace_msg_batch_num = 10;

    // ---- rmq: Java constants made tunable (defaults are Java's constants) ----
    /// rmq: rebalance period ms (Java rocketmq.client.rebalance.waitInterval).
    std::int64_t rebalance_interval = 20000;
    /// rmq: orderly lockAll period ms (Java REBALANCE_LOCK_INTERVAL /
    /// rocketmq.client.rebalance.lockInterval).
    std::int64_t lock_renewal_interval = 20000;
    /// rmq: pull delay when the process queue is over a threshold (Java
    /// PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL).
    std::int64_t pull_time_delay_mills_when_flow_control = 50;
    /// rmq: pull delay when the broker answers FLOW_CONTROL (Java
    /// PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL).
    std::int64_t pull_time_delay_mills_when_broker_flow_control = 20;
    /// rmq: pull delay while the consumer is suspended (Java PULL_TIME_DELAY_MILLS_WHEN_SUSPEND).
    std::int64_t pull_time_delay_mills_when_suspend = 1000;
    /// rmq: long-poll time the broker may hold a pull (Java BROKER_SUSPEND_MAX_TIME_MILLIS).
    std::int64_t broker_suspend_max_time_millis = 15000;
    /// rmq: pull RPC timeout ms (Java CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND); must exceed the long-poll time.
    std::int64_t consumer_timeout_millis_when_suspend = 30000;
    /// rmq: capacity of the consume pool's task queue (Java's queue is unbounded). When full, the consumer
    /// resubmits later like Java's RejectedExecutionException path; flow control keeps it far from full.
    std::int64_t consume_queue_capacity = 65536;
    /// rmq: period ms of the per-topic "[ConsumeStats] [topic@group] Stats In One Minute, ..." line logged at
    /// Info (the Java client's ConsumerStatsManager logs its figures every minute); 0, the default, logs
    /// none. docs/metrics.md.
    std::int64_t stats_log_interval = 0;

    /// Java's checkConfig (DefaultMQPushConsumerImpl) with the same ranges, plus checks of rmq's intervals.
    /// Throws rmq::InvalidArgument whose message names the field (rmq and Java name) and the allowed range.
    void validate() const;

    /// The effective retry limit: max_reconsume_times, where -1 means 16 (concurrent) or INT32_MAX (orderly).
    [[nodiscard]] int max_reconsume_times_for(bool orderly) const noexcept {
        if (max_reconsume_times == -1) {
            return orderly ? std::numeric_limits<std::int32_t>::max() : 16;
        }
        return max_reconsume_times;
    }

    /// The instance name used in the client id: clustering consumers with "DEFAULT" get a fresh
    /// `<pid>#<nanotime>` on each call (Java's changeInstanceNameToPID), unique within the process.
    [[nodiscard]] std::string effective_instance_name() const;

    /// Java's buildMQClientId: `ip@instance[@unit][@STREAM]`. Clustering consumers with the default instance
    /// name get a new unique id on every call, so call it once at start and keep the result. Broadcasting
    /// consumers keep `ip@DEFAULT`, which keeps their local offset file path stable across restarts.
    [[nodiscard]] std::string build_client_id() const;

    /// The consume_timestamp as wall milliseconds: "now − 30 min" when empty, else the local-time parse.
    /// Throws rmq::InvalidArgument when the text is malformed (validate() reports it earlier).
    [[nodiscard]] std::int64_t consume_timestamp_millis(std::int64_t now_wall_millis) const;

    /// rmq::wrap_namespace(resource, namespace_) (NamespaceUtil.wrapNamespace): `<ns>%<resource>`,
    /// `%RETRY%<ns>%<group>`, `%DLQ%<ns>%<group>`; unchanged when no namespace is set, the resource is a
    /// system topic (rmq::is_system_topic) or group (rmq::is_sys_consumer_group, `CID_RMQ_SYS_…`), or already
    /// wrapped.
    [[nodiscard]] std::string with_namespace(std::string_view resource) const;

private:
    // The parts of validate(), called in this order (Java's checkConfig order of messages).
    void validate_identity() const;
    void validate_flow_control() const;
    void validate_intervals() const;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/consumer_config.ipp>
#endif
