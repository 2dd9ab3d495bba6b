#pragma once

/// @file pop_dead_letter.hpp
/// Moving a POP message to the group's dead letter queue from the client. A 5.x broker redelivers a message
/// that is never acked forever (its revive service knows no limit); Java's gRPC proxy sends it to
/// %DLQ%<group> once the client's max attempts are spent. These helpers do the same for rmq::SimpleConsumer:
/// CONSUMER_SEND_MSG_BACK with delay level -1 (the broker stores it in %DLQ%<group> at once), then the ack
/// that ends its check point. See docs/pop.md.

#include <cstdint>

#include <fmt/format.h>

#include <rmq/concepts/transport.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/pop.hpp>
#include <rmq/protocol.hpp>
#include <rmq/simple_consumer.hpp>

namespace rmq {

/// Stores `msg` (received by `consumer`) in its group's dead letter queue %DLQ%<group> and acks it. Throws
/// rmq::InvalidArgument for a message without receipt (nothing is sent then), rmq::BrokerError when the
/// broker refuses the send-back (the message is not acked: it comes back after its invisible time).
template <class Tr>
requires HasTopicRoute<Tr> && HasPop<Tr> && HasSend<Tr>
void forward_to_dead_letter_queue(SimpleConsumer<Tr>& consumer, const MessageExt& msg) {
    (void)PopReceipt::of(msg);  // a message without receipt: rmq::InvalidArgument before anything is sent
    SendBackArgs back;
    back.group = consumer.config().consumer_group;
    back.message = msg;
    back.delay_level = -1;
    back.max_reconsume_times = msg.reconsume_times();
    consumer.transport().send_back(back);
    consumer.ack(msg);
}

/// Java's max reconsume times for a received message: when `msg` was already redelivered
/// `max_reconsume_times` times or more, moves it to the dead letter queue (forward_to_dead_letter_queue) and
/// returns true; otherwise does nothing and returns false (handle it, then ack). Throws rmq::InvalidArgument
/// for a negative `max_reconsume_times`.
template <class Tr>
requires HasTopicRoute<Tr> && HasPop<Tr> && HasSend<Tr>
bool dead_letter_if_exhausted(SimpleConsumer<Tr>& consumer,
                              const MessageExt& msg,
                              std::int32_t max_reconsume_times = 16) {
    if (max_reconsume_times < 0) {
        throw InvalidArgument(
            fmt::format("dead_letter_if_exhausted: max_reconsume_times {} is negative", max_reconsume_times));
    }
    if (msg.reconsume_times() < max_reconsume_times) {
        return false;
    }
    forward_to_dead_letter_queue(consumer, msg);
    return true;
}

}  // namespace rmq
