#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/remoting/command.hpp>

#include <rmq/detail/wire/bytes.hpp>
#include <rmq/detail/wire/json.hpp>

namespace rmq::remoting {

RMQ_DECL std::string_view language_name(LanguageCode code) noexcept {
    static constexpr std::string_view names[] = {"JAVA",
                                                 "CPP",
                                                 "DOTNET",
                                                 "PYTHON",
                                                 "DELPHI",
                                                 "ERLANG",
                                                 "RUBY",
                                                 "OTHER",
                                                 "HTTP",
                                                 "GO",
                                                 "PHP",
                                                 "OMS",
                                                 "RUST",
                                                 "NODE_JS"};
    const auto i = static_cast<std::size_t>(code);
    return i < std::size(names) ? names[i] : std::string_view{};
}

RMQ_DECL std::optional<LanguageCode> language_from_name(std::string_view name) noexcept {
    for (std::uint8_t i = 0; i <= static_cast<std::uint8_t>(LanguageCode::NodeJs); ++i) {
        if (language_name(static_cast<LanguageCode>(i)) == name) {
            return static_cast<LanguageCode>(i);
        }
    }
    return std::nullopt;
}

namespace detail {

inline void encode_json_header(const Command& cmd, std::string& out) {
    const std::string_view lang = language_name(cmd.language);
    if (lang.empty()) {
        throw CodecError(fmt::format("RemotingCommand JSON header: language code {} has no Java name",
                                     static_cast<unsigned>(cmd.language)));
    }
    // fastjson writes bean properties sorted by name and omits nulls; extFields values are strings in map
    // order.
    fmt::format_to(std::back_inserter(out), "{{\"code\":{}", cmd.code);  // no temporary string per part
    if (cmd.ext_fields) {
        out.append(",\"extFields\":{");
        bool first = true;
        for (const auto& [key, value] : *cmd.ext_fields) {
            if (!value) {
                continue;  // fastjson skips null map values
            }
            if (!first) {
                out.push_back(',');
            }
            first = false;
            rmq::detail::append_json_string(out, key);
            out.push_back(':');
            rmq::detail::append_json_string(out, *value);
        }
        out.push_back('}');
    }
    fmt::format_to(
        std::back_inserter(out), R"(,"flag":{},"language":"{}","opaque":{})", cmd.flag, lang, cmd.opaque);
    if (cmd.remark) {
        out.append(",\"remark\":");
        rmq::detail::append_json_string(out, *cmd.remark);
    }
    fmt::format_to(
        std::back_inserter(out), R"(,"serializeTypeCurrentRPC":"JSON","version":{}}})", cmd.version);
}

inline std::int16_t checked_i16(std::int32_t v, std::string_view field) {
    if (v < std::numeric_limits<std::int16_t>::min() || v > std::numeric_limits<std::int16_t>::max()) {
        throw CodecError(fmt::format(
            "RemotingCommand ROCKETMQ header: {} {} does not fit the header's int16 (use the JSON header)",
            field,
            v));
    }
    return static_cast<std::int16_t>(v);
}

inline std::int32_t checked_len(std::size_t n, std::string_view field) {
    if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        throw CodecError(fmt::format("RemotingCommand: {} of {} bytes is too long", field, n));
    }
    return static_cast<std::int32_t>(n);
}

inline void encode_rocketmq_header(const Command& cmd, std::string& out) {
    rmq::detail::ByteWriter w(out);
    w.i16(checked_i16(cmd.code, "code"));
    w.u8(static_cast<std::uint8_t>(cmd.language));
    w.i16(checked_i16(cmd.version, "version"));
    w.i32(cmd.opaque);
    w.i32(cmd.flag);
    const std::string_view remark = cmd.remark ? std::string_view(*cmd.remark) : std::string_view{};
    w.i32(checked_len(remark.size(), "remark"));
    w.bytes(remark);
    const std::size_t ext_len_pos = w.size();
    w.i32(0);
    if (cmd.ext_fields) {
        for (const auto& [key, value] : *cmd.ext_fields) {
            if (!value) {
                continue;  // RocketMQSerializable skips null keys and values
            }
            if (key.size() > static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max())) {
                throw CodecError(
                    fmt::format("RemotingCommand ROCKETMQ header: ext field key of {} bytes is longer "
                                "than the int16 key length allows",
                                key.size()));
            }
            w.i16(static_cast<std::int16_t>(key.size()));
            w.bytes(key);
            w.i32(checked_len(value->size(), "ext field value"));
            w.bytes(*value);
        }
    }
    w.patch_i32(ext_len_pos, checked_len(w.size() - ext_len_pos - 4, "ext fields"));
}

