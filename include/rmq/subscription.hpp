#pragma once

/// @file subscription.hpp
/// Tag hashes and subscriptions (Java's FilterAPI and SubscriptionData).

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <rmq/config.hpp>
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
std::int32_t tag_hash(std::string_view utf8_tag) noexcept;

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
std::string_view java_trim(std::string_view s) noexcept;
}  // namespace detail

/// FilterAPI.buildSubscriptionData: `*` or empty subscribes to all; otherwise tags separated by `||`.
/// Throws rmq::InvalidArgument when the expression yields no part at all (e.g. `"||"`).
SubscriptionData parse_subscription(std::string_view topic, std::string_view expression);

/// FilterAPI.build(topic, expression, type): `TAG` (or empty type) as parse_subscription, otherwise (`SQL92`)
/// the expression is kept whole. Throws rmq::InvalidArgument for an empty non-TAG expression.
SubscriptionData
parse_subscription(std::string_view topic, std::string_view expression, std::string_view type);

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/subscription.ipp>
#endif
