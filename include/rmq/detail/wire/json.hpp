#pragma once

/// @file detail/wire/json.hpp
/// JSON text exactly as fastjson writes it (RocketMQ's Java JSON library), and a normaliser that turns
/// fastjson's lenient output (unquoted integer map keys, raw control bytes in strings) into standard JSON
/// for nlohmann-json.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/util/java_string.hpp>

namespace rmq::detail {

/// How strings are escaped. `Default` is fastjson's default (non-ASCII written raw); `BrowserCompatible` is
/// SerializerFeature.BrowserCompatible (every character >= U+007F as \uXXXX), which the NameServer uses
/// for its "standard JSON" route answers.
enum class JsonEscape { Default, BrowserCompatible };

inline void append_unicode_escape(std::string& out, std::uint32_t unit) {
    // fastjson writes the hex digits from IOUtils.DIGITS: uppercase.
    static constexpr char digits[] = "0123456789ABCDEF";
    out.append("\\u");
    out.push_back(digits[(unit >> 12) & 0xF]);
    out.push_back(digits[(unit >> 8) & 0xF]);
    out.push_back(digits[(unit >> 4) & 0xF]);
    out.push_back(digits[unit & 0xF]);
}

/// Appends one ASCII byte of a string value with fastjson's escaping.
inline void append_json_ascii(std::string& out, unsigned char b, JsonEscape mode) {
    switch (b) {
    case '"':
        out.append("\\\"");
        return;
    case '\\':
        out.append("\\\\");
        return;
    case '\b':
        out.append("\\b");
        return;
    case '\t':
        out.append("\\t");
        return;
    case '\n':
        out.append("\\n");
        return;
    case '\f':
        out.append("\\f");
        return;
    case '\r':
        out.append("\\r");
        return;
    case '/':
        if (mode == JsonEscape::BrowserCompatible) {
            out.append("\\/");
            return;
        }
        break;
    default:
        break;
    }
    if (b < 0x20 || b == 0x7F) {
        append_unicode_escape(out, b);
    } else {
        out.push_back(static_cast<char>(b));
    }
}

/// Appends `s` (UTF-8) as a quoted JSON string with fastjson's escaping rules.
inline void append_json_string(std::string& out, std::string_view s, JsonEscape mode = JsonEscape::Default) {
    out.push_back('"');
    std::size_t i = 0;
    while (i < s.size()) {
        const auto b = static_cast<unsigned char>(s[i]);
        if (b < 0x80) {
            ++i;
            append_json_ascii(out, b, mode);
            continue;
        }
        const std::size_t start = i;
        const std::uint32_t cp = next_code_point(s, i);
        // fastjson escapes the C1 controls and U+2028 even in default mode (JavaScript line separator).
        if (mode == JsonEscape::BrowserCompatible || cp < 0xA0 || cp == 0x2028) {
            if (cp >= 0x10000) {
                append_unicode_escape(out, 0xD800 + ((cp - 0x10000) >> 10));
                append_unicode_escape(out, 0xDC00 + ((cp - 0x10000) & 0x3FF));
            } else {
                append_unicode_escape(out, cp);
            }
        } else {
            out.append(s.substr(start, i - start));
        }
    }
    out.push_back('"');
}

/// Deepest nesting of arrays and objects accepted in any JSON rmq receives (headers, bodies). RocketMQ's own
/// bodies nest at most 4 levels; the bound keeps every recursive walk of a parsed value (nlohmann's dump(),
/// destruction, comparisons) far from the stack's end whatever a hostile peer sends.
inline constexpr std::size_t max_json_depth = 64;

/// The state of normalize_fastjson's scan outside strings.
struct FastjsonScan {
    bool in_string = false;
    bool expect_key = false;  // just after '{' or ',' inside an object
    std::string containers;   // stack of '{' / '['
};

/// Copies byte `i` of a string value (an escape pair as is, raw control bytes escaped); returns the last
/// index consumed.
inline std::size_t
normalize_string_byte(std::string_view text, std::size_t i, std::string& out, FastjsonScan& scan) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
        out.push_back(c);
        out.push_back(text[i + 1]);
        return i + 1;
    }
    if (c == '"') {
        scan.in_string = false;
    } else if (static_cast<unsigned char>(c) < 0x20) {
        out.append(fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c))));
        return i;
    }
    out.push_back(c);
    return i;
}

