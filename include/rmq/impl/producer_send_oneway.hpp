#pragma once

/// @file impl/producer_send_oneway.hpp
/// rmq::Producer::send_oneway: Java's sendOneway, one attempt whose answer nobody waits for, on a producer
/// thread (the in-flight bound applies); what fails there is logged.

#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <rmq/producer.hpp>

namespace rmq {

template <Transport Tr>
void Producer<Tr>::send_oneway(const Message& msg) {
    check_running();
    submit(
        [this, m = prepared(msg)] {
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
    submit(
        [this, m = prepared(msg), mq] {
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
    submit(
        [this,
         m = prepared(msg),
         selector = std::decay_t<Selector>(std::forward<Selector>(selector)),
         arg = std::decay_t<Arg>(std::forward<Arg>(arg))]() mutable {
            const auto queues = write_queues(m.topic());
            oneway_to(m,
                      std::invoke(selector, std::span<const MessageQueue>(*queues), std::as_const(m), arg));
            return SendResult{};
        },
        detail::oneway_done(msg.topic()));
}

}  // namespace rmq
