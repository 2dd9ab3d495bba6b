#pragma once

/// @file producer.hpp
/// rmq::Producer<Tr>: Java's DefaultMQProducer (synchronous, asynchronous, oneway and batch sends) over any
/// rmq::Transport. Its settings: rmq/producer_config.hpp; the asynchronous sends' plumbing: detail/producer/.

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/error.hpp>
#include <rmq/log.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/producer_config.hpp>
#include <rmq/protocol.hpp>
#include <rmq/stats.hpp>
#include <rmq/topic.hpp>
#include <rmq/trace.hpp>
#include <rmq/unique_id.hpp>

#include <rmq/detail/producer/async_sender.hpp>
#include <rmq/detail/producer/batch.hpp>
#include <rmq/detail/producer/handoff.hpp>
#include <rmq/detail/producer/send_support.hpp>
#include <rmq/detail/trace/tracer.hpp>
#include <rmq/detail/util/caller_futures.hpp>
#include <rmq/detail/wire/batch_size.hpp>

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

/// Java's SendCallback.onSuccess: told the result of an asynchronous send, on a thread of the producer.
template <class F>
concept SendSuccessCallback = std::invocable<F&, SendResult> && std::move_constructible<F>;

/// Java's SendCallback.onException: told why an asynchronous send failed (the exception of the last
/// attempt), on a thread of the producer.
template <class F>
concept SendExceptionCallback = std::invocable<F&, std::exception_ptr> && std::move_constructible<F>;