inline std::int32_t json_int(const nlohmann::ordered_json& j, std::string_view key) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        return 0;
    }
    if (it->is_number_integer()) {
        const auto v = it->get<std::int64_t>();
        if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) {
            throw CodecError(fmt::format("RemotingCommand JSON header: {} {} is out of int range", key, v));
        }
        return static_cast<std::int32_t>(v);
    }
    if (it->is_string()) {
        // fastjson converts numeric strings for int fields; accept them as well.
        const auto& s = it->get_ref<const std::string&>();
        try {
            std::size_t used = 0;
            const long long v = std::stoll(s, &used);
            if (used == s.size() && v >= std::numeric_limits<std::int32_t>::min() &&
                v <= std::numeric_limits<std::int32_t>::max()) {
                return static_cast<std::int32_t>(v);
            }
        } catch (const std::exception&) {
        }
    }
    throw CodecError(fmt::format(
        "RemotingCommand JSON header: {} is not an int: {}", key, rmq::detail::describe_json(*it)));
}

inline std::string json_scalar_text(const nlohmann::ordered_json& v) {
    if (v.is_string()) {
        return v.get<std::string>();
    }
    return v.dump();  // fastjson turns numbers and booleans of a Map<String,String> into their text
}

/// A reader of the JSON that brokers write in their headers: strings without escapes, control or non-ASCII
/// bytes, plain integers, null. Every method answers false / none where the text leaves that subset.
class PlainJson {
public:
    explicit PlainJson(std::string_view text)
        : text_(text) {}

    bool eat(char c) {
        skip_space();
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }

    bool null() {
        skip_space();
        if (text_.substr(at_, 4) == "null") {
            at_ += 4;
            return true;
        }
        return false;
    }

    std::optional<std::string_view> string() {
        if (!eat('"')) {
            return std::nullopt;
        }
        const std::size_t from = at_;
        for (; at_ < text_.size(); ++at_) {
            const auto c = static_cast<unsigned char>(text_[at_]);
            if (c == '"') {
                return text_.substr(from, at_++ - from);
            }
            if (c == '\\' || c < 0x20 || c >= 0x80) {
                return std::nullopt;
            }
        }
        return std::nullopt;
    }

