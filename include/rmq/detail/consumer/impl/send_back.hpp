#pragma once

/// @file detail/consumer/impl/send_back.hpp
/// SendBack's definitions.

#include <string>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/send_back.hpp>

namespace rmq::detail {

/// False when both the send-back and the retry copy failed.
template <class T>
bool SendBack<T>::send_back(const MessageExt& msg, int delay_level) {
    try {
        s_.transport.send_back(SendBackArgs{
            .group = s_.group,
            .message = msg,
            .delay_level = delay_level,
            .max_reconsume_times = s_.max_reconsume_times,
        });
        s_.stats.record_send_back(true);
        return true;
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn,
                 "group [{}]: send back of {} failed ({}), falling back to the retry topic",
                 s_.group,
                 msg.msg_id(),
                 e.what());
    }
    const bool ok = send_retry_copy(msg);
    s_.stats.record_send_back(ok);
    return ok;
}

/// The fallback of Java's sendMessageBack: a copy of `msg` with the retry properties, delayed by 3 +
/// reconsume times, sent to the first writable queue of %RETRY%group.
template <class T>
bool SendBack<T>::send_retry_copy(const MessageExt& msg) {
    try {
        const std::string retry = retry_topic(s_.group);
        Message copy(retry, msg.body());
        copy.set_flag(msg.flag());
        copy.set_properties(msg.properties());
        const auto origin = msg.property_view(property::origin_message_id);
        copy.set_property(property::origin_message_id,
                          origin.empty() ? std::string_view(msg.msg_id()) : origin);
        copy.set_property(property::retry_topic, msg.topic());
        copy.set_property(property::reconsume_time, std::to_string(msg.reconsume_times() + 1));
        copy.set_property(property::max_reconsume_times, std::to_string(s_.max_reconsume_times));
        copy.clear_property(property::transaction_prepared);
        copy.set_delay_time_level(3 + msg.reconsume_times());
        const auto route = s_.transport.topic_route(retry);
        if (route.write_queues.empty()) {
            throw BrokerError(response_code::topic_not_exist, fmt::format("no writable queue of {}", retry));
        }
        (void)s_.transport.send(copy, route.write_queues.front());
        return true;
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn,
                 "group [{}]: fallback send of {} to the retry topic failed: {}",
                 s_.group,
                 msg.msg_id(),
                 e.what());
        return false;
    }
}

/// The message went past max_reconsume_times (orderly): CONSUMER_SEND_MSG_BACK with delay level -1 sends it
/// straight to %DLQ%group. False when the broker could not be reached.
template <class T>
bool SendBack<T>::send_to_dlq(const MessageExt& msg) {
    try {
        s_.transport.send_back(SendBackArgs{
            .group = s_.group,
            .message = msg,
            .delay_level = -1,
            .max_reconsume_times = s_.max_reconsume_times,
        });
        s_.stats.record_sent_to_dlq();
        return true;
    } catch (const std::exception& e) {
        log_line(
            LogLevel::Warn, "group [{}]: moving {} to the DLQ failed: {}", s_.group, msg.msg_id(), e.what());
        return false;
    }
}

}  // namespace rmq::detail
