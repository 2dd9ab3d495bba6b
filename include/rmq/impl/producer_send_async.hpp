#pragma once

/// @file impl/producer_send_async.hpp
/// rmq::Producer's asynchronous sends over a transport with its own asynchronous send (rmq::HasAsyncSend,
/// rmq::HasAsyncSendBatch), as Java's DefaultMQProducerImpl in CommunicationMode.ASYNC: a producer thread
/// (or the caller, see start_async) picks the queue and puts the request on the wire; the answer comes back
/// on the transport's thread and is handed to a producer thread (in batches: the answers of one read wake
/// one thread), which retries on the next queue (onExceptionImpl) or calls the user. No thread waits for a
/// broker, so the sends in flight are bounded by back_pressure_for_async_send_num, not by the threads.
/// send_async(msg) and send_async(batch) retry; send_async(msg, queue) and send_async(msg, selector, arg)
/// make one attempt (AsyncSend::queue set). The public forms: impl/producer_send_async_*.hpp.

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>

#include <rmq/detail/wire/batch_size.hpp>

namespace rmq {

/// The state of one asynchronous send, shared by its attempts. It holds an in-flight slot until finish.
template <Transport Tr>
struct Producer<Tr>::AsyncSend {
    Message msg{};                 // empty for a batch
    std::vector<Message> batch{};  // send_async(batch): its prepared messages
    // One attempt to this queue: send_async(msg, queue), or the queue a selector picked.
    std::optional<MessageQueue> queue{};
    int total = 1;
    std::int64_t begin = 0;  // steady ms: send_msg_timeout and the statistics count from here
    int tries = 0;
    QueueList queues{};
    std::string last_broker{};
    std::exception_ptr last{};
    Done done{};
    std::int64_t attempt_began = 0;  // the trace's clock, when tracing (enable_msg_trace)
    // An attempt's answer, on its way to a producer thread (answers_), which `queued` keeps this alive for.
    SendResult answer{};
    std::exception_ptr answer_error{};
    std::shared_ptr<AsyncSend> queued{};

    /// The message whose topic (and trace record) the send has: the batch's first for a batch.
    [[nodiscard]] const Message& head() const { return batch.empty() ? msg : batch.front(); }
};

/// Takes an in-flight slot (rmq::TooManyRequests after send_msg_timeout) for a new asynchronous send.
template <Transport Tr>
// NOLINTNEXTLINE(performance-unnecessary-value-param): all three are moved into the send's state
auto Producer<Tr>::new_async(Message m, std::vector<Message> batch, int total, Done done)
    -> std::shared_ptr<AsyncSend> {
    sender_->acquire(config_.send_msg_timeout);
    try {
        return std::make_shared<AsyncSend>(AsyncSend{.msg = std::move(m),
                                                     .batch = std::move(batch),
                                                     .total = total,
                                                     .begin = now(),
                                                     .done = std::move(done)});
    } catch (...) {
        sender_->release();
        throw;
    }
}

/// Runs `task` on a producer thread; gives the slot back when it cannot (stopped), and throws.
template <Transport Tr>
template <class Task>
void Producer<Tr>::post_async(Task task) {
    try {
        sender_->post(std::move(task));
    } catch (...) {
        sender_->release();
        throw;
    }
}

/// The first attempt. With the route cached (and no timer, whose broker version may need asking) nothing
/// of it blocks: it leaves from the caller's thread, saving a hand-over per message. Else it runs on a
/// producer thread, as Java's executor does.
template <Transport Tr>
void Producer<Tr>::start_async(const std::shared_ptr<AsyncSend>& s) {
    if (!s->head().is_timer_message()) {
        s->queues = cached_queues(s->head().topic());
    }
    // A fixed queue's broker must be one the cached route names (its address is then known).
    if (s->queues && s->queue &&
        std::none_of(s->queues->begin(), s->queues->end(), [&](const MessageQueue& q) {
            return q.broker_name == s->queue->broker_name;
        })) {
        s->queues = nullptr;
    }
    if (s->queues) {
        attempt_async(s, true);
        return;
    }
    post_async([this, s] { attempt_async(s, false); });
}

/// The queue of the next attempt: the fixed one, else the next in round robin avoiding the last broker.
template <Transport Tr>
MessageQueue Producer<Tr>::next_async_queue(AsyncSend& s) {
    if (s.queue) {
        check_queue_topic(s.head(), *s.queue);
        return *s.queue;
    }
    if (!s.queues) {
        s.queues = write_queues(s.head().topic());
    }
    return select_queue(*s.queues, s.last_broker);
}

/// The next attempt. A failure before the request left is handled as its answer, on a producer thread (so
/// that no callback runs on the caller's thread: `on_caller`).
template <Transport Tr>
void Producer<Tr>::attempt_async(const std::shared_ptr<AsyncSend>& s, bool on_caller) {
    const std::string& topic = s->head().topic();
    if (s->tries >= s->total) {
        finish_async(s,
                     {},
                     s->last ? s->last
                             : std::make_exception_ptr(Error(
                                   fmt::format("Send [{}] times, still failed, topic {}", s->total, topic))));
        return;
    }
    if (now() - s->begin > config_.send_msg_timeout) {
        finish_async(
            s,
            {},
            std::make_exception_ptr(Timeout(fmt::format(
                "{} call timeout: topic {}", s->queue ? "sendKernelImpl" : "sendDefaultImpl", topic))));
        return;
    }
    ++s->tries;
    try {
        const MessageQueue mq = next_async_queue(*s);
        s->last_broker = mq.broker_name;
        s->attempt_began = tracer_ ? tracer_->now() : 0;
        // NOLINTNEXTLINE(performance-unnecessary-value-param): both are moved into the send's state
        auto answered = [this, s](SendResult r, std::exception_ptr error) {
            // The transport's thread: only hand over, with the other answers of the same read.
            s->answer = std::move(r);
            s->answer_error = std::move(error);
            s->queued = s;
            answers_->push(s.get());
        };
        if constexpr (HasAsyncSendBatch<Tr>) {
            if (!s->batch.empty()) {
                transport_.send_batch_async(s->batch, mq, std::move(answered));
                return;
            }
        }
        transport_.send_async(s->msg, mq, std::move(answered));
    } catch (...) {
        const std::exception_ptr failed = std::current_exception();
        if (on_caller) {
            try {
                sender_->post([this, s, failed] { on_async_answer(s, {}, failed); });
                return;
            } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): stopped: answered right here
            }
        }
        on_async_answer(s, {}, failed);
    }
}

