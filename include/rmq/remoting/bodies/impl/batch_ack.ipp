#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/remoting/bodies/batch_ack.hpp>
#include <rmq/remoting/codec_error.hpp>

#include <rmq/detail/wire/body_json.hpp>

namespace rmq::remoting {

namespace detail {

inline constexpr std::string_view base64_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Base64 with padding, as fastjson's SerializeWriter.writeByteArray writes a byte[].
inline std::string base64(const std::vector<std::uint8_t>& in) {
    std::string out;
    for (std::size_t i = 0; i < in.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, in.size() - i);
        std::uint32_t v = std::uint32_t{in[i]} << 16;
        v |= n > 1 ? std::uint32_t{in[i + 1]} << 8 : 0;
        v |= n > 2 ? std::uint32_t{in[i + 2]} : 0;
        for (std::size_t k = 0; k < 4; ++k) {
            out.push_back(k <= n ? base64_alphabet[(v >> (18 - 6 * k)) & 0x3F] : '=');
        }
    }
    return out;
}

inline std::vector<std::uint8_t> unbase64(std::string_view in, std::string_view what) {
    std::vector<std::uint8_t> out;
    std::uint32_t v = 0;
    int bits = 0;
    for (const char c : in) {
        if (c == '=') {
            break;
        }
        const auto pos = base64_alphabet.find(c);
        if (pos == std::string_view::npos) {
            throw CodecError(fmt::format("{}: bit set \"{}\" is not base64", what, in));
        }
        v = (v << 6) | static_cast<std::uint32_t>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<std::uint8_t>((v >> bits) & 0xFF));
        }
    }
    return out;
}

/// BitSet.toByteArray(): little-endian, up to the byte of the highest set bit.
inline std::vector<std::uint8_t> java_bitset_bytes(const std::vector<std::int32_t>& bits) {
    std::vector<std::uint8_t> out;
    for (const auto b : bits) {
        const auto byte = static_cast<std::size_t>(b) / 8;
        if (out.size() <= byte) {
            out.resize(byte + 1);
        }
        out[byte] = static_cast<std::uint8_t>(out[byte] | (1U << (b % 8)));
    }
    return out;
}

/// BitSet.valueOf(bytes): its set bits, ascending; bounded by BatchAckRequest::max_bit.
inline std::vector<std::int32_t> java_bitset_bits(const std::vector<std::uint8_t>& bytes,
                                                  std::string_view what) {
    if (static_cast<std::int64_t>(bytes.size()) * 8 > BatchAckRequest::max_bit + 1) {
        throw CodecError(fmt::format("{}: a bit set of {} bytes is over the limit", what, bytes.size()));
    }
    std::vector<std::int32_t> out;
    for (std::size_t i = 0; i < bytes.size() * 8; ++i) {
        if ((bytes[i / 8] >> (i % 8)) & 1U) {
            out.push_back(static_cast<std::int32_t>(i));
        }
    }
    return out;
}

/// A field under its @JSONField name, else its alternate (Java) name.
inline const Json* batch_ack_field(const Json& j, std::string_view name, std::string_view alternate) {
    const Json* v = member(j, name);
    return v != nullptr ? v : member(j, alternate);
}

inline void append_batch_ack(std::string& out, const BatchAck& a) {
    // fastjson sorts the fields by their @JSONField names.
    bool first = true;
    out.push_back('{');
    put_string(out, "b", base64(java_bitset_bytes(a.bits)), first);
    put_string(out, "c", a.consumer_group, first);
    put_int(out, "it", a.invisible_time, first);
    put_int(out, "pt", a.pop_time, first);
    put_int(out, "q", a.queue_id, first);
    put_string(out, "r", a.retry, first);
    put_int(out, "rq", a.revive_queue_id, first);
    put_int(out, "so", a.start_offset, first);
    put_string(out, "t", a.topic, first);
    out.push_back('}');
}

inline BatchAck parse_batch_ack(const Json& j, std::string_view what) {
    if (!j.is_object()) {
        throw CodecError(fmt::format("{}: an ack is not an object", what));
    }
    // Each field under its short name, else its long one: one object holding either.
    Json one = Json::object();
    constexpr std::array<std::pair<std::string_view, std::string_view>, 9> names{{{"c", "consumerGroup"},
                                                                                  {"t", "topic"},
                                                                                  {"r", "retry"},
                                                                                  {"so", "startOffset"},
                                                                                  {"q", "queueId"},
                                                                                  {"rq", "reviveQueueId"},
                                                                                  {"pt", "popTime"},
                                                                                  {"it", "invisibleTime"},
                                                                                  {"b", "bitSet"}}};
    for (const auto& [name, alternate] : names) {
        if (const Json* v = batch_ack_field(j, name, alternate)) {
            one[std::string(name)] = *v;
        }
    }
    BatchAck a;
    a.consumer_group = get_string(one, "c", what);
    a.topic = get_string(one, "t", what);
    a.retry = get_string(one, "r", what);
    a.start_offset = get_int<std::int64_t>(one, "so", what);
    a.queue_id = get_int<std::int32_t>(one, "q", what);
    a.revive_queue_id = get_int<std::int32_t>(one, "rq", what);
    a.pop_time = get_int<std::int64_t>(one, "pt", what);
    a.invisible_time = get_int<std::int64_t>(one, "it", what);
    a.bits = java_bitset_bits(unbase64(get_string(one, "b", what), what), what);
    return a;
}

}  // namespace detail

RMQ_DECL std::string encode_batch_ack_request(const BatchAckRequest& body) {
    std::string out = "{";
    bool first = true;
    detail::put_key(out, "acks", first);
    out.push_back('[');
    for (std::size_t i = 0; i < body.acks.size(); ++i) {
        if (i != 0) {
            out.push_back(',');
        }
        detail::append_batch_ack(out, body.acks[i]);
    }
    out.push_back(']');
    if (body.broker_name) {
        detail::put_string(out, "brokerName", *body.broker_name, first);
    }
    out.push_back('}');
    return out;
}

RMQ_DECL BatchAckRequest decode_batch_ack_request(std::string_view json) {
    constexpr std::string_view what = "BatchAckMessageRequestBody";
    const auto j = detail::parse_object(json, what);
    BatchAckRequest out;
    if (detail::member(j, "brokerName") != nullptr) {
        out.broker_name = detail::get_string(j, "brokerName", what);
    }
    if (const auto* acks = detail::get_array(j, "acks", what)) {
        for (const auto& a : *acks) {
            out.acks.push_back(detail::parse_batch_ack(a, what));
        }
    }
    return out;
}

}  // namespace rmq::remoting
