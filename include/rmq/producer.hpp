#pragma once

/// @file producer.hpp
/// rmq::Producer<Tr>: Java's DefaultMQProducer (synchronous sends) over any rmq::Transport.

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/stats.hpp>
#include <rmq/topic.hpp>
#include <rmq/unique_id.hpp>

namespace rmq {

/// Java's MessageQueueSelector: picks the queue of a message from the topic's write queues, e.g. by an order
/// id passed as `arg` so that one order's messages share a queue.
///
/// Valid: `[](std::span<const MessageQueue> mqs, const Message&, int id) { return mqs[id % mqs.size()]; }`.
/// Invalid: a callable returning `int`.
template <class S, class Arg>
concept MessageQueueSelector =
    std::invocable<S&, std::span<const MessageQueue>, const Message&, Arg> &&
    std::convertible_to<std::invoke_result_t<S&, std::span<const MessageQueue>, const Message&, Arg>,
                        MessageQueue>;

/// Settings of rmq::Producer; each field is the snake_case of the DefaultMQProducer / ClientConfig field it
/// mirrors, with Java's default.
struct ProducerConfig {
    /// DefaultMQProducer.producerGroup; must be set (DEFAULT_PRODUCER is rejected at start, as in Java).
    std::string producer_group{default_producer_group};
    /// DefaultMQProducer.createTopicKey: the route used for a topic the name server does not know yet.
    std::string create_topic_key{auto_create_topic_key_topic};
    /// DefaultMQProducer.defaultTopicQueueNums: queues assumed for such a topic.
    std::int32_t default_topic_queue_nums = 4;
    /// DefaultMQProducer.sendMsgTimeout (ms, measured with the transport's clock).
    std::int64_t send_msg_timeout = 3000;
    /// DefaultMQProducer.retryTimesWhenSendFailed: extra attempts of send(msg) on another queue.
    std::int32_t retry_times_when_send_failed = 2;
    /// DefaultMQProducer.retryAnotherBrokerWhenNotStoreOK.
    bool retry_another_broker_when_not_store_ok = false;
    /// DefaultMQProducer.maxMessageSize (body bytes).
    std::int32_t max_message_size = 1024 * 1024 * 4;
    /// ClientConfig.pollNameServerInterval: how long a cached topic route is used (ms).
    std::int64_t poll_name_server_interval = 30000;
    /// ClientConfig.instanceName; "DEFAULT" becomes the process id, as in Java.
    std::string instance_name = "DEFAULT";
    /// ClientConfig.clientIP; empty means this host's address.
    std::string client_ip{};
};

namespace detail {

/// TopicValidator.NOT_ALLOWED_SEND_TOPIC_SET.
inline constexpr std::array<std::string_view, 6> not_allowed_send_topics{
    "SCHEDULE_TOPIC_XXXX",
    "RMQ_SYS_TRANS_HALF_TOPIC",
    "RMQ_SYS_TRANS_OP_HALF_TOPIC",
    "TRANS_CHECK_MAX_TIME_TOPIC",
    "SELF_TEST_TOPIC",
    "OFFSET_MOVED_EVENT",
};

/// MQClientException codes for which sendDefaultImpl tries the next queue (4.9.8).
inline bool retryable_send_code(int code) noexcept {
    return code == response_code::topic_not_exist || code == 14 /* SERVICE_NOT_AVAILABLE */ ||
           code == response_code::system_error || code == response_code::no_permission ||
           code == 204 /* NO_BUYER_ID */ || code == 205 /* NOT_IN_CURRENT_UNIT */;
}

}  // namespace detail

/// Java's DefaultMQProducer with synchronous sends: `send(msg)` (round robin over the write queues, with
/// retries), `send(msg, selector, arg)` and `send(msg, queue)`. Every send sets UNIQ_KEY
/// (MessageClientIDSetter) unless the message has one. Thread-safe once started.
///
/// Body compression is the transport's: RemotingTransport deflates bodies of at least
/// RemotingConfig::compress_msg_body_over_howmuch bytes at compress_level (the embedded broker stores bodies
/// as they are). Not modelled: asynchronous and one-way sends, batches, transactions, request/reply,
/// namespaces, the latency fault strategy (a retry does avoid the broker that just failed, as
/// selectOneMessageQueue(lastBrokerName) does).
template <Transport Tr>
class Producer {
public:
    /// Keeps the transport (a handle; copies of InProcessTransport share their connection).
    Producer(Tr transport, ProducerConfig config)
        : transport_(std::move(transport))
        , config_(std::move(config))
        , ids_(transport_.clock()) {}

    Producer(const Producer&) = delete;
    Producer& operator=(const Producer&) = delete;

    /// Shuts down if still running.
    ~Producer() {
        try {
            shutdown();
        } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
        }
    }

