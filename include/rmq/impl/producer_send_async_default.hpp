#pragma once

/// @file impl/producer_send_async_default.hpp
/// rmq::Producer::send_async(msg): Java's send(msg, callback), sendDefaultImpl in CommunicationMode.ASYNC,
/// with the in-flight slot taken on the caller's thread; and Producer::submit, the producer-thread fallback
/// of every asynchronous form over a transport without its own asynchronous send.

#include <exception>
#include <future>
#include <memory>
#include <utility>

#include <rmq/producer.hpp>

namespace rmq {

template <Transport Tr>
template <SendSuccessCallback OnSuccess, SendExceptionCallback OnException>
void Producer<Tr>::send_async(const Message& msg, OnSuccess on_success, OnException on_exception) {
    send_async_default(msg, detail::done_calling(std::move(on_success), std::move(on_exception)));
}

template <Transport Tr>
std::future<SendResult> Producer<Tr>::send_async(const Message& msg) {
    auto [done, future] = detail::promised_done(futures_);
    send_async_default(msg, std::move(done));
    return std::move(future);
}

/// Over the transport's asynchronous send when it has one (no thread waits for the broker), else
/// send_default on a producer thread.
template <Transport Tr>
void Producer<Tr>::send_async_default(const Message& msg, Done done) {
    check_running();
    const int total = 1 + config_.retry_times_when_send_async_failed;
    if constexpr (HasAsyncSend<Tr>) {
        start_async(new_async(prepared(msg), {}, total, std::move(done)));
    } else {
        submit([this, m = prepared(msg), begin = now(), total] { return send_default(m, begin, total); },
               std::move(done));
    }
}

template <Transport Tr>
template <class Work>
void Producer<Tr>::submit(Work work, Done done) {
    sender_->acquire(config_.send_msg_timeout);

    struct Task {
        Work work;
        Done done;
        detail::AsyncSender* sender = nullptr;

        void operator()() {
            SendResult r;
            std::exception_ptr e;
            try {
                r = work();
            } catch (...) {
                e = std::current_exception();
            }
            sender->release();
            done(std::move(r), e);
        }
    };

    auto task = std::make_shared<Task>(Task{std::move(work), std::move(done), sender_.get()});
    try {
        sender_->post([task] { (*task)(); });
    } catch (...) {
        sender_->release();
        throw;
    }
}

}  // namespace rmq
