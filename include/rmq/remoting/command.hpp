#pragma once

/// @file remoting/command.hpp
/// rmq::remoting::Command (Java's RemotingCommand) and its frame codec: the length-prefixed frame with a JSON
/// or ROCKETMQ binary header, byte for byte as Apache RocketMQ writes it.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/config.hpp>
#include <rmq/remoting/codec_error.hpp>

#include <rmq/detail/wire/bytes.hpp>

namespace rmq::remoting {

/// Java's LanguageCode (the byte value is the binary header's encoding; JSON uses the name).
enum class LanguageCode : std::uint8_t {
    Java = 0,
    Cpp = 1,
    Dotnet = 2,
    Python = 3,
    Delphi = 4,
    Erlang = 5,
    Ruby = 6,
    Other = 7,
    Http = 8,
    Go = 9,
    Php = 10,
    Oms = 11,
    Rust = 12,
    NodeJs = 13,
};

/// Java's SerializeType: how the header of a frame is written (high byte of the header-length word).
enum class SerializeType : std::uint8_t { Json = 0, RocketMQ = 1 };

/// Java enum name of a LanguageCode (`"CPP"`...); empty for a value Java does not know.
std::string_view language_name(LanguageCode code) noexcept;

/// The LanguageCode with Java enum name `name`, if any.
std::optional<LanguageCode> language_from_name(std::string_view name) noexcept;

/// MQVersion ordinals that matter on the wire.
namespace version {
/// V4_9_4: NameServers answer routes with standard JSON from this request version on.
inline constexpr std::int32_t v4_9_4 = 401;
/// V4_9_7 (what the golden vectors were generated with).
inline constexpr std::int32_t v4_9_7 = 407;
/// V4_9_8: what rmq sends (standard-JSON routes, below the 5.3 GO_AWAY threshold).
inline constexpr std::int32_t v4_9_8 = 409;
}  // namespace version

/// RemotingCommand flag bits.
namespace command_flag {
inline constexpr std::int32_t response = 0x1;
inline constexpr std::int32_t oneway = 0x2;
}  // namespace command_flag

/// Largest frame a Java peer accepts: Netty's LengthFieldBasedFrameDecoder(16 MiB, 0, 4, 0, 4) counts the
/// 4-byte length field too, so the length field itself may be at most this minus 4.
inline constexpr std::size_t max_frame_length = 16U * 1024U * 1024U;

/// RemotingCommand.extFields: a string map that keeps insertion order (so frames can be reproduced byte for
/// byte) and, like Java's HashMap, may map a key to null (the binary header decodes "" as null).
class ExtFields {
public:
    using Entry = std::pair<std::string, std::optional<std::string>>;

    ExtFields() = default;

    ExtFields(std::initializer_list<std::pair<std::string_view, std::string_view>> init) {
        for (const auto& [k, v] : init) {
            set(k, std::string(v));
        }
    }

    /// Java's HashMap.put: replaces the value of an existing key in place, else appends.
    void set(std::string_view key, std::optional<std::string> value) {
        if (auto* e = find(key)) {
            e->second = std::move(value);
        } else {
            entries_.emplace_back(std::string(key), std::move(value));
        }
    }

    /// The value of `key`; nullopt when absent or null.
    [[nodiscard]] std::optional<std::string_view> get(std::string_view key) const noexcept {
        if (const auto* e = find(key); e != nullptr && e->second) {
            return std::string_view(*e->second);
        }
        return std::nullopt;
    }

    /// Whether `key` is present (possibly mapped to null).
    [[nodiscard]] bool contains(std::string_view key) const noexcept { return find(key) != nullptr; }

    /// Removes `key`; returns whether it was present.
    bool erase(std::string_view key) {
        const auto it =
            std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.first == key; });
        if (it == entries_.end()) {
            return false;
        }
        entries_.erase(it);
        return true;
    }

    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

    [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }

    [[nodiscard]] auto begin() const noexcept { return entries_.begin(); }

    [[nodiscard]] auto end() const noexcept { return entries_.end(); }

    /// Same keys and values, in any order (Java compares HashMaps the same way).
    friend bool operator==(const ExtFields& a, const ExtFields& b) {
        if (a.size() != b.size()) {
            return false;
        }
        return std::all_of(a.begin(), a.end(), [&](const Entry& e) {
            const Entry* other = b.find(e.first);
            return other != nullptr && other->second == e.second;
        });
    }

