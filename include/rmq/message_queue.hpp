#pragma once

/// @file message_queue.hpp
/// rmq::MessageQueue: one queue of a topic on one broker, ordered and printed exactly like Java's.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <rmq/detail/util/java_string.hpp>

namespace rmq {

/// One queue of a topic on one broker (Java's MessageQueue). An aggregate: `MessageQueue{topic, broker, id}`.
struct MessageQueue {
    std::string topic;
    std::string broker_name;
    std::int32_t queue_id = 0;

    friend bool operator==(const MessageQueue&, const MessageQueue&) = default;

    /// Java's compareTo: topic, then broker name (String.compareTo), then queue id.
    friend std::strong_ordering operator<=>(const MessageQueue& a, const MessageQueue& b) noexcept {
        if (const int c = detail::java_string_compare(a.topic, b.topic); c != 0) {
            return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
        }
        if (const int c = detail::java_string_compare(a.broker_name, b.broker_name); c != 0) {
            return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
        }
        return a.queue_id <=> b.queue_id;
    }
};

}  // namespace rmq

/// Hash over all three fields (the value differs from Java's hashCode, which nothing on the wire uses).
template <>
struct std::hash<rmq::MessageQueue> {
    std::size_t operator()(const rmq::MessageQueue& mq) const noexcept {
        std::size_t h = std::hash<std::string_view>{}(mq.topic);
        h = h * 31 + std::hash<std::string_view>{}(mq.broker_name);
        return h * 31 + static_cast<std::size_t>(static_cast<std::uint32_t>(mq.queue_id));
    }
};

/// Prints Java's toString: `MessageQueue [topic=T, brokerName=B, queueId=N]` (consistent hashing hashes this
/// text). Width and alignment apply to the whole text (`{:>60}`).
template <>
struct fmt::formatter<rmq::MessageQueue> : fmt::formatter<std::string_view> {
    template <class FormatContext>
    auto format(const rmq::MessageQueue& mq, FormatContext& ctx) const {
        // fmt::format goes through the compiled fmt library; fmt::format_to(ctx.out(), ...) would instantiate
        // fmt's whole formatting engine in every TU that prints a queue (about a third of a consumer TU's
        // code).
        const std::string text = fmt::format(
            "MessageQueue [topic={}, brokerName={}, queueId={}]", mq.topic, mq.broker_name, mq.queue_id);
        return fmt::formatter<std::string_view>::format(text, ctx);
    }
};