/// Handles a quote or a structural character; false for anything else.
inline bool normalize_structural(char c, std::string& out, FastjsonScan& scan) {
    switch (c) {
    case '"':
        scan.in_string = true;
        scan.expect_key = false;
        break;
    case '{':
    case '[':
        if (scan.containers.size() >= max_json_depth) {
            throw CodecError(fmt::format("JSON nests deeper than {} levels", max_json_depth));
        }
        scan.containers.push_back(c);
        scan.expect_key = c == '{';
        break;
    case '}':
    case ']':
        if (!scan.containers.empty()) {
            scan.containers.pop_back();
        }
        scan.expect_key = false;
        break;
    case ',':
        scan.expect_key = !scan.containers.empty() && scan.containers.back() == '{';
        break;
    default:
        return false;
    }
    out.push_back(c);
    return true;
}

/// If an unquoted integer object key starts at `i`, appends it quoted and returns the index of its last
/// digit.
inline std::optional<std::size_t> quote_integer_key(std::string_view text, std::size_t i, std::string& out) {
    std::size_t j = i + 1;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') {
        ++j;
    }
    std::size_t k = j;
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) {
        ++k;
    }
    if (k >= text.size() || text[k] != ':') {
        return std::nullopt;
    }
    out.push_back('"');
    out.append(text.substr(i, j - i));
    out.push_back('"');
    return j - 1;
}

/// Rewrites fastjson output into standard JSON: object keys that are bare integers (fastjson writes
/// `Map<Long,String>` keys unquoted, e.g. TopicRouteData.brokerAddrs) get quoted, raw control bytes inside
/// strings get escaped. Standard JSON passes through unchanged.
inline std::string normalize_fastjson(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 16);
    FastjsonScan scan;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (scan.in_string) {
            i = normalize_string_byte(text, i, out, scan);
            continue;
        }
        if (normalize_structural(c, out, scan)) {
            continue;
        }
        if (scan.expect_key && (c == '-' || (c >= '0' && c <= '9'))) {
            if (const auto last = quote_integer_key(text, i, out)) {
                i = *last;
                scan.expect_key = false;
                continue;
            }
        }
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            scan.expect_key = false;
        }
        out.push_back(c);
    }
    return out;
}

/// Parses fastjson text (standard JSON or fastjson's lenient variant), keeping object member order.
/// Throws rmq::CodecError naming `what` on malformed text or nesting deeper than max_json_depth.
inline nlohmann::ordered_json parse_fastjson(std::string_view text, std::string_view what) {
    std::string normalized;
    try {
        normalized = normalize_fastjson(text);
    } catch (const CodecError& e) {
        throw CodecError(fmt::format("{}: {}", what, e.what()));
    }
    try {
        return nlohmann::ordered_json::parse(normalized);
    } catch (const nlohmann::json::exception& e) {
        // nlohmann quotes the last token read, which can be megabytes long.
        throw CodecError(fmt::format("{}: malformed JSON: {:.200}", what, e.what()));
    }
}

/// A received value for an error message: scalars as JSON text cut to `max` characters, containers by
/// their kind and size (never their whole text, which a peer controls).
template <typename Json>
std::string describe_json(const Json& v, std::size_t max = 64) {
    if (v.is_array()) {
        return fmt::format("an array of {} elements", v.size());
    }
    if (v.is_object()) {
        return fmt::format("an object of {} members", v.size());
    }
    std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (text.size() > max) {
        text.resize(max);
        text += "...";
    }
    return text;
}

}  // namespace rmq::detail
