#pragma once

/// @file topic.hpp
/// Names of RocketMQ's per-group system topics and the validation Java's Validators apply.

#include <cstddef>
#include <string>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/error.hpp>

namespace rmq {

/// MixAll.RETRY_GROUP_TOPIC_PREFIX.
inline constexpr std::string_view retry_group_topic_prefix = "%RETRY%";
/// MixAll.DLQ_GROUP_TOPIC_PREFIX.
inline constexpr std::string_view dlq_group_topic_prefix = "%DLQ%";
/// MixAll.DEFAULT_CONSUMER_GROUP, which checkConfig rejects.
inline constexpr std::string_view default_consumer_group = "DEFAULT_CONSUMER";
/// MixAll.DEFAULT_PRODUCER_GROUP.
inline constexpr std::string_view default_producer_group = "DEFAULT_PRODUCER";
/// MixAll.CLIENT_INNER_PRODUCER_GROUP.
inline constexpr std::string_view client_inner_producer_group = "CLIENT_INNER_PRODUCER";
/// TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC.
inline constexpr std::string_view auto_create_topic_key_topic = "TBW102";
/// TopicValidator.TOPIC_MAX_LENGTH (4.9: 127).
inline constexpr std::size_t topic_max_length = 127;
/// Validators.CHARACTER_MAX_LENGTH for groups.
inline constexpr std::size_t group_max_length = 255;

/// `%RETRY%<group>` (MixAll.getRetryTopic).
std::string retry_topic(std::string_view group);

/// `%DLQ%<group>` (MixAll.getDLQTopic).
std::string dlq_topic(std::string_view group);

/// Whether a topic is a retry topic.
inline bool is_retry_topic(std::string_view topic) noexcept {
    return topic.starts_with(retry_group_topic_prefix);
}

/// Whether a topic is a dead-letter topic.
inline bool is_dlq_topic(std::string_view topic) noexcept {
    return topic.starts_with(dlq_group_topic_prefix);
}

namespace detail {
inline bool is_name_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '%' ||
           c == '|' || c == '-' || c == '_';
}

void check_name(std::string_view what, std::string_view name, std::size_t max_length);
}  // namespace detail

/// Validators.checkTopic: not blank, at most 127 characters, only `%|a-zA-Z0-9_-`. Throws
/// rmq::InvalidArgument.
inline void check_topic(std::string_view topic) {
    detail::check_name("topic", topic, topic_max_length);
}

/// Validators.checkGroup: not blank, at most 255 characters, only `%|a-zA-Z0-9_-`. Throws
/// rmq::InvalidArgument.
inline void check_group(std::string_view group) {
    detail::check_name("group", group, group_max_length);
}

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/topic.ipp>
#endif
