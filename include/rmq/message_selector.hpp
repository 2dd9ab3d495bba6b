#pragma once

/// @file message_selector.hpp
/// rmq::MessageSelector (Java's MessageSelector): what a consumer selects on a topic, by tag expression or
/// by an SQL92 expression over message properties (docs/subscriptions.md).

#include <string>
#include <string_view>
#include <utility>

#include <rmq/subscription.hpp>

namespace rmq {

/// An expression with its type, for Consumer::subscribe(topic, selector).
///
/// @code
/// consumer.subscribe("TopicTest", rmq::MessageSelector::by_sql("a BETWEEN 0 AND 3 AND region = 'eu'"));
/// consumer.subscribe("Orders", rmq::MessageSelector::by_tag("TagA || TagB"));
/// @endcode
class MessageSelector {
public:
    /// MessageSelector.bySql: an SQL92 expression over the message's properties (type `SQL92`). The broker
    /// must run with enablePropertyFilter=true. Checked when subscribed.
    [[nodiscard]] static MessageSelector by_sql(std::string_view sql) {
        return MessageSelector(expression_type_sql92, sql);
    }

    /// MessageSelector.byTag: `*` (or empty) for every message, or tags separated by `||` (type `TAG`).
    [[nodiscard]] static MessageSelector by_tag(std::string_view tag) {
        return MessageSelector(expression_type_tag, tag);
    }

    /// `SQL92` or `TAG`.
    [[nodiscard]] const std::string& expression_type() const noexcept { return type_; }

    [[nodiscard]] const std::string& expression() const noexcept { return expression_; }

    friend bool operator==(const MessageSelector&, const MessageSelector&) = default;

private:
    MessageSelector(std::string_view type, std::string_view expression)
        : type_(type)
        , expression_(expression) {}

    std::string type_;
    std::string expression_;
};

}  // namespace rmq
