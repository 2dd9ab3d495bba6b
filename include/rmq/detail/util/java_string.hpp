#pragma once

/// @file detail/util/java_string.hpp
/// Java's String order for UTF-8 text (MessageQueue's compareTo, and everything else ordered like Java),
/// Boolean.parseBoolean and Long.parseLong.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rmq::detail {

/// Boolean.parseBoolean: "true" in any case, else false.
inline bool parse_java_boolean(std::string_view text) noexcept {
    constexpr std::string_view t = "true";
    return text.size() == t.size() &&
           std::equal(text.begin(), text.end(), t.begin(), [](char a, char b) { return (a | 0x20) == b; });
}

/// Long.parseLong: an optional sign and decimal digits that fit 64 bits; nullopt where Java throws.
inline std::optional<std::int64_t> parse_java_long(std::string_view text) noexcept {
    if (text.size() > 1 && text.front() == '+') {
        text.remove_prefix(1);  // from_chars takes '-' but not '+'
    }
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return v;
}

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
    // Queues of one topic are compared on every offset-table update: equal names (the usual case) are
    // answered by one memcmp; else skip the equal prefix bytewise, back to just after its last ASCII byte (a
    // code-point boundary in both strings), and decode from there.
    if (a == b) {
        return 0;
    }
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

}  // namespace rmq::detail
