#pragma once

/// @file remoting/message_codec.hpp
/// Stored message records (Java's MessageDecoder): the commit-log / PULL_MESSAGE body layout, offset message
/// ids, the SEND_BATCH_MESSAGE body and UtilAll.crc32.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/compression.hpp>

namespace rmq::remoting {

/// Java's MessageSysFlag bits (record field SYSFLAG and the send header's sysFlag).
namespace message_sys_flag {
inline constexpr std::int32_t compressed = 0x1;
inline constexpr std::int32_t multi_tags = 0x2;
inline constexpr std::int32_t transaction_not_type = 0x0;
inline constexpr std::int32_t transaction_prepared_type = 0x4;
inline constexpr std::int32_t transaction_commit_type = 0x8;
inline constexpr std::int32_t transaction_rollback_type = 0xC;
inline constexpr std::int32_t bornhost_v6 = 0x10;
inline constexpr std::int32_t storehost_v6 = 0x20;
inline constexpr std::int32_t need_unwrap = 0x40;
inline constexpr std::int32_t inner_batch = 0x80;
/// Bits 8-10: the CompressionType value (0 = legacy zlib).
inline constexpr std::int32_t compression_type_mask = 0x700;

/// The compression a record's sysFlag announces (0, the pre-4.9.4 value, means zlib).
std::optional<CompressionType> compression_type(std::int32_t sys_flag) noexcept;

/// The sysFlag bits announcing `type` (what a 4.9.4+ Java producer sets next to `compressed`).
inline constexpr std::int32_t compression_bits(CompressionType type) noexcept {
    return static_cast<std::int32_t>(type) << 8;
}
}  // namespace message_sys_flag

/// MAGICCODE of a record whose topic length is one byte (every 4.x broker).
inline constexpr std::int32_t message_magic_code_v1 = static_cast<std::int32_t>(0xDAA320A7U);
/// MAGICCODE of a 5.x record whose topic length is two bytes (topics longer than 127 bytes).
inline constexpr std::int32_t message_magic_code_v2 = static_cast<std::int32_t>(0xDAA320ABU);

/// UtilAll.crc32: CRC-32 (java.util.zip.CRC32) masked to a non-negative int, as the broker stores BODYCRC.
std::int32_t crc32(std::string_view data) noexcept;

/// An IPv4 or IPv6 socket address as a record stores it.
struct SocketAddress {
    /// 4 (IPv4) or 16 (IPv6) raw address bytes.
    std::string ip;
    std::int32_t port = 0;

    [[nodiscard]] bool is_ipv6() const noexcept { return ip.size() == 16; }

    /// Java's InetAddress.getHostAddress(): dotted quad, or eight uncompressed lowercase hex groups.
    [[nodiscard]] std::string ip_text() const { return ip_text_of(ip); }

    /// `ip:port`, IPv6 as `[ip]:port`.
    [[nodiscard]] std::string to_string() const { return text_of(ip, port); }

    /// ip_text() of raw address bytes (4 or 16).
    [[nodiscard]] static std::string ip_text_of(std::string_view ip) {
        if (ip.size() == 4) {
            std::array<char, 16> buf{};
            return {buf.data(), static_cast<std::size_t>(put_ipv4(buf.data(), ip) - buf.data())};
        }
        std::string out;
        for (std::size_t i = 0; i + 1 < ip.size(); i += 2) {
            if (i != 0) {
                out.push_back(':');
            }
            out.append(fmt::format("{:x}", (byte(ip, i) << 8) | byte(ip, i + 1)));
        }
        return out;
    }

    /// to_string() of raw address bytes and a port: a decoder reads two hosts per message without building a
    /// SocketAddress. An IPv4 text is written once, straight into its final string.
    [[nodiscard]] static std::string text_of(std::string_view ip, std::int32_t port) {
        if (ip.size() == 16) {
            return fmt::format("[{}]:{}", ip_text_of(ip), port);
        }
        if (ip.size() != 4) {
            return fmt::format("{}:{}", ip_text_of(ip), port);
        }
        std::array<char, 4 * 4 + 11> buf{};  // four octets with their dots, a colon, a signed port
        char* at = put_ipv4(buf.data(), ip);
        *at++ = ':';
        at = std::to_chars(at, buf.data() + buf.size(), port).ptr;
        return {buf.data(), static_cast<std::size_t>(at - buf.data())};
    }

    friend bool operator==(const SocketAddress&, const SocketAddress&) = default;

private:
    static unsigned byte(std::string_view ip, std::size_t i) noexcept {
        return static_cast<unsigned>(static_cast<unsigned char>(ip[i]));
    }

    // Writes the dotted quad of 4 address bytes at `at` (room for 15); returns the end.
    static char* put_ipv4(char* at, std::string_view ip) {
        for (std::size_t i = 0; i < 4; ++i) {
            at = std::to_chars(at, at + 3, byte(ip, i)).ptr;
            if (i != 3) {
                *at++ = '.';
            }
        }
        return at;
    }
};

/// Parses `a.b.c.d:port`, `[v6]:port` or `v6:port` (last colon splits). Throws rmq::InvalidArgument.
SocketAddress parse_socket_address(std::string_view text);

/// MessageDecoder.createMessageId: uppercase hex of store ip ‖ int32 port ‖ int64 commit-log offset
/// (32 characters for IPv4, 56 for IPv6).
std::string create_message_id(const SocketAddress& store_host, std::int64_t commit_log_offset);

/// What an offset message id encodes.
struct MessageId {
    SocketAddress address;
    std::int64_t offset = 0;

