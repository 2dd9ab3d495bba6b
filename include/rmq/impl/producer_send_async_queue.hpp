#pragma once

/// @file impl/producer_send_async_queue.hpp
/// rmq::Producer::send_async(msg, queue): Java's send(msg, mq, callback), sendKernelImpl in
/// CommunicationMode.ASYNC: one attempt to the queue, no retry.

#include <future>
#include <utility>

#include <rmq/producer.hpp>

namespace rmq {

template <Transport Tr>
template <SendSuccessCallback OnSuccess, SendExceptionCallback OnException>
void Producer<Tr>::send_async(const Message& msg,
                              const MessageQueue& mq,
                              OnSuccess on_success,
                              OnException on_exception) {
    send_async_to(msg, mq, detail::done_calling(std::move(on_success), std::move(on_exception)));
}

template <Transport Tr>
std::future<SendResult> Producer<Tr>::send_async(const Message& msg, const MessageQueue& mq) {
    auto [done, future] = detail::promised_done(futures_);
    send_async_to(msg, mq, std::move(done));
    return std::move(future);
}

/// Over the transport's asynchronous send when it has one (an AsyncSend with a fixed queue: one attempt),
/// else a synchronous send on a producer thread.
template <Transport Tr>
void Producer<Tr>::send_async_to(const Message& msg, const MessageQueue& mq, Done done) {
    check_running();
    if constexpr (HasAsyncSend<Tr>) {
        auto s = new_async(prepared(msg), {}, 1, std::move(done));
        s->queue = mq;
        start_async(s);
    } else {
        submit([this, m = prepared(msg), mq] { return send_recorded(m, mq); }, std::move(done));
    }
}

}  // namespace rmq