    /// Validates the configuration (rmq::InvalidArgument) and registers the producer group with a heartbeat.
    /// Throws rmq::IllegalState when started twice or after shutdown.
    void start() {
        const std::lock_guard lock(mutex_);
        if (state_ != State::Created) {
            throw IllegalState(
                fmt::format("The producer service state not OK, maybe started once, {}", state_name(state_)));
        }
        check_group(config_.producer_group);
        if (config_.producer_group == default_producer_group) {
            throw InvalidArgument(fmt::format("producerGroup can not equal {}, please specify another one.",
                                              default_producer_group));
        }
        if (config_.max_message_size <= 0 || config_.send_msg_timeout <= 0 ||
            config_.retry_times_when_send_failed < 0 || config_.default_topic_queue_nums <= 0) {
            throw InvalidArgument("ProducerConfig: sizes, timeouts and counts must be positive");
        }
        std::string ip = config_.client_ip;
        if (ip.empty()) {
            const auto b = detail::local_ip();
            ip = fmt::format("{}.{}.{}.{}", b[0], b[1], b[2], b[3]);
        }
        // Java's changeInstanceNameToPID (5.x: pid#nanoTime): two producers of one process never share an id,
        // which a broker would otherwise treat as one client.
        const std::string instance =
            config_.instance_name == "DEFAULT"
                ? fmt::format("{}#{}", detail::process_id(), detail::unique_nano_time())
                : config_.instance_name;
        client_id_ = fmt::format("{}@{}", ip, instance);
        HeartbeatData hb;
        hb.client_id = client_id_;
        hb.producer_groups.push_back(config_.producer_group);
        transport_.heartbeat(hb);
        state_ = State::Running;
    }

    /// Unregisters the producer group. A producer never started stays unusable; shutting down twice is a
    /// no-op.
    void shutdown() {
        const std::lock_guard lock(mutex_);
        if (state_ == State::Running) {
            state_ = State::ShutdownAlready;
            transport_.unregister_client(client_id_, config_.producer_group, std::string());
        } else if (state_ == State::Created) {
            state_ = State::ShutdownAlready;
        }
    }

    /// ip@instance, as Java's ClientConfig.buildMQClientId.
    [[nodiscard]] const std::string& client_id() const noexcept { return client_id_; }

    [[nodiscard]] const ProducerConfig& config() const noexcept { return config_; }

    /// Send counters and times per topic since start (rmq/metrics.hpp exports them). Thread-safe.
    [[nodiscard]] ProducerStats stats() const { return stats_.snapshot(); }

    /// Sends to the topic's next write queue (round robin), trying up to 1 + retry_times_when_send_failed
    /// queues on retryable broker errors. Throws rmq::InvalidArgument for a bad message, rmq::Timeout past
    /// send_msg_timeout, rmq::BrokerError / rmq::Error when every attempt failed.
    SendResult send(const Message& msg) {
        check_running();
        Message m = prepared(msg);
        const detail::SendRecorder recorder(stats_, m.topic(), transport_.clock());
        const std::int64_t begin = now();
        const auto queues = write_queues(m.topic());
        const int total = 1 + config_.retry_times_when_send_failed;
        std::exception_ptr last;
        std::string last_broker;
        for (int attempt = 0; attempt < total; ++attempt) {
            if (now() - begin > config_.send_msg_timeout) {
                throw Timeout(fmt::format("sendDefaultImpl call timeout: topic {}", m.topic()));
            }
            const MessageQueue& mq = select_queue(queues, last_broker);
            last_broker = mq.broker_name;
            try {
                SendResult r = transport_.send(m, mq);
                if (r.status != SendStatus::SendOk && config_.retry_another_broker_when_not_store_ok) {
                    continue;
                }
                return r;
            } catch (const BrokerError& e) {
                if (!detail::retryable_send_code(e.code())) {
                    throw;
                }
                last = std::current_exception();
                invalidate_route(m.topic());
            } catch (const InvalidArgument&) {
                throw;
            } catch (const Error&) {
                last = std::current_exception();
            }
        }
        if (last) {
            std::rethrow_exception(last);
        }
        throw Error(fmt::format("Send [{}] times, still failed, topic {}", total, m.topic()));
    }

    /// Sends to the queue the selector picks from the topic's write queues (no retry, as in Java).
    template <class Selector, class Arg>
    requires MessageQueueSelector<Selector, Arg>
    SendResult send(const Message& msg, Selector&& selector, Arg&& arg) {
        check_running();
        Message m = prepared(msg);
        const detail::SendRecorder recorder(stats_, m.topic(), transport_.clock());
        const std::int64_t begin = now();
        const auto queues = write_queues(m.topic());
        const MessageQueue mq = std::invoke(
            selector, std::span<const MessageQueue>(queues), std::as_const(m), std::forward<Arg>(arg));
        if (now() - begin > config_.send_msg_timeout) {
            throw Timeout(fmt::format("sendSelectImpl call timeout: topic {}", m.topic()));
        }
        return send_to(m, mq);
    }