    friend bool operator==(const MessageId&, const MessageId&) = default;
};

/// MessageDecoder.decodeMessageId. Throws rmq::remoting::CodecError unless `id` has 32 or 56 hex digits.
MessageId decode_message_id(std::string_view id);

/// How decode_message(s) treats bodies.
struct MessageDecodeOptions {
    /// false: skip the body (Java's readBody = false).
    bool read_body = true;
    /// Inflate compressed bodies (sysFlag is left as stored, as Java's clientDecode does).
    bool decompress_body = true;
    /// Most bytes the compressed bodies of one call may inflate to, all records together (one record is
    /// also held to max_decompressed_body). A record that would pass it is damaged: decode_message throws,
    /// decode_messages drops it and the rest like any damaged record.
    std::size_t max_decompressed_total = max_decompressed_pull_body;
    /// Room for this many more properties in each decoded message, allocated with its properties (the
    /// consumer's pull path: it adds three to every message).
    std::size_t property_room = 0;
};

/// What decode_messages could not decode.
struct MessageDecodeReport {
    /// Records dropped: the first undecodable one and every record after it (Java drops the rest silently).
    std::size_t damaged_records = 0;
    /// Bytes of the body not turned into messages.
    std::size_t damaged_bytes = 0;
    /// Why the first dropped record failed (empty when nothing was dropped).
    std::string error;
};

/// Decodes exactly one record (MessageDecoder.clientDecode). Throws rmq::remoting::CodecError when it is
/// truncated, has a bad magic code or size, or its body cannot be decompressed.
MessageExt decode_message(std::span<const std::byte> record, const MessageDecodeOptions& options = {});

/// Decodes the body of a PULL_MESSAGE response (back-to-back records, MessageDecoder.decodes). Like Java, the
/// first record that cannot be decoded and everything after it are dropped; `report` (optional) says how
/// many records and bytes were dropped and why.
std::vector<MessageExt> decode_messages(std::span<const std::byte> pull_body,
                                        MessageDecodeReport* report = nullptr,
                                        const MessageDecodeOptions& options = {});

/// decode_messages() with the count of dropped records in `*damaged` (if not null).
std::vector<MessageExt> decode_messages(std::span<const std::byte> pull_body, std::size_t* damaged);

/// Encodes one record in the store / pull layout (MessageDecoder.encode(msg, false)): the body is written as
/// stored (compress it and set sysFlag beforehand), BODYCRC is copied from the message, hosts are IPv6 when
/// sysFlag says so. `properties_string` replaces the properties (Java writes its HashMap order; the default
/// is encode_properties of the sorted map). Topics longer than 127 bytes use the V2 magic code (2-byte topic
/// length, as 5.x brokers do). Throws rmq::InvalidArgument for unparsable hosts, rmq::remoting::CodecError
/// for properties above 32767 bytes.
std::string encode_message(const MessageExt& msg, std::optional<std::string_view> properties_string = {});

/// One entry of a SEND_BATCH_MESSAGE body (MessageDecoder.encodeMessage): TOTALSIZE, MAGICCODE 0, BODYCRC 0,
/// FLAG, BODYLEN + body, PROPLEN + properties. `properties_string` as for encode_message.
std::string encode_batch_entry(const Message& msg, std::optional<std::string_view> properties_string = {});

/// The SEND_BATCH_MESSAGE body (MessageDecoder.encodeMessages): the entries back to back.
std::string encode_messages(std::span<const Message> msgs);

/// MessageDecoder.decodeMessages: the entries of a SEND_BATCH_MESSAGE body (flag, body, properties).
/// Throws rmq::remoting::CodecError on a truncated or inconsistent entry.
std::vector<Message> decode_batch_messages(std::span<const std::byte> batch_body);

/// Whether `msg` is a 5.x inner-batch record to unwrap (sysFlag INNER_BATCH and NEED_UNWRAP: a batch sent to
/// a BatchCQ topic, stored as one record whose body is the SEND_BATCH_MESSAGE body).
bool is_wrapped_inner_batch(const MessageExt& msg) noexcept;

/// PullAPIWrapper.processPullResult's unwrapping: every inner-batch record of `msgs` becomes its inner
/// messages (MessageDecoder.decodeMessage: inner i has the record's topic, queue, queue offset + i, sysFlag,
/// hosts, timestamps and commit-log offset, its own flag, body and properties, WAIT as the record's; no
/// offset message id); the other messages are copied as they are, in order. Throws
/// rmq::remoting::CodecError when a record's body is not a batch body (`msgs` is left as it was).
std::vector<MessageExt> unwrap_inner_batches(std::span<const MessageExt> msgs);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/impl/message_codec.ipp>
#endif
