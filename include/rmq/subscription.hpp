#pragma once

/// @file subscription.hpp
/// Tag hashes and subscriptions (Java's FilterAPI and SubscriptionData).

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

namespace rmq {

/// SubscriptionData.SUB_ALL.
inline constexpr std::string_view sub_all = "*";
/// ExpressionType.TAG.
inline constexpr std::string_view expression_type_tag = "TAG";
/// ExpressionType.SQL92.
inline constexpr std::string_view expression_type_sql92 = "SQL92";

/// Java's String.hashCode of a tag: computed over its UTF-16 code units, so the broker's consume-queue filter
/// agrees with what a Java producer stored.
inline std::int32_t tag_hash(std::string_view utf8_tag) noexcept {
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

/// What a consumer subscribed to on one topic (Java's SubscriptionData).
struct SubscriptionData {
    std::string topic;
    /// The expression as given (`*` for everything).
    std::string sub_string{sub_all};
    std::set<std::string> tags_set;
    std::set<std::int32_t> code_set;
    /// Version stamp (Java: currentTimeMillis at construction); the broker keeps the newest.
    std::int64_t sub_version = 0;
    /// `TAG` or `SQL92`.
    std::string expression_type{expression_type_tag};
    bool class_filter_mode = false;

    /// Whether this subscribes to every message of the topic.
    [[nodiscard]] bool is_all() const noexcept {
        return expression_type == expression_type_tag && sub_string == sub_all;
    }

    /// Client-side string check (PullAPIWrapper.processPullResult): TAG subscriptions other than `*` keep
    /// only messages whose tag is exactly one of the subscribed tags.
    [[nodiscard]] bool matches_tag(std::string_view tag) const {
        if (expression_type != expression_type_tag || tags_set.empty() || class_filter_mode) {
            return true;
        }
        return !tag.empty() && tags_set.find(std::string(tag)) != tags_set.end();
    }

    friend bool operator==(const SubscriptionData& a, const SubscriptionData& b) {
        // sub_version is a timestamp, not part of what was subscribed.
        return a.topic == b.topic && a.sub_string == b.sub_string && a.tags_set == b.tags_set &&
               a.code_set == b.code_set && a.expression_type == b.expression_type &&
               a.class_filter_mode == b.class_filter_mode;
    }
};

namespace detail {
/// Java's String.trim: strips characters <= U+0020 at both ends.
inline std::string_view java_trim(std::string_view s) noexcept {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) {
        s.remove_prefix(1);
    }
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) {
        s.remove_suffix(1);
    }
    return s;
}
}  // namespace detail

/// FilterAPI.buildSubscriptionData: `*` or empty subscribes to all; otherwise tags separated by `||`.
/// Throws rmq::InvalidArgument when the expression yields no part at all (e.g. `"||"`).
inline SubscriptionData parse_subscription(std::string_view topic, std::string_view expression) {
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

/// FilterAPI.build(topic, expression, type): `TAG` (or empty type) as parse_subscription, otherwise (`SQL92`)
/// the expression is kept whole. Throws rmq::InvalidArgument for an empty non-TAG expression.
inline SubscriptionData
parse_subscription(std::string_view topic, std::string_view expression, std::string_view type) {
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
