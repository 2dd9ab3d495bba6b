#pragma once

/// @file impl/producer_send_oneway.hpp
/// rmq::Producer::send_oneway: Java's sendOneway, one attempt whose answer nobody waits for. As Java's, it
/// leaves from the caller's thread when nothing of it can block: a transport's own oneway request
/// (rmq::HasSendOneway; RemotingTransport hands the frame to its io thread and returns) to a topic whose
/// route is cached, no timer (whose broker version may need asking). Else it runs on a producer thread (the
/// in-flight bound applies), where the route is read. What fails is logged.

#include <algorithm>
#include <exception>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <rmq/producer.hpp>

namespace rmq {

/// The send from the caller's thread, `pick` choosing its queue among the cached write queues; false when it
/// must go to a producer thread (no such transport, no cached route, a timer, a queue of a broker the cached
/// route does not name).
template <Transport Tr>
template <class Pick>
bool Producer<Tr>::oneway_from_caller(const Message& m, Pick&& pick) {
    if constexpr (HasSendOneway<Tr>) {
        if (m.is_timer_message()) {
            return false;
        }
        const auto queues = cached_queues(m.topic());
        if (!queues) {
            return false;
        }
        const auto logged = detail::oneway_done(m.topic());
        try {
            const MessageQueue mq = std::invoke(std::forward<Pick>(pick), *queues);
            if (std::none_of(queues->begin(), queues->end(), [&](const MessageQueue& q) {
                    return q.broker_name == mq.broker_name;
                })) {
                return false;
            }
            oneway_to(m, mq);
        } catch (...) {
            logged({}, std::current_exception());
        }
        return true;
    } else {
        (void)m;
        (void)pick;
        return false;
    }
}

template <Transport Tr>
void Producer<Tr>::send_oneway(const Message& msg) {
    check_running();
    auto m = prepared(msg);
    if (oneway_from_caller(m, [this](const std::vector<MessageQueue>& queues) {
            return select_queue(queues, std::string());
        })) {
        return;
    }
    submit(
        [this, m = std::move(m)] {
            const auto queues = write_queues(m.topic());
            oneway_to(m, select_queue(*queues, std::string()));
            return SendResult{};
        },
        detail::oneway_done(msg.topic()));
}

template <Transport Tr>
void Producer<Tr>::send_oneway(const Message& msg, const MessageQueue& mq) {
    check_running();
    check_queue_topic(msg, mq);
    auto m = prepared(msg);
    if (oneway_from_caller(m, [&mq](const std::vector<MessageQueue>&) { return mq; })) {
        return;
    }
    submit(
        [this, m = std::move(m), mq] {
            oneway_to(m, mq);
            return SendResult{};
        },
        detail::oneway_done(msg.topic()));
}

template <Transport Tr>
template <class Selector, class Arg>
requires MessageQueueSelector<std::decay_t<Selector>, std::decay_t<Arg>&>
void Producer<Tr>::send_oneway(const Message& msg, Selector&& selector, Arg&& arg) {
    check_running();
    auto m = prepared(msg);
    auto sel = std::decay_t<Selector>(std::forward<Selector>(selector));
    auto a = std::decay_t<Arg>(std::forward<Arg>(arg));
    if (oneway_from_caller(m, [&](const std::vector<MessageQueue>& queues) {
            return MessageQueue(std::invoke(sel, std::span<const MessageQueue>(queues), std::as_const(m), a));
        })) {
        return;
    }
    submit(
        [this, m = std::move(m), sel = std::move(sel), a = std::move(a)]() mutable {
            const auto queues = write_queues(m.topic());
            oneway_to(m, std::invoke(sel, std::span<const MessageQueue>(*queues), std::as_const(m), a));
            return SendResult{};
        },
        detail::oneway_done(msg.topic()));
}

}  // namespace rmq
