#pragma once

/// @file impl/topic.ipp
/// Definitions of topic.hpp.

#include <rmq/topic.hpp>

// Only the definitions need these.
#include <fmt/format.h>

namespace rmq {

RMQ_DECL std::string retry_topic(std::string_view group) {
    return fmt::format("{}{}", retry_group_topic_prefix, group);
}

RMQ_DECL std::string dlq_topic(std::string_view group) {
    return fmt::format("{}{}", dlq_group_topic_prefix, group);
}

RMQ_DECL void detail::check_name(std::string_view what, std::string_view name, std::size_t max_length) {
    if (name.empty()) {
        throw InvalidArgument(fmt::format("the specified {} is blank", what));
    }
    if (name.size() > max_length) {
        throw InvalidArgument(
            fmt::format("the specified {} is longer than {} characters: {}", what, max_length, name));
    }
    for (const char c : name) {
        if (!is_name_char(c)) {
            throw InvalidArgument(fmt::format(
                "the specified {} [{}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
                what,
                name));
        }
    }
}

}  // namespace rmq
