#pragma once

/// @file message_queue.hpp
/// rmq::MessageQueue: one queue of a topic on one broker, ordered and printed exactly like Java's.

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace rmq {

namespace detail {

/// Decodes one UTF-8 code point at `i` (advancing it); invalid bytes decode as themselves.
inline std::uint32_t next_code_point(std::string_view s, std::size_t& i) noexcept {
    const auto b0 = static_cast<unsigned char>(s[i++]);
    int extra = 0;
    std::uint32_t cp = b0;
    if (b0 >= 0xF0 && b0 < 0xF8) {
        extra = 3;
        cp = b0 & 0x07U;
    } else if (b0 >= 0xE0) {
        extra = 2;
        cp = b0 & 0x0FU;
    } else if (b0 >= 0xC0) {
        extra = 1;
        cp = b0 & 0x1FU;
    }
    for (; extra > 0 && i < s.size(); --extra) {
        cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3FU);
    }
    return cp;
}

/// Java's String.compareTo (UTF-16 code-unit order) for UTF-8 text. UTF-8 byte order is code-point order,
/// which differs from UTF-16 order for supplementary characters against U+E000..U+FFFF, hence the decode.
inline int java_string_compare(std::string_view a, std::string_view b) noexcept {
    // Queues of one topic are compared on every offset-table update: skip the equal prefix bytewise, back to
    // just after its last ASCII byte (a code-point boundary in both strings), and decode from there.
    const std::size_t n = std::min(a.size(), b.size());
    std::size_t start =
        static_cast<std::size_t>(std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin());
    if (start == a.size() && start == b.size()) {
        return 0;
    }
    while (start > 0 && static_cast<unsigned char>(a[start - 1]) >= 0x80) {
        --start;
    }
    std::size_t i = start;
    std::size_t j = start;
    while (i < a.size() && j < b.size()) {
        if (a[i] == b[j] && static_cast<unsigned char>(a[i]) < 0x80) {
            ++i;
            ++j;
            continue;
        }
        const std::uint32_t ca = next_code_point(a, i);
        const std::uint32_t cb = next_code_point(b, j);
        if (ca == cb) {
            continue;
        }
        auto first_unit = [](std::uint32_t cp) {
            return cp >= 0x10000 ? 0xD800 + ((cp - 0x10000) >> 10) : cp;
        };
        const std::uint32_t ua = first_unit(ca);
        const std::uint32_t ub = first_unit(cb);
        if (ua != ub) {
            return ua < ub ? -1 : 1;
        }
        return ca < cb ? -1 : 1;  // same high surrogate: low surrogates order like code points
    }
    const bool a_done = i >= a.size();
    const bool b_done = j >= b.size();
    if (a_done && b_done) {
        return 0;
    }
    return a_done ? -1 : 1;
}

}  // namespace detail

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
