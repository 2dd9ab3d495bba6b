#pragma once

/// @file impl/subscription.ipp
/// Definitions of subscription.hpp.

#include <rmq/subscription.hpp>

// Only the definitions need these.
#include <fmt/format.h>

#include <rmq/error.hpp>

#include <rmq/detail/util/java_string.hpp>

namespace rmq {

RMQ_DECL std::int32_t tag_hash(std::string_view utf8_tag) noexcept {
    std::uint32_t h = 0;
    std::size_t i = 0;
    while (i < utf8_tag.size()) {
        const std::uint32_t cp = detail::next_code_point(utf8_tag, i);
        if (cp >= 0x10000) {
            h = h * 31 + (0xD800 + ((cp - 0x10000) >> 10));
            h = h * 31 + (0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            h = h * 31 + cp;
        }
    }
    return static_cast<std::int32_t>(h);
}

RMQ_DECL std::string_view detail::java_trim(std::string_view s) noexcept {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) {
        s.remove_prefix(1);
    }
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) {
        s.remove_suffix(1);
    }
    return s;
}

RMQ_DECL SubscriptionData parse_subscription(std::string_view topic, std::string_view expression) {
    SubscriptionData data;
    data.topic = std::string(topic);
    if (expression.empty() || expression == sub_all) {
        data.sub_string = std::string(sub_all);
        return data;
    }
    data.sub_string = std::string(expression);
    // Java's String.split("\\|\\|") keeps leading empty parts and drops trailing ones; only "nothing at all
    // after dropping" is an error.
    std::size_t parts = 0;
    std::size_t last_non_empty = 0;
    {
        std::string_view rest = expression;
        std::size_t index = 0;
        while (true) {
            const std::size_t pos = rest.find("||");
            const std::string_view part = rest.substr(0, pos);
            ++index;
            if (!part.empty()) {
                last_non_empty = index;
            }
            if (pos == std::string_view::npos) {
                break;
            }
            rest.remove_prefix(pos + 2);
        }
        parts = last_non_empty;
    }
    if (parts == 0) {
        throw InvalidArgument(fmt::format("subString split error: subscription expression \"{}\" of topic {} "
                                          "contains no tag",
                                          expression,
                                          topic));
    }
    std::string_view rest = expression;
    while (true) {
        const std::size_t pos = rest.find("||");
        const std::string_view tag = detail::java_trim(rest.substr(0, pos));
        if (!tag.empty()) {
            data.tags_set.emplace(tag);
            data.code_set.insert(tag_hash(tag));
        }
        if (pos == std::string_view::npos) {
            break;
        }
        rest.remove_prefix(pos + 2);
    }
    return data;
}

RMQ_DECL SubscriptionData parse_subscription(std::string_view topic,
                                             std::string_view expression,
                                             std::string_view type) {
    if (type.empty() || type == expression_type_tag) {
        return parse_subscription(topic, expression);
    }
    if (expression.empty()) {
        throw InvalidArgument(fmt::format("Expression can't be null! {}", type));
    }
    SubscriptionData data;
    data.topic = std::string(topic);
    data.sub_string = std::string(expression);
    data.expression_type = std::string(type);
    return data;
}

}  // namespace rmq