    std::optional<std::int32_t> integer() {
        skip_space();
        const std::size_t from = at_;
        const bool negative = at_ < text_.size() && text_[at_] == '-';
        at_ += negative ? 1 : 0;
        std::int64_t v = 0;
        std::size_t digits = 0;
        for (; at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9' && digits < 11; ++at_, ++digits) {
            v = v * 10 + (text_[at_] - '0');
        }
        const bool leading_zero = digits > 1 && text_[from + (negative ? 1 : 0)] == '0';
        if (digits == 0 || digits > 10 || leading_zero ||
            (at_ < text_.size() && (text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E'))) {
            return std::nullopt;
        }
        v = negative ? -v : v;
        if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) {
            return std::nullopt;
        }
        return static_cast<std::int32_t>(v);
    }

    /// A scalar of the subset, skipped.
    bool skip_scalar() {
        if (null() || string() || integer()) {
            return true;
        }
        skip_space();
        return word("true") || word("false");
    }

    bool at_end() {
        skip_space();
        return at_ == text_.size();
    }

private:
    bool word(std::string_view w) {
        if (text_.substr(at_, w.size()) == w) {
            at_ += w.size();
            return true;
        }
        return false;
    }

    void skip_space() {
        while (at_ < text_.size() &&
               (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
            ++at_;
        }
    }

    std::string_view text_;
    std::size_t at_ = 0;
};

inline bool decode_plain_ext_fields(PlainJson& p, Command& cmd) {
    ExtFields& fields = cmd.fields();
    if (!p.eat('{')) {
        return false;
    }
    if (p.eat('}')) {
        return true;
    }
    do {
        const auto key = p.string();
        if (!key || !p.eat(':')) {
            return false;
        }
        if (p.null()) {
            fields.set(*key, std::nullopt);
        } else if (const auto value = p.string()) {
            fields.set(*key, std::string(*value));
        } else {
            return false;
        }
    } while (p.eat(','));
    return p.eat('}');
}

inline bool decode_plain_member(PlainJson& p, std::string_view key, Command& cmd, bool& ext_seen) {
    if (key == "code" || key == "version" || key == "opaque" || key == "flag") {
        const auto v = p.integer();
        if (!v) {
            return false;
        }
        (key == "code"      ? cmd.code
         : key == "version" ? cmd.version
         : key == "opaque"  ? cmd.opaque
                            : cmd.flag) = *v;
        return true;
    }
    if (key == "language") {
        const auto name = p.string();
        const auto lang = name ? language_from_name(*name) : std::nullopt;
        if (lang) {
            cmd.language = *lang;
        }
        return lang.has_value();
    }
    if (key == "remark") {
        if (p.null()) {
            cmd.remark.reset();
            return true;
        }
        const auto text = p.string();
        if (text) {
            cmd.remark = std::string(*text);
        }
        return text.has_value();
    }
    if (key == "extFields") {
        // a second extFields replaces the first in the full parser: left to it
        return !std::exchange(ext_seen, true) && !p.null() && decode_plain_ext_fields(p, cmd);
    }
    return p.skip_scalar();  // a member the header has no field for (serializeTypeCurrentRPC)
}

/// The JSON header as brokers write it, without building a JSON tree (one per answer otherwise); none when
/// the text leaves PlainJson's subset: then the full parser decodes it, or names what is wrong with it.
inline std::optional<Command> decode_plain_json_header(std::string_view header) {
    PlainJson p(header);
    Command cmd;
    cmd.code = cmd.version = cmd.opaque = cmd.flag = 0;  // what an absent member means (Command has defaults)
    cmd.language = LanguageCode::Java;
    bool ext_seen = false;
    if (!p.eat('{')) {
        return std::nullopt;
    }
    if (!p.eat('}')) {
        do {
            const auto key = p.string();
            if (!key || !p.eat(':') || !decode_plain_member(p, *key, cmd, ext_seen)) {
                return std::nullopt;
            }
        } while (p.eat(','));
        if (!p.eat('}')) {
            return std::nullopt;
        }
    }
    if (!p.at_end()) {
        return std::nullopt;
    }
    return cmd;
}

inline Command decode_json_header(std::string_view header) {
    if (auto plain = decode_plain_json_header(header)) {
        return std::move(*plain);
    }
    const auto j = rmq::detail::parse_fastjson(header, "RemotingCommand JSON header");
    if (!j.is_object()) {
        throw CodecError("RemotingCommand JSON header: not a JSON object");
    }
    Command cmd;
    cmd.code = json_int(j, "code");
    cmd.version = json_int(j, "version");
    cmd.opaque = json_int(j, "opaque");
    cmd.flag = json_int(j, "flag");
    cmd.language = LanguageCode::Java;
    if (const auto it = j.find("language"); it != j.end() && !it->is_null()) {
        if (it->is_number_integer()) {
            cmd.language = static_cast<LanguageCode>(it->get<std::uint8_t>());
        } else if (it->is_string()) {
            const auto lang = language_from_name(it->get_ref<const std::string&>());
            if (!lang) {
                throw CodecError(fmt::format("RemotingCommand JSON header: unknown language {}",
                                             rmq::detail::describe_json(*it)));
            }
            cmd.language = *lang;
        } else {
            throw CodecError(
                fmt::format("RemotingCommand JSON header: bad language {}", rmq::detail::describe_json(*it)));
        }
    }
    if (const auto it = j.find("remark"); it != j.end() && !it->is_null()) {
        cmd.remark = json_scalar_text(*it);
    }
    if (const auto it = j.find("extFields"); it != j.end() && !it->is_null()) {
        if (!it->is_object()) {
            throw CodecError(fmt::format("RemotingCommand JSON header: extFields is not an object: {}",
                                         rmq::detail::describe_json(*it)));
        }
        ExtFields& fields = cmd.fields();
        for (const auto& [key, value] : it->items()) {
            if (value.is_null()) {
                fields.set(key, std::nullopt);
            } else if (value.is_object() || value.is_array()) {
                fields.set(key, value.dump());
            } else {
                fields.set(key, json_scalar_text(value));
            }
        }
    }
    return cmd;
}

inline Command decode_rocketmq_header(std::span<const std::byte> header) {
    rmq::detail::ByteReader r(header, "RemotingCommand ROCKETMQ header");
    Command cmd;
    cmd.code = r.i16("code");
    cmd.language = static_cast<LanguageCode>(r.u8("language"));
    cmd.version = r.i16("version");
    cmd.opaque = r.i32("opaque");
    cmd.flag = r.i32("flag");
    if (const std::size_t n = r.length_i32("remark length"); n > 0) {
        cmd.remark = std::string(r.bytes(n, "remark"));
    }
    const std::size_t ext_len = r.length_i32("ext fields length");
    if (ext_len > 0) {
        rmq::detail::ByteReader ext(header.subspan(r.position(), ext_len),
                                    "RemotingCommand ROCKETMQ ext fields");
        r.skip(ext_len, "ext fields");
        ExtFields& fields = cmd.fields();
        while (ext.remaining() > 0) {
            std::string key(ext.bytes(ext.length_i16("key length"), "key"));
            const std::size_t vlen = ext.length_i32("value length");
            if (vlen == 0) {
                fields.set(key, std::nullopt);  // Java decodes a zero-length string as null
            } else {
                fields.set(key, std::string(ext.bytes(vlen, "value")));
            }
        }
    }
    if (r.remaining() != 0) {
        r.fail(fmt::format("{} unexpected bytes after the ext fields", r.remaining()));
    }
    return cmd;
}

}  // namespace detail

RMQ_DECL std::string encode(const Command& cmd, SerializeType type) {
    std::string out;
    out.reserve(128 + cmd.body.size());
    out.append(8, '\0');
    if (type == SerializeType::Json) {
        detail::encode_json_header(cmd, out);
    } else if (type == SerializeType::RocketMQ) {
        detail::encode_rocketmq_header(cmd, out);
    } else {
        throw CodecError(
            fmt::format("RemotingCommand: unknown serialize type {}", static_cast<unsigned>(type)));
    }
    const std::size_t header_len = out.size() - 8;
    if (header_len > 0xFFFFFFU) {
        throw CodecError(
            fmt::format("RemotingCommand: header of {} bytes exceeds the 24-bit header length", header_len));
    }
    out.append(cmd.body);
    if (out.size() > max_frame_length) {
        throw CodecError(fmt::format("RemotingCommand: frame of {} bytes exceeds the {} bytes a peer accepts",
                                     out.size(),
                                     max_frame_length));
    }
    rmq::detail::ByteWriter w(out);
    w.patch_i32(0, static_cast<std::int32_t>(out.size() - 4));
    w.patch_i32(4, static_cast<std::int32_t>((static_cast<std::uint32_t>(type) << 24) | header_len));
    return out;
}

RMQ_DECL SerializeType request_serialize_type(const Command& request, SerializeType configured) noexcept {
    const bool fits = request.code >= std::numeric_limits<std::int16_t>::min() &&
                      request.code <= std::numeric_limits<std::int16_t>::max();
    return fits ? configured : SerializeType::Json;
}

RMQ_DECL std::size_t frame_payload_length(std::span<const std::byte> prefix) {
    rmq::detail::ByteReader r(prefix, "RemotingCommand frame");
    const std::int32_t len = r.i32("length field");
    if (len < 4) {
        throw CodecError(fmt::format("RemotingCommand frame: length field {} is below 4", len));
    }
    if (static_cast<std::size_t>(len) + 4 > max_frame_length) {
        throw CodecError(fmt::format("RemotingCommand frame: {} bytes exceed the maximum frame length {}",
                                     static_cast<std::size_t>(len) + 4,
                                     max_frame_length));
    }
    return static_cast<std::size_t>(len);
}

RMQ_DECL Command decode_payload(std::span<const std::byte> payload) {
    if (payload.size() + 4 > max_frame_length) {
        throw CodecError(fmt::format("RemotingCommand frame: {} bytes exceed the maximum frame length {}",
                                     payload.size() + 4,
                                     max_frame_length));
    }
    rmq::detail::ByteReader r(payload, "RemotingCommand frame");
    const auto word = static_cast<std::uint32_t>(r.i32("header length word"));
    const std::uint32_t type = word >> 24;
    const std::size_t header_len = word & 0xFFFFFFU;
    if (header_len > r.remaining()) {
        r.fail(fmt::format("header length {} exceeds the {} bytes left", header_len, r.remaining()));
    }
    const auto header = payload.subspan(4, header_len);
    Command cmd;
    if (type == static_cast<std::uint32_t>(SerializeType::Json)) {
        cmd = detail::decode_json_header(
            std::string_view(reinterpret_cast<const char*>(header.data()), header.size()));
    } else if (type == static_cast<std::uint32_t>(SerializeType::RocketMQ)) {
        cmd = detail::decode_rocketmq_header(header);
    } else {
        r.fail(fmt::format("unknown serialize type {}", type));
    }
    r.skip(header_len, "header");
    cmd.body = std::string(r.bytes(r.remaining(), "body"));
    cmd.serialize_type = static_cast<SerializeType>(type);
    return cmd;
}

RMQ_DECL Command decode(std::span<const std::byte> frame) {
    const std::size_t len = frame_payload_length(frame);
    if (len != frame.size() - 4) {
        throw CodecError(fmt::format(
            "RemotingCommand frame: length field {} but {} bytes follow it", len, frame.size() - 4));
    }
    return decode_payload(frame.subspan(4));
}

RMQ_DECL Command decode(std::string_view frame) {
    return decode(rmq::detail::as_bytes(frame));
}

}  // namespace rmq::remoting
