#pragma once

/// @file impl/producer_send_async.hpp
/// rmq::Producer::send_async(msg) over a transport with its own asynchronous send (rmq::HasAsyncSend), as
/// Java's sendDefaultImpl in CommunicationMode.ASYNC: a producer thread picks the queue and puts the request
/// on the wire; the answer comes back on the transport's thread and is handed to a producer thread (in
/// batches: the answers of one read wake one thread), which retries on the next queue (onExceptionImpl) or
/// calls the user. No thread waits for a broker, so the sends
/// in flight are bounded by back_pressure_for_async_send_num, not by the threads.

#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>

namespace rmq {

/// The state of one asynchronous send, shared by its attempts. It holds an in-flight slot until finish.
template <Transport Tr>
struct Producer<Tr>::AsyncSend {
    Message msg;
    int total = 1;
    std::int64_t begin = 0;  // steady ms: send_msg_timeout and the statistics count from here
    int tries = 0;
    QueueList queues;
    std::string last_broker;
    std::exception_ptr last;
    Done done;
    std::int64_t attempt_began = 0;  // the trace's clock, when tracing (enable_msg_trace)
    // An attempt's answer, on its way to a producer thread (answers_), which `queued` keeps this alive for.
    SendResult answer{};
    std::exception_ptr answer_error{};
    std::shared_ptr<AsyncSend> queued{};
};

template <Transport Tr>
void Producer<Tr>::start_async(Message m, int total, Done done) {
    sender_->acquire(config_.send_msg_timeout);
    auto s =
        std::make_shared<AsyncSend>(AsyncSend{std::move(m), total, now(), 0, {}, {}, {}, std::move(done)});
    // With the route cached (and no timer, whose broker version may need asking) nothing of the first
    // attempt blocks: it leaves from the caller's thread, saving a hand-over per message. Else it runs on a
    // producer thread, as Java's executor does.
    if (!s->msg.is_timer_message()) {
        s->queues = cached_queues(s->msg.topic());
    }
    if (s->queues) {
        attempt_async(s, true);
        return;
    }
    try {
        sender_->post([this, s] { attempt_async(s, false); });
    } catch (...) {
        sender_->release();
        throw;
    }
}

/// The next attempt. A failure before the request left is handled as its answer, on a producer thread (so
/// that no callback runs on the caller's thread: `on_caller`).
template <Transport Tr>
void Producer<Tr>::attempt_async(const std::shared_ptr<AsyncSend>& s, bool on_caller) {
    const std::string& topic = s->msg.topic();
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
            std::make_exception_ptr(Timeout(fmt::format("sendDefaultImpl call timeout: topic {}", topic))));
        return;
    }
    ++s->tries;
    try {
        if (!s->queues) {
            s->queues = write_queues(topic);
        }
        const MessageQueue mq = select_queue(*s->queues, s->last_broker);
        s->last_broker = mq.broker_name;
        s->attempt_began = tracer_ ? tracer_->now() : 0;
        // NOLINTNEXTLINE(performance-unnecessary-value-param): both are moved into the send's state
        transport_.send_async(s->msg, mq, [this, s](SendResult r, std::exception_ptr error) {
            // The transport's thread: only hand over, with the other answers of the same read.
            s->answer = std::move(r);
            s->answer_error = std::move(error);
            s->queued = s;
            answers_->push(s.get());
        });
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

template <Transport Tr>
void Producer<Tr>::on_async_answer(const std::shared_ptr<AsyncSend>& s,
                                   SendResult r,
                                   const std::exception_ptr& error) {
    if (!error) {
        if (tracer_) {  // every answered attempt, as the synchronous path (Java: the hook in the async
                        // callback)
            tracer_->on_sent(
                s->msg, static_cast<std::int32_t>(s->msg.body().size()), false, r, s->attempt_began);
        }
        if (r.status != SendStatus::SendOk && config_.retry_another_broker_when_not_store_ok) {
            attempt_async(s, false);
            return;
        }
        finish_async(s, std::move(r), nullptr);
        return;
    }
    s->last = error;
    if (retry_after(s->msg.topic(), error)) {
        attempt_async(s, false);
    } else {
        finish_async(s, {}, error);
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
        stats_.record_send(s->msg.topic(), now() - s->begin, !error);
    } catch (...) {  // NOLINT(bugprone-empty-catch): statistics never turn a send into a failure
    }
    sender_->release();
    s->done(std::move(r), error);
}

}  // namespace rmq
