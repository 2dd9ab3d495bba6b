#pragma once

/// @file detail/wire/json.hpp
/// JSON text exactly as fastjson writes it (RocketMQ's Java JSON library), and a normaliser that turns
/// fastjson's lenient output (unquoted integer map keys, raw control bytes in strings) into standard JSON
/// for nlohmann-json.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/message_queue.hpp>
#include <rmq/remoting/codec_error.hpp>

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

/// Appends `s` (UTF-8) as a quoted JSON string with fastjson's escaping rules.
inline void append_json_string(std::string& out, std::string_view s, JsonEscape mode = JsonEscape::Default) {
    out.push_back('"');
    std::size_t i = 0;
    while (i < s.size()) {
        const auto b = static_cast<unsigned char>(s[i]);
        if (b < 0x80) {
            ++i;
            switch (b) {
            case '"':
                out.append("\\\"");
                continue;
            case '\\':
                out.append("\\\\");
                continue;
            case '\b':
                out.append("\\b");
                continue;
            case '\t':
                out.append("\\t");
                continue;
            case '\n':
                out.append("\\n");
                continue;
            case '\f':
                out.append("\\f");
                continue;
            case '\r':
                out.append("\\r");
                continue;
            case '/':
                if (mode == JsonEscape::BrowserCompatible) {
                    out.append("\\/");
                    continue;
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

/// Rewrites fastjson output into standard JSON: object keys that are bare integers (fastjson writes
/// `Map<Long,String>` keys unquoted, e.g. TopicRouteData.brokerAddrs) get quoted, raw control bytes inside
/// strings get escaped. Standard JSON passes through unchanged.
inline std::string normalize_fastjson(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 16);
    bool in_string = false;
    bool expect_key = false;  // just after '{' or ',' inside an object
    std::string containers;   // stack of '{' / '['
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\' && i + 1 < text.size()) {
                out.push_back(c);
                out.push_back(text[++i]);
                continue;
            }
            if (c == '"') {
                in_string = false;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                out.append(fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c))));
                continue;
            }
            out.push_back(c);
            continue;
        }
        switch (c) {
        case '"':
            in_string = true;
            expect_key = false;
            out.push_back(c);
            continue;
        case '{':
            containers.push_back('{');
            expect_key = true;
            out.push_back(c);
            continue;
        case '[':
            containers.push_back('[');
            expect_key = false;
            out.push_back(c);
            continue;
        case '}':
        case ']':
            if (!containers.empty()) {
                containers.pop_back();
            }
            expect_key = false;
            out.push_back(c);
            continue;
        case ',':
            expect_key = !containers.empty() && containers.back() == '{';
            out.push_back(c);
            continue;
        default:
            break;
        }
        if (expect_key && (c == '-' || (c >= '0' && c <= '9'))) {
            std::size_t j = i + 1;
            while (j < text.size() && text[j] >= '0' && text[j] <= '9') {
                ++j;
            }
            std::size_t k = j;
            while (k < text.size() &&
                   (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) {
                ++k;
            }
            if (k < text.size() && text[k] == ':') {
                out.push_back('"');
                out.append(text.substr(i, j - i));
                out.push_back('"');
                i = j - 1;
                expect_key = false;
                continue;
            }
        }
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            expect_key = false;
        }
        out.push_back(c);
    }
    return out;
}

/// Parses fastjson text (standard JSON or fastjson's lenient variant), keeping object member order.
/// Throws rmq::remoting::CodecError naming `what` on malformed text.
inline nlohmann::ordered_json parse_fastjson(std::string_view text, std::string_view what) {
    try {
        return nlohmann::ordered_json::parse(normalize_fastjson(text));
    } catch (const nlohmann::json::exception& e) {
        throw remoting::CodecError(fmt::format("{}: malformed JSON: {}", what, e.what()));
    }
}

}  // namespace rmq::detail