/// Java's DefaultMQProducer: synchronous sends (`send(msg)`: round robin over the write queues, with
/// retries; `send(msg, selector, arg)`; `send(msg, queue)`), asynchronous ones (`send_async`, with callbacks
/// or a std::future), oneway ones (`send_oneway`) and batches (`send(std::span<const Message>)`, for
/// transports with HasSendBatch). Every message gets a UNIQ_KEY (MessageClientIDSetter) unless it has one;
/// delay levels and 5.x timers are properties of the message (Message::set_delay_time_level,
/// set_deliver_time_ms, set_delay_time_sec, set_delay_time_ms). Thread-safe once started. docs/producer.md.
///
/// Asynchronous sends go over the transport's own asynchronous send when it has one (HasAsyncSend, and
/// HasAsyncSendBatch for batches): no thread waits for a broker. Else they, and oneway sends whose route is
/// not cached, run on the producer's own threads (async_sender_threads). Callbacks always run on a producer
/// thread, never the caller's; at most back_pressure_for_async_send_num sends are in flight. A callback may
/// send again, but must not destroy the producer nor wait for a send's future.
///
/// Body compression is the transport's: RemotingTransport deflates bodies of at least
/// RemotingConfig::compress_msg_body_over_howmuch bytes at compress_level (batches are never compressed, as
/// in Java; the embedded broker stores bodies as they are). Transactions: rmq::TransactionProducer
/// (rmq/transaction_producer.hpp). Not modelled: request/reply,
/// namespaces, the latency fault strategy (a retry does avoid the broker that just failed, as
/// selectOneMessageQueue(lastBrokerName) does).
///
/// With ProducerConfig::enable_msg_trace every send that gets an answer is traced (a Pub record) to the
/// trace topic through a second producer over a copy of the transport (docs/trace.md).
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
            config_.retry_times_when_send_failed < 0 || config_.retry_times_when_send_async_failed < 0 ||
            config_.back_pressure_for_async_send_num <= 0 || config_.async_sender_threads < 0 ||
            config_.default_topic_queue_nums <= 0 || config_.trace_msg_batch_num <= 0) {
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
        sender_ = std::make_unique<detail::AsyncSender>(
            detail::async_thread_count(config_.async_sender_threads),
            static_cast<std::size_t>(config_.back_pressure_for_async_send_num));
        if constexpr (HasAsyncSend<Tr>) {
            answers_ = std::make_unique<detail::BatchedHandoff<AsyncSend>>(
                [sender = sender_.get()](std::function<void()> task) { sender->post(std::move(task)); },
                [this](AsyncSend* s) { take_async_answer(s); });
        }
        start_tracer();
        state_ = State::Running;
    }

    /// Finishes the asynchronous and oneway sends already accepted (their callbacks run), then unregisters
    /// the producer group. A producer never started stays unusable; shutting down twice is a no-op.
    void shutdown() {
        {
            const std::lock_guard lock(mutex_);
            if (state_ == State::Created) {
                state_ = State::ShutdownAlready;
            }
            if (state_ != State::Running) {
                return;
            }
            state_ = State::ShutdownAlready;
        }
        sender_->wait_idle();  // sends on the wire complete through the pool: it runs until they did
        sender_->stop();
        if (tracer_) {
            tracer_->shutdown();  // after the sends: their records are sent too
        }
        transport_.unregister_client(client_id_, config_.producer_group, std::string());
    }

    /// ip@instance, as Java's ClientConfig.buildMQClientId.
    [[nodiscard]] const std::string& client_id() const noexcept { return client_id_; }

    [[nodiscard]] const ProducerConfig& config() const noexcept { return config_; }

    /// Send counters and times per topic since start (rmq/metrics.hpp exports them). Thread-safe.
    [[nodiscard]] ProducerStats stats() const { return stats_.snapshot(); }

    /// What the trace dispatcher did (all zero without enable_msg_trace). Thread-safe once started.
    [[nodiscard]] TraceStats trace_stats() const noexcept {
        return tracer_ ? tracer_->dispatcher().stats() : TraceStats{};
    }

    /// Sends to the topic's next write queue (round robin), trying up to 1 + retry_times_when_send_failed
    /// queues on retryable broker errors. Throws rmq::InvalidArgument for a bad message, rmq::Timeout past
    /// send_msg_timeout, rmq::TimerRejected / rmq::UnsupportedByBroker for a timer the broker cannot take,
    /// rmq::BrokerError / rmq::Error when every attempt failed.
    SendResult send(const Message& msg) {
        check_running();
        const Message m = prepared(msg);
        return send_default(m, now(), 1 + config_.retry_times_when_send_failed);
    }

    /// Asynchronous send(msg): validates `msg` here (rmq::InvalidArgument), then sends with up to 1 +
    /// retry_times_when_send_async_failed attempts (Java's onExceptionImpl: each retry on another queue,
    /// avoiding the broker that failed) and calls `on_success` or `on_exception` on a producer thread. Over a
    /// transport with HasAsyncSend no thread waits for the broker; else a producer thread sends
    /// synchronously. Waits up to send_msg_timeout for an in-flight slot (rmq::TooManyRequests).
    /// impl/producer_send_async_default.hpp.
    template <SendSuccessCallback OnSuccess, SendExceptionCallback OnException>
    void send_async(const Message& msg, OnSuccess on_success, OnException on_exception);

    /// send_async(msg) with a future for the result (it holds the exception of a failed send).
    std::future<SendResult> send_async(const Message& msg);

    /// Asynchronous send(msg, queue): one attempt, as in Java, over the transport's asynchronous send when
    /// it has one (HasAsyncSend: no thread waits for the broker). A queue of another topic fails the send
    /// (its callback or future), as in Java. impl/producer_send_async_queue.hpp.
    template <SendSuccessCallback OnSuccess, SendExceptionCallback OnException>
    void
    send_async(const Message& msg, const MessageQueue& mq, OnSuccess on_success, OnException on_exception);

    /// send_async(msg, queue) with a future.
    std::future<SendResult> send_async(const Message& msg, const MessageQueue& mq);

    /// Java's sendOneway(msg): one attempt on the next write queue, whose answer nobody waits for. With the
    /// topic's route cached and a transport with rmq::HasSendOneway it is written from the caller's thread
    /// (no timer message); else it runs on a producer thread like send_async (the in-flight bound applies).
    /// What fails is logged. impl/producer_send_oneway.hpp.
    void send_oneway(const Message& msg);

    /// Java's sendOneway(msg, queue).
    void send_oneway(const Message& msg, const MessageQueue& mq);

    /// Java's send(Collection<Message>): the messages, one topic, stored together in one write queue
    /// (SEND_BATCH_MESSAGE), with retries as send(msg). The result's msg_id and offset_msg_id list the ids
    /// comma-separated. Throws rmq::InvalidBatch for a batch Java refuses (mixed topics, a delay level or
    /// timer, a retry topic, empty), rmq::MessageTooLarge when the encoded batch exceeds max_message_size.
    SendResult send(std::span<const Message> msgs)
    requires HasSendBatch<Tr>
    {
        check_running();
        const auto batch = prepared_batch(msgs);
        const detail::SendRecorder recorder(stats_, batch.front().topic(), transport_.clock());
        return with_retries(batch.front().topic(),
                            now(),
                            1 + config_.retry_times_when_send_failed,
                            [&](const MessageQueue& mq) { return send_batch_traced(batch, mq); });
    }

    /// The batch to one queue (no retry).
    SendResult send(std::span<const Message> msgs, const MessageQueue& mq)
    requires HasSendBatch<Tr>
    {
        check_running();
        const auto batch = prepared_batch(msgs);
        check_queue_topic(batch.front(), mq);
        const detail::SendRecorder recorder(stats_, batch.front().topic(), transport_.clock());
        return send_batch_traced(batch, mq);
    }

    /// Asynchronous send(batch), with a future; retries as send_async(msg). Over a transport with
    /// HasAsyncSend and HasAsyncSendBatch no thread waits for the broker; else a producer thread sends
    /// synchronously. impl/producer_send_async_batch.hpp.
    std::future<SendResult> send_async(std::span<const Message> msgs)
    requires HasSendBatch<Tr>;

    /// Sends to the queue the selector picks from the topic's write queues (no retry, as in Java).
    template <class Selector, class Arg>
    requires MessageQueueSelector<Selector, Arg>
    SendResult send(const Message& msg, Selector&& selector, Arg&& arg) {
        check_running();
        const Message m = prepared(msg);
        return send_selected(m, selector, std::forward<Arg>(arg));
    }

    /// Asynchronous send(msg, selector, arg), with a future: the selector runs on a producer thread, with a
    /// copy of `arg`, as Java runs it on its async executor (it is user code that may block or throw: what it
    /// throws goes to the future, and the caller never waits for it); then one attempt to its queue (no
    /// retry, as in Java), over the transport's asynchronous send when it has one (HasAsyncSend).
    /// impl/producer_send_async_select.hpp.
    template <class Selector, class Arg>
    requires MessageQueueSelector<std::decay_t<Selector>, std::decay_t<Arg>&>
    std::future<SendResult> send_async(const Message& msg, Selector&& selector, Arg&& arg);

    /// Java's sendOneway(msg, selector, arg): the selector runs with a copy of `arg`, on the caller's thread
    /// when send_oneway(msg) would be written from there, else on a producer thread.
    template <class Selector, class Arg>
    requires MessageQueueSelector<std::decay_t<Selector>, std::decay_t<Arg>&>
    void send_oneway(const Message& msg, Selector&& selector, Arg&& arg);

    /// Sends to one queue (no retry, as in Java). Throws rmq::InvalidArgument when the queue's topic is not
    /// the message's.
    SendResult send(const Message& msg, const MessageQueue& mq) {
        check_running();
        return send_recorded(prepared(msg), mq);
    }

    /// rmq internal (rmq::TransactionProducer's EndTransaction records): the trace dispatcher, or null.
    [[nodiscard]] detail::trace::Tracer* tracer() noexcept { return tracer_.get(); }

    /// Asynchronous and oneway sends accepted and not finished.
    [[nodiscard]] std::size_t async_in_flight() const { return sender_ ? sender_->in_flight() : 0; }

