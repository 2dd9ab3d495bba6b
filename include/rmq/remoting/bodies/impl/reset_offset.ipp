#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/remoting/bodies/reset_offset.hpp>
#include <rmq/remoting/codec_error.hpp>

#include <rmq/detail/wire/body_json.hpp>
#include <rmq/detail/wire/java_hash.hpp>
#include <rmq/detail/wire/json.hpp>

namespace rmq::remoting {

namespace detail {

/// Index just past the JSON value starting at `i` (strings, nesting and fastjson object keys respected).
inline std::size_t skip_json_value(std::string_view s, std::size_t i, std::string_view what) {
    int depth = 0;
    bool in_string = false;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
                if (depth == 0) {
                    return i + 1;
                }
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0) {
                return i;  // end of the enclosing container: a scalar ended here
            }
            if (--depth == 0) {
                return i + 1;
            }
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    if (depth != 0 || in_string) {
        throw CodecError(fmt::format("{}: unterminated JSON value", what));
    }
    return i;
}

inline std::size_t skip_ws(std::string_view s, std::size_t i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) {
        ++i;
    }
    return i;
}

[[noreturn]] inline void reset_body_error(std::string_view problem, std::size_t at) {
    throw CodecError(fmt::format("ResetOffsetBody: {} at byte {}", problem, at));
}

}  // namespace detail

namespace detail {

using Offsets = std::vector<std::pair<MessageQueue, std::int64_t>>;
constexpr std::string_view reset_offset_what = "ResetOffsetBody";

/// Java's default form: `{mq:offset,...}` with MessageQueue objects as keys; `base` is the position of
/// `value` in the body, for error messages.
inline void read_object_keys_table(std::string_view value, std::size_t base, Offsets& out) {
    std::size_t k = 1;
    while (true) {
        k = detail::skip_ws(value, k);
        if (k >= value.size()) {
            detail::reset_body_error("unterminated offsetTable", base + k);
        }
        if (value[k] == '}') {
            return;
        }
        if (value[k] == ',') {
            ++k;
            continue;
        }
        const std::size_t mq_end = detail::skip_json_value(value, k, reset_offset_what);
        const MessageQueue mq = detail::parse_message_queue(
            rmq::detail::parse_fastjson(value.substr(k, mq_end - k), reset_offset_what), reset_offset_what);
        k = detail::skip_ws(value, mq_end);
        if (k >= value.size() || value[k] != ':') {
            detail::reset_body_error("expected ':' after a MessageQueue key", base + k);
        }
        k = detail::skip_ws(value, k + 1);
        const std::size_t num_end = detail::skip_json_value(value, k, reset_offset_what);
        const auto num = rmq::detail::parse_fastjson(value.substr(k, num_end - k), reset_offset_what);
        if (!num.is_number_integer()) {
            detail::reset_body_error("offset is not an integer", base + k);
        }
        out.emplace_back(mq, num.get<std::int64_t>());
        k = num_end;
    }
}

/// The value of `offsetTable` in either form (or null).
inline void read_offset_table(std::string_view value, std::size_t base, Offsets& out) {
    if (!value.empty() && value.front() == '[') {
        for (const auto& e : rmq::detail::parse_fastjson(value, reset_offset_what)) {
            out.emplace_back(detail::parse_message_queue(e, reset_offset_what),
                             detail::get_int<std::int64_t>(e, "offset", reset_offset_what));
        }
    } else if (!value.empty() && value.front() == '{') {
        read_object_keys_table(value, base, out);
    } else if (value != "null") {
        detail::reset_body_error("offsetTable is neither an object nor a list", base);
    }
}

}  // namespace detail

RMQ_DECL std::vector<std::pair<MessageQueue, std::int64_t>> decode_reset_offset_body(std::string_view json) {
    detail::Offsets out;
    std::size_t i = detail::skip_ws(json, 0);
    if (i >= json.size() || json[i] != '{') {
        detail::reset_body_error("expected '{'", i);
    }
    ++i;
    while (true) {
        i = detail::skip_ws(json, i);
        if (i >= json.size()) {
            detail::reset_body_error("unexpected end", i);
        }
        if (json[i] == '}') {
            return out;
        }
        if (json[i] == ',') {
            ++i;
            continue;
        }
        const std::size_t key_end = detail::skip_json_value(json, i, detail::reset_offset_what);
        const auto key = detail::parse_object("{" + std::string(json.substr(i, key_end - i)) + ":0}",
                                              detail::reset_offset_what);
        i = detail::skip_ws(json, key_end);
        if (i >= json.size() || json[i] != ':') {
            detail::reset_body_error("expected ':'", i);
        }
        i = detail::skip_ws(json, i + 1);
        const std::size_t value_end = detail::skip_json_value(json, i, detail::reset_offset_what);
        if (key.begin().key() == "offsetTable") {
            detail::read_offset_table(json.substr(i, value_end - i), i, out);
        }
        i = value_end;
    }
}

RMQ_DECL std::string encode_reset_offset_body(std::span<const std::pair<MessageQueue, std::int64_t>> offsets,
                                              ResetOffsetForm form) {
    std::string out = "{\"offsetTable\":";
    out.push_back(form == ResetOffsetForm::ForC ? '[' : '{');
    for (std::size_t n = 0; n < offsets.size(); ++n) {
        const auto& [mq, offset] = offsets[n];
        if (n != 0) {
            out.push_back(',');
        }
        if (form == ResetOffsetForm::ForC) {
            bool f = true;
            out.push_back('{');
            detail::put_string(out, "brokerName", mq.broker_name, f);
            detail::put_int(out, "offset", offset, f);
            detail::put_int(out, "queueId", mq.queue_id, f);
            detail::put_string(out, "topic", mq.topic, f);
            out.push_back('}');
        } else {
            detail::append_message_queue(out, mq);
            out.append(fmt::format(":{}", offset));
        }
    }
    out.push_back(form == ResetOffsetForm::ForC ? ']' : '}');
    out.push_back('}');
    return out;
}

}  // namespace rmq::remoting
