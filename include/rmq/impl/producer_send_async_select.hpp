#pragma once

/// @file impl/producer_send_async_select.hpp
/// rmq::Producer::send_async(msg, selector, arg): Java's send(msg, selector, arg, callback), whose runnable
/// on the async executor runs sendSelectImpl in CommunicationMode.ASYNC: the selector, then one attempt to
/// its queue.

#include <functional>
#include <future>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>

namespace rmq {

template <Transport Tr>
template <class Selector, class Arg>
requires MessageQueueSelector<std::decay_t<Selector>, std::decay_t<Arg>&>
std::future<SendResult> Producer<Tr>::send_async(const Message& msg, Selector&& selector, Arg&& arg) {
    auto [done, future] = detail::promised_done(futures_);
    check_running();
    if constexpr (HasAsyncSend<Tr>) {
        struct Selected {
            std::decay_t<Selector> selector;
            std::decay_t<Arg> arg;
        };

        // Shared: a producer thread's task must be copyable, the selector or its argument may not be.
        auto selected =
            std::make_shared<Selected>(Selected{std::decay_t<Selector>(std::forward<Selector>(selector)),
                                                std::decay_t<Arg>(std::forward<Arg>(arg))});
        auto s = new_async(prepared(msg), {}, 1, std::move(done));
        // The selector runs on a producer thread, as Java's executor runs it: it is user code that may block
        // (or need the route fetched first), and the caller of an asynchronous send does not wait for it.
        post_async([this, s, selected] { select_async(s, selected->selector, selected->arg); });
    } else {
        submit([this,
                m = prepared(msg),
                selector = std::decay_t<Selector>(std::forward<Selector>(selector)),
                arg = std::decay_t<Arg>(
                    std::forward<Arg>(arg))]() mutable { return send_selected(m, selector, arg); },
               std::move(done));
    }
    return std::move(future);
}

/// A producer thread: the selector's queue from the write queues within send_msg_timeout (sendSelectImpl),
/// then its one attempt, which waits for no answer. What the selector throws finishes the send.
template <Transport Tr>
template <class Selector, class Arg>
void Producer<Tr>::select_async(const std::shared_ptr<AsyncSend>& s, Selector& selector, Arg& arg) {
    try {
        const auto queues = write_queues(s->msg.topic());
        s->queue = std::invoke(selector, std::span<const MessageQueue>(*queues), std::as_const(s->msg), arg);
        if (now() - s->begin > config_.send_msg_timeout) {
            throw Timeout(fmt::format("sendSelectImpl call timeout: topic {}", s->msg.topic()));
        }
    } catch (...) {
        finish_async(s, {}, std::current_exception());
        return;
    }
    attempt_async(s, false);
}

}  // namespace rmq