private:
    [[nodiscard]] const Entry* find(std::string_view key) const noexcept {
        for (const auto& e : entries_) {
            if (e.first == key) {
                return &e;
            }
        }
        return nullptr;
    }

    // One lookup for both overloads; this object is not const.
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast)
    Entry* find(std::string_view key) noexcept { return const_cast<Entry*>(std::as_const(*this).find(key)); }

    std::vector<Entry> entries_;
};

/// One request or response (Java's RemotingCommand after makeCustomHeaderToNet: typed headers are already
/// flattened into ext_fields, see rmq/remoting/headers/fields.hpp).
struct Command {
    /// Request code (rmq/remoting/request_code.hpp) or response code. The binary header holds only int16.
    std::int32_t code = 0;
    LanguageCode language = LanguageCode::Cpp;
    /// Sender's MQVersion ordinal (int16 in the binary header).
    std::int32_t version = version::v4_9_8;
    /// Request id; a response carries its request's opaque.
    std::int32_t opaque = 0;
    /// command_flag bits.
    std::int32_t flag = 0;
    /// Absent (Java null) or text; the binary header cannot tell "" from absent.
    std::optional<std::string> remark;
    /// Absent (Java null) or the map; JSON distinguishes `{}` from absent, the binary header does not.
    std::optional<ExtFields> ext_fields;
    /// Body bytes.
    std::string body;
    /// Java's serializeTypeCurrentRPC: the serialization the frame arrived in (set by decode), and the one
    /// encode(cmd) writes. rmq answers a peer's request in the request's serialization, as Java does.
    SerializeType serialize_type = SerializeType::Json;

    [[nodiscard]] bool is_response() const noexcept { return (flag & command_flag::response) != 0; }

    [[nodiscard]] bool is_oneway() const noexcept { return (flag & command_flag::oneway) != 0; }

    void mark_response() noexcept { flag |= command_flag::response; }

    void mark_oneway() noexcept { flag |= command_flag::oneway; }

    /// The ext fields, created empty if absent.
    ExtFields& fields() {
        if (!ext_fields) {
            ext_fields.emplace();
        }
        return *ext_fields;
    }

    /// Value of ext field `key`, nullopt when absent or null.
    [[nodiscard]] std::optional<std::string_view> field(std::string_view key) const noexcept {
        return ext_fields ? ext_fields->get(key) : std::nullopt;
    }

    [[nodiscard]] std::span<const std::byte> body_bytes() const noexcept {
        return rmq::detail::as_bytes(body);
    }

    friend bool operator==(const Command&, const Command&) = default;
};

/// Encodes `cmd` as one complete frame: int32 length ‖ int32 (serializeType << 24 | headerLength) ‖ header ‖
/// body, with the header in serialization `type` (whatever `cmd.serialize_type` says). Throws CodecError when
/// the frame would exceed max_frame_length or a field does not fit the format.
std::string encode(const Command& cmd, SerializeType type);

/// encode() in `cmd.serialize_type` (Java's RemotingCommand.encode uses serializeTypeCurrentRPC).
inline std::string encode(const Command& cmd) {
    return encode(cmd, cmd.serialize_type);
}

/// The serialization a request goes in: `configured`, unless its code does not fit the ROCKETMQ header's
/// int16 (the 5.x POP codes), then JSON. Java's RocketMQSerializable writes `(short) code` there, a code no
/// broker knows (200050 becomes 3442); its JSON header carries the whole int, which is what a Java client
/// sends with its default serialization.
SerializeType request_serialize_type(const Command& request, SerializeType configured) noexcept;

/// Validates a frame's leading int32 (the first 4 bytes of `prefix`) and returns how many bytes follow it.
/// Throws CodecError for a length below 4 (no room for the header word) or a frame above max_frame_length.
std::size_t frame_payload_length(std::span<const std::byte> prefix);

/// Decodes a frame without its leading length field (what follows it on the stream): the header word, the
/// header in either serialize type (the peer picks, whatever the request used; recorded in
/// Command::serialize_type) and the body.
Command decode_payload(std::span<const std::byte> payload);

/// Decodes one complete frame (length field included), as produced by encode(). Throws CodecError when the
/// length field disagrees with the span's size or anything inside is malformed.
Command decode(std::span<const std::byte> frame);

/// decode() for a frame held in a std::string.
Command decode(std::string_view frame);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/impl/command.ipp>
#endif