private:
    enum class State { Created, Running, ShutdownAlready };

    /// A topic's write queues, shared by the sends that read them (never copied per send).
    using QueueList = std::shared_ptr<const std::vector<MessageQueue>>;

    struct CachedRoute {
        QueueList queues;
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

    using Done = detail::SendDone;

    /// send_async(msg) and send_async(msg, queue) with their completion.
    void send_async_default(const Message& msg, Done done);
    void send_async_to(const Message& msg, const MessageQueue& mq, Done done);

    /// Takes an in-flight slot and runs `work` on a producer thread, then `done` with its outcome (after the
    /// slot is given back, so `done` may send again): the asynchronous sends of a transport without its own.
    template <class Work>
    void submit(Work work, Done done);

    /// sendDefaultImpl: round robin with `total` attempts, counted in the statistics.
    SendResult send_default(const Message& m, std::int64_t begin, int total) {
        const detail::SendRecorder recorder(stats_, m.topic(), transport_.clock());
        return with_retries(
            m.topic(), begin, total, [&](const MessageQueue& mq) { return send_traced(m, mq); });
    }

    /// sendSelectImpl: the selector's queue from the write queues, within send_msg_timeout.
    template <class Selector, class Arg>
    SendResult send_selected(const Message& m, Selector& selector, Arg&& arg) {
        const detail::SendRecorder recorder(stats_, m.topic(), transport_.clock());
        const std::int64_t begin = now();
        const auto queues = write_queues(m.topic());
        const MessageQueue mq =
            std::invoke(selector, std::span<const MessageQueue>(*queues), m, std::forward<Arg>(arg));
        if (now() - begin > config_.send_msg_timeout) {
            throw Timeout(fmt::format("sendSelectImpl call timeout: topic {}", m.topic()));
        }
        return send_to(m, mq);
    }

    /// send_to() counted in the statistics.
    SendResult send_recorded(const Message& m, const MessageQueue& mq) {
        const detail::SendRecorder recorder(stats_, m.topic(), transport_.clock());
        return send_to(m, mq);
    }

    /// Up to `total` attempts of `attempt(queue)`, each on the next write queue avoiding the broker of the
    /// previous attempt, while the errors are retryable and send_msg_timeout (from `begin`) has not passed
    /// (impl/producer_retries.hpp).
    template <class Attempt>
    SendResult with_retries(const std::string& topic, std::int64_t begin, int total, Attempt attempt);

    /// Whether sendDefaultImpl tries the next queue after `error` (a retryable broker code also drops the
    /// topic's cached route).
    bool retry_after(const std::string& topic, const std::exception_ptr& error) {
        const auto next = detail::after_failure(error);
        if (next == detail::AfterFailure::RetryAfterRouteReset) {
            invalidate_route(topic);
        }
        return next != detail::AfterFailure::Stop;
    }

    /// One asynchronous send over the transport's own (impl/producer_send_async.hpp).
    struct AsyncSend;
    std::shared_ptr<AsyncSend> new_async(Message m, std::vector<Message> batch, int total, Done done);
    template <class Task>
    void post_async(Task task);
    void start_async(const std::shared_ptr<AsyncSend>& s);
    template <class Selector, class Arg>
    void select_async(const std::shared_ptr<AsyncSend>& s, Selector& selector, Arg& arg);
    MessageQueue next_async_queue(AsyncSend& s);
    void attempt_async(const std::shared_ptr<AsyncSend>& s, bool on_caller);
    void on_async_answer(const std::shared_ptr<AsyncSend>& s, SendResult r, const std::exception_ptr& error);
    void trace_async(const AsyncSend& s, const SendResult& r);
    void finish_async(const std::shared_ptr<AsyncSend>& s, SendResult r, const std::exception_ptr& error);
    void take_async_answer(AsyncSend* a);

    template <class Pick>
    bool oneway_from_caller(const Message& m, Pick&& pick);

    /// A oneway send to one queue: the transport's own oneway request, else a send whose result is dropped.
    void oneway_to(const Message& m, const MessageQueue& mq) {
        check_queue_topic(m, mq);
        if constexpr (HasSendOneway<Tr>) {
            transport_.send_oneway(m, mq);
        } else {
            (void)transport_.send(m, mq);
        }
    }

    /// DefaultMQProducer.batch: Java's checks, each message validated and given a UNIQ_KEY, and the encoded
    /// size held to max_message_size.
    std::vector<Message> prepared_batch(std::span<const Message> msgs) {
        detail::check_batch(msgs);
        std::vector<Message> batch;
        batch.reserve(msgs.size());
        for (const auto& m : msgs) {
            batch.push_back(prepared(m));
        }
        const std::size_t size = detail::batch_body_size(batch);
        if (size > static_cast<std::size_t>(config_.max_message_size)) {
            throw MessageTooLarge(
                fmt::format("the message body size over max value, MAX: {} (the batch of {} "
                            "messages encodes to {} bytes)",
                            config_.max_message_size,
                            batch.size(),
                            size),
                size,
                static_cast<std::size_t>(config_.max_message_size));
        }
        return batch;
    }

    static void check_queue_topic(const Message& m, const MessageQueue& mq) {
        if (mq.topic != m.topic()) {
            throw InvalidArgument(
                fmt::format("message's topic [{}] not equal mq's topic [{}]", m.topic(), mq.topic));
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
            throw MessageTooLarge(
                fmt::format("the message body size over max value, MAX: {}", config_.max_message_size),
                msg.body().size(),
                static_cast<std::size_t>(config_.max_message_size));
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
        check_queue_topic(m, mq);
        return send_traced(m, mq);
    }

    /// One attempt of a send, traced (Java's send hooks around sendKernelImpl) when tracing is on
    /// (impl/producer_trace.hpp).
    SendResult send_traced(const Message& m, const MessageQueue& mq);
    SendResult send_batch_traced(const std::vector<Message>& batch, const MessageQueue& mq)
    requires HasSendBatch<Tr>;
    /// Java's DefaultMQProducer.start with enableTrace: the dispatcher and its producer (not traced itself).
    void start_tracer();

    /// tryToFindTopicPublishInfo: the topic's route, else the create-topic-key route renamed to the topic
    /// with at most default_topic_queue_nums queues (the broker then auto-creates the topic).
    QueueList write_queues(const std::string& topic);

    /// The topic's write queues when a fresh route is cached (nothing to ask the NameServer), else null.
    QueueList cached_queues(const std::string& topic) const;

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
    /// The trace dispatcher and its producer (enable_msg_trace); set by start().
    std::unique_ptr<detail::trace::Tracer> tracer_;
    /// Answers of asynchronous sends on their way from the transport's thread to sender_'s (HasAsyncSend).
    std::unique_ptr<detail::BatchedHandoff<AsyncSend>> answers_;
    /// Where the threads completing send_async's futures leave them, released on a caller's thread.
    detail::CallerFutures futures_;
    /// Last member: destroyed (its threads joined) before what their tasks use.
    std::unique_ptr<detail::AsyncSender> sender_;
};

}  // namespace rmq

#include <rmq/impl/producer_retries.hpp>
#include <rmq/impl/producer_routes.hpp>
#include <rmq/impl/producer_send_async.hpp>
#include <rmq/impl/producer_send_async_batch.hpp>
#include <rmq/impl/producer_send_async_default.hpp>
#include <rmq/impl/producer_send_async_queue.hpp>
#include <rmq/impl/producer_send_async_select.hpp>
#include <rmq/impl/producer_send_oneway.hpp>
#include <rmq/impl/producer_trace.hpp>
