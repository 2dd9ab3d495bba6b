#pragma once

/// @file detail/trace/tracer.hpp
/// What a traced client owns (Java's AsyncTraceDispatcher with its producer): the dispatcher and the
/// producer of group `_INNER_TRACE_PRODUCER-<group>-<PRODUCE|CONSUME>-<n>` that sends its trace messages
/// through a copy of the client's transport.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/message.hpp>
#include <rmq/producer_config.hpp>
#include <rmq/trace.hpp>
#include <rmq/unique_id.hpp>

#include <rmq/detail/trace/dispatcher.hpp>
#include <rmq/detail/trace/hooks.hpp>

namespace rmq::detail::trace {

/// AsyncTraceDispatcher.COUNTER: numbers the trace producers of a process.
inline int next_trace_producer_number() {
    static std::atomic<int> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

/// A started dispatcher and its producer.
class Tracer {
public:
    Tracer(DispatcherOptions options,
           TraceSend send,
           std::function<void()> stop_producer,
           std::shared_ptr<Clock> clock,
           std::string group)
        : dispatcher_(std::move(options), std::move(send), clock)
        , stop_producer_(std::move(stop_producer))
        , clock_(std::move(clock))
        , group_(std::move(group))
        , ids_(clock_) {
        dispatcher_.start();
    }

    Tracer(const Tracer&) = delete;
    Tracer& operator=(const Tracer&) = delete;

    ~Tracer() {
        try {
            shutdown();
        } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
        }
    }

    /// Sends what is queued, then stops the trace producer. Idempotent.
    void shutdown() {
        dispatcher_.shutdown();
        if (stop_producer_) {
            auto stop = std::exchange(stop_producer_, {});
            stop();
        }
    }

    [[nodiscard]] Dispatcher& dispatcher() noexcept { return dispatcher_; }

    [[nodiscard]] const std::string& group() const noexcept { return group_; }

    [[nodiscard]] std::int64_t now() const { return clock_->wall_millis(); }

    /// The Pub record of one send attempt that got an answer; a message to the trace topic is not traced.
    void
    on_sent(const Message& m, std::int32_t body_length, bool batch, const SendResult& r, std::int64_t began) {
        if (m.topic().starts_with(dispatcher_.trace_topic())) {
            return;
        }
        if (auto c = pub_record(m, body_length, batch, r, group_, began, now())) {
            dispatcher_.append(std::move(*c));
        }
    }

    /// The EndTransaction record of a transaction's end (on the caller's or a check thread).
    void on_end_transaction(const Message& m,
                            const std::string& broker_addr,
                            const std::string& msg_id,
                            const std::string& transaction_id,
                            LocalTransactionState state,
                            bool from_check) {
        if (m.topic().starts_with(dispatcher_.trace_topic())) {
            return;
        }
        dispatcher_.append(
            end_transaction_record(m, group_, broker_addr, msg_id, transaction_id, state, from_check, now()));
    }

    /// Queues the SubBefore record of a listener call and returns it for after() (null: nothing traced).
    std::shared_ptr<const TraceContext> before(std::span<const MessageExt> msgs) {
        auto c = sub_before_record(msgs, group_, ids_.next(), now());
        if (!c) {
            return nullptr;
        }
        auto shared = std::make_shared<const TraceContext>(std::move(*c));
        dispatcher_.append(shared);
        return shared;
    }

    /// Queues the SubAfter record joining `before` (built on the drain thread).
    void
    after(std::shared_ptr<const TraceContext> before, bool success, ConsumeReturnType how, std::size_t n) {
        if (before) {
            dispatcher_.append(std::move(before), AfterPart{success, how, n, now()});
        }
    }

private:
    Dispatcher dispatcher_;
    std::function<void()> stop_producer_;
    std::shared_ptr<Clock> clock_;
    std::string group_;
    UniqueIdGenerator ids_;
};

/// The settings of a client's trace producer (AsyncTraceDispatcher.getAndCreateTraceProducer).
inline ProducerConfig trace_producer_config(const std::string& group, std::string_view type) {
    ProducerConfig c;
    c.producer_group =
        fmt::format("{}-{}-{}-{}", group_name_prefix, group, type, next_trace_producer_number());
    c.send_msg_timeout = 5000;
    c.max_message_size = 128000;
    c.async_sender_threads = 1;
    return c;
}

/// Starts the trace producer (a `P`, i.e. rmq::Producer<Tr>, over a copy of `transport`) and the dispatcher
/// of a client of `group`; `type` is "PRODUCE" or "CONSUME".
template <class P, class Tr>
std::unique_ptr<Tracer> start_tracer(const Tr& transport,
                                     const std::string& group,
                                     std::string_view type,
                                     const std::string& customized_trace_topic,
                                     std::int32_t trace_msg_batch_num) {
    auto producer = std::make_shared<P>(transport, trace_producer_config(group, type));
    producer->start();
    DispatcherOptions options;
    if (!customized_trace_topic.empty()) {
        options.trace_topic = customized_trace_topic;
    }
    options.batch_num = static_cast<std::size_t>(trace_msg_batch_num > 0 ? trace_msg_batch_num : 1);
    return std::make_unique<Tracer>(
        std::move(options),
        [producer](const Message& m, const TraceSendDone& done) {
            producer->send_async(
                m,
                [done](const SendResult&) { done(nullptr); },
                [done](std::exception_ptr e) { done(std::move(e)); });
        },
        [producer] { producer->shutdown(); },
        transport.clock(),
        group);
}

}  // namespace rmq::detail::trace
