#pragma once

/// @file detail/producer/batch.hpp
/// What Java's MessageBatch.generateFromList refuses before a batch is encoded.

#include <span>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/topic.hpp>

namespace rmq::detail {

/// Throws rmq::InvalidBatch for an empty batch, a message with a delay level or a timer (the broker would
/// store the batch without delaying it), a retry topic, messages of different topics or a different WAIT.
inline void check_batch(std::span<const Message> msgs) {
    if (msgs.empty()) {
        throw InvalidBatch("the batch is empty");
    }
    const Message& first = msgs.front();
    for (const auto& m : msgs) {
        if (m.delay_time_level() > 0) {
            throw InvalidBatch("TimeDelayLevel is not supported for batching");
        }
        if (m.is_timer_message()) {
            throw InvalidBatch("timer messages (TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS) are not "
                               "supported for batching");
        }
        if (is_retry_topic(m.topic())) {
            throw InvalidBatch("Retry Group is not supported for batching");
        }
        if (m.topic() != first.topic()) {
            throw InvalidBatch(
                fmt::format("The topic of the messages in one batch should be the same: {} and {}",
                            first.topic(),
                            m.topic()));
        }
        if (m.property_view(property::wait_store_msg_ok) !=
            first.property_view(property::wait_store_msg_ok)) {
            throw InvalidBatch("The waitStoreMsgOK of the messages in one batch should the same");
        }
    }
}

}  // namespace rmq::detail