/// An attempt's answer: retried on the next queue (sends with retries) or finished.
template <Transport Tr>
void Producer<Tr>::on_async_answer(const std::shared_ptr<AsyncSend>& s,
                                   SendResult r,
                                   const std::exception_ptr& error) {
    if (!error) {
        trace_async(*s, r);
        if (r.status != SendStatus::SendOk && config_.retry_another_broker_when_not_store_ok && !s->queue) {
            attempt_async(s, false);
            return;
        }
        finish_async(s, std::move(r), nullptr);
        return;
    }
    s->last = error;
    // One-attempt sends neither retry nor drop the route, as their synchronous forms.
    if (!s->queue && retry_after(s->head().topic(), error)) {
        attempt_async(s, false);
    } else {
        finish_async(s, {}, error);
    }
}

/// Every answered attempt is traced, as on the synchronous path (Java: the hook in the async callback).
template <Transport Tr>
void Producer<Tr>::trace_async(const AsyncSend& s, const SendResult& r) {
    if (!tracer_) {
        return;
    }
    if (s.batch.empty()) {
        tracer_->on_sent(s.msg, static_cast<std::int32_t>(s.msg.body().size()), false, r, s.attempt_began);
    } else {
        tracer_->on_sent(s.batch.front(),
                         static_cast<std::int32_t>(detail::batch_body_size(s.batch)),
                         true,
                         r,
                         s.attempt_began);
    }
}

/// A producer thread, from answers_.
template <Transport Tr>
void Producer<Tr>::take_async_answer(AsyncSend* a) {
    const std::shared_ptr<AsyncSend> s = std::move(a->queued);
    on_async_answer(s, std::move(s->answer), std::exchange(s->answer_error, nullptr));
}

/// Statistics, the slot back (so the callback may send again), then the user's callback.
template <Transport Tr>
void Producer<Tr>::finish_async(const std::shared_ptr<AsyncSend>& s,
                                SendResult r,
                                const std::exception_ptr& error) {
    try {
        stats_.record_send(s->head().topic(), now() - s->begin, !error);
    } catch (...) {  // NOLINT(bugprone-empty-catch): statistics never turn a send into a failure
    }
    sender_->release();
    s->done(std::move(r), error);
}

}  // namespace rmq