    /// Sends to one queue (no retry, as in Java). Throws rmq::InvalidArgument when the queue's topic is not
    /// the message's.
    SendResult send(const Message& msg, const MessageQueue& mq) {
        check_running();
        Message m = prepared(msg);
        const detail::SendRecorder recorder(stats_, m.topic(), transport_.clock());
        return send_to(m, mq);
    }

private:
    enum class State { Created, Running, ShutdownAlready };

    struct CachedRoute {
        std::vector<MessageQueue> queues;
        std::int64_t fetched_at = 0;
    };

    static std::string_view state_name(State s) noexcept {
        switch (s) {
        case State::Created:
            return "CREATE_JUST";
        case State::Running:
            return "RUNNING";
        default:
            return "SHUTDOWN_ALREADY";
        }
    }

    void check_running() const {
        const std::lock_guard lock(mutex_);
        if (state_ != State::Running) {
            throw IllegalState(fmt::format("The producer service state not OK, {}", state_name(state_)));
        }
    }

    std::int64_t now() const { return transport_.clock()->steady_millis(); }

    /// Validators.checkMessage, then UNIQ_KEY.
    Message prepared(const Message& msg) {
        check_topic(msg.topic());
        for (const auto t : detail::not_allowed_send_topics) {
            if (msg.topic() == t) {
                throw InvalidArgument(fmt::format("Sending message to topic[{}] is forbidden.", msg.topic()));
            }
        }
        if (msg.body().empty()) {
            throw InvalidArgument("the message body length is zero");
        }
        if (msg.body().size() > static_cast<std::size_t>(config_.max_message_size)) {
            throw InvalidArgument(
                fmt::format("the message body size over max value, MAX: {}", config_.max_message_size));
        }
        Message m = msg;
        if (!m.has_property(property::uniq_client_message_id_keyidx)) {
            m.set_property(property::uniq_client_message_id_keyidx, ids_.next());
        }
        return m;
    }

    /// TopicPublishInfo.selectOneMessageQueue(lastBrokerName): the next queue in round robin, skipping the
    /// queues of the broker the previous attempt went to while another broker has one.
    const MessageQueue& select_queue(const std::vector<MessageQueue>& queues,
                                     const std::string& last_broker) {
        for (std::size_t i = 0; i < queues.size(); ++i) {
            const auto& mq = queues[next_index_.fetch_add(1, std::memory_order_relaxed) % queues.size()];
            if (last_broker.empty() || mq.broker_name != last_broker) {
                return mq;
            }
        }
        return queues[next_index_.fetch_add(1, std::memory_order_relaxed) % queues.size()];
    }

    SendResult send_to(const Message& m, const MessageQueue& mq) {
        if (mq.topic != m.topic()) {
            throw InvalidArgument(
                fmt::format("message's topic [{}] not equal mq's topic [{}]", m.topic(), mq.topic));
        }
        return transport_.send(m, mq);
    }

    /// tryToFindTopicPublishInfo: the topic's route, else the create-topic-key route renamed to the topic
    /// with at most default_topic_queue_nums queues (the broker then auto-creates the topic).
    std::vector<MessageQueue> write_queues(const std::string& topic) {
        {
            const std::lock_guard lock(mutex_);
            if (const auto it = routes_.find(topic);
                it != routes_.end() && now() - it->second.fetched_at < config_.poll_name_server_interval) {
                return it->second.queues;
            }
        }
        std::vector<MessageQueue> queues;
        try {
            queues = transport_.topic_route(topic).write_queues;
        } catch (const BrokerError& e) {
            if (e.code() != response_code::topic_not_exist) {
                throw;
            }
        }
        if (!queues.empty()) {
            const std::lock_guard lock(mutex_);
            routes_[topic] = CachedRoute{queues, now()};
            return queues;
        }
        try {
            auto fallback = transport_.topic_route(config_.create_topic_key).write_queues;
            const auto n = std::min<std::size_t>(fallback.size(),
                                                 static_cast<std::size_t>(config_.default_topic_queue_nums));
            for (std::size_t i = 0; i < n; ++i) {
                queues.push_back(MessageQueue{topic, fallback[i].broker_name, fallback[i].queue_id});
            }
        } catch (const BrokerError&) {  // NOLINT(bugprone-empty-catch): reported below
        }
        if (queues.empty()) {
            throw BrokerError(response_code::topic_not_exist,
                              fmt::format("No route info of this topic: {}", topic));
        }
        return queues;
    }

    void invalidate_route(const std::string& topic) {
        const std::lock_guard lock(mutex_);
        routes_.erase(topic);
    }

    Tr transport_;
    ProducerConfig config_;
    UniqueIdGenerator ids_;
    mutable std::mutex mutex_;
    State state_ = State::Created;
    std::string client_id_;
    std::map<std::string, CachedRoute> routes_;
    std::atomic<std::size_t> next_index_{0};
    detail::ProducerStatsCollector stats_;
};

}  // namespace rmq
