#pragma once

/// @file simple_consumer_config.hpp
/// rmq::SimpleConsumerConfig: the settings of rmq::SimpleConsumer (Java's SimpleConsumerBuilder).

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/topic.hpp>

namespace rmq {

/// Settings of rmq::SimpleConsumer; each field mirrors the Java SimpleConsumerBuilder setting of the same
/// name. Subscriptions are SimpleConsumer::subscribe's.
struct SimpleConsumerConfig {
    /// consumerGroup. Required (Validators.checkGroup; DEFAULT_CONSUMER is refused).
    std::string consumer_group{};
    /// awaitDuration (ms): how long a broker may hold a receive that finds nothing (long polling; the
    /// embedded broker too, on its clock); 0 answers at once.
    std::int64_t await_duration = 0;
    /// Where a group that never consumed a queue starts (Java's ConsumeInitMode; MAX still starts at the
    /// first message while the queue's first message is in memory, as the broker's
    /// initPopOffsetByCheckMsgInMem rule says).
    ConsumeInitMode init_mode = ConsumeInitMode::Max;
    /// Orderly receives (the gRPC clients' FIFO subscription, which their proxy takes from the group's
    /// consumeMessageOrderly): each receive is an orderly pop (PopArgs::order), so a queue's messages come
    /// in order and none of a queue while a batch of it is neither acked nor past its invisible duration;
    /// a batch not acked comes back in order, reconsume times + 1. Explicit here: rmq has no proxy.
    bool fifo = false;

    /// Throws rmq::InvalidArgument naming the field.
    void validate() const {
        check_group(consumer_group);
        if (consumer_group == default_consumer_group) {
            throw InvalidArgument(
                fmt::format("consumer_group (consumerGroup) can not equal {}, please specify another one.",
                            default_consumer_group));
        }
        if (await_duration < 0) {
            throw InvalidArgument(
                fmt::format("await_duration (awaitDuration) {} ms is negative", await_duration));
        }
    }
};

}  // namespace rmq
