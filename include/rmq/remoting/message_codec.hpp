#pragma once

/// @file remoting/message_codec.hpp
/// Stored message records (Java's MessageDecoder): the commit-log / PULL_MESSAGE body layout, offset message
/// ids, the SEND_BATCH_MESSAGE body and UtilAll.crc32.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <arpa/inet.h>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/compression.hpp>

#include <rmq/detail/util/crc32.hpp>
#include <rmq/detail/wire/bytes.hpp>

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
inline std::optional<CompressionType> compression_type(std::int32_t sys_flag) noexcept {
    switch ((sys_flag & compression_type_mask) >> 8) {
    case 0:
    case 3:
        return CompressionType::Zlib;
    case 1:
        return CompressionType::Lz4;
    case 2:
        return CompressionType::Zstd;
    default:
        return std::nullopt;
    }
}

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
inline std::int32_t crc32(std::string_view data) noexcept {
    return rmq::detail::crc32(data);
}

/// An IPv4 or IPv6 socket address as a record stores it.
struct SocketAddress {
    /// 4 (IPv4) or 16 (IPv6) raw address bytes.
    std::string ip;
    std::int32_t port = 0;

    [[nodiscard]] bool is_ipv6() const noexcept { return ip.size() == 16; }

    /// Java's InetAddress.getHostAddress(): dotted quad, or eight uncompressed lowercase hex groups.
    [[nodiscard]] std::string ip_text() const {
        const auto b = [this](std::size_t i) {
            return static_cast<unsigned>(static_cast<unsigned char>(ip[i]));
        };
        if (ip.size() == 4) {
            return fmt::format("{}.{}.{}.{}", b(0), b(1), b(2), b(3));
        }
        std::string out;
        for (std::size_t i = 0; i < ip.size(); i += 2) {
            if (i != 0) {
                out.push_back(':');
            }
            out.append(fmt::format("{:x}", (b(i) << 8) | b(i + 1)));
        }
        return out;
    }

    /// `ip:port`, IPv6 as `[ip]:port`.
    [[nodiscard]] std::string to_string() const {
        return is_ipv6() ? fmt::format("[{}]:{}", ip_text(), port) : fmt::format("{}:{}", ip_text(), port);
    }

    friend bool operator==(const SocketAddress&, const SocketAddress&) = default;
};

/// Parses `a.b.c.d:port`, `[v6]:port` or `v6:port` (last colon splits). Throws rmq::InvalidArgument.
inline SocketAddress parse_socket_address(std::string_view text) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
        throw InvalidArgument(fmt::format("socket address \"{}\" has no port", text));
    }
    std::string host(text.substr(0, colon));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    const std::string_view port_text = text.substr(colon + 1);
    std::int64_t port = 0;
    for (const char c : port_text) {
        if (c < '0' || c > '9' || port > 65535) {
            throw InvalidArgument(fmt::format("socket address \"{}\" has a bad port", text));
        }
        port = port * 10 + (c - '0');
    }
    if (port_text.empty() || port > 65535) {
        throw InvalidArgument(fmt::format("socket address \"{}\" has a bad port", text));
    }
    SocketAddress out;
    out.port = static_cast<std::int32_t>(port);
    unsigned char buf[16];
    if (inet_pton(AF_INET, host.c_str(), buf) == 1) {
        out.ip.assign(reinterpret_cast<const char*>(buf), 4);
    } else if (inet_pton(AF_INET6, host.c_str(), buf) == 1) {
        out.ip.assign(reinterpret_cast<const char*>(buf), 16);
    } else {
        throw InvalidArgument(fmt::format("socket address \"{}\" has no IPv4/IPv6 address", text));
    }
    return out;
}

/// MessageDecoder.createMessageId: uppercase hex of store ip ‖ int32 port ‖ int64 commit-log offset
/// (32 characters for IPv4, 56 for IPv6).
inline std::string create_message_id(const SocketAddress& store_host, std::int64_t commit_log_offset) {
    std::string raw;
    rmq::detail::ByteWriter w(raw);
    w.bytes(store_host.ip);
    w.i32(store_host.port);
    w.i64(commit_log_offset);
    return rmq::detail::hex_upper(raw);
}

/// What an offset message id encodes.
struct MessageId {
    SocketAddress address;
    std::int64_t offset = 0;

    friend bool operator==(const MessageId&, const MessageId&) = default;
};

/// MessageDecoder.decodeMessageId. Throws rmq::remoting::CodecError unless `id` has 32 or 56 hex digits.
inline MessageId decode_message_id(std::string_view id) {
    if (id.size() != 32 && id.size() != 56) {
        throw CodecError(fmt::format(
            "offset message id \"{}\" has {} characters, expected 32 (IPv4) or 56 (IPv6)", id, id.size()));
    }
    const std::string raw = rmq::detail::unhex(id, "offset message id");
    rmq::detail::ByteReader r(rmq::detail::as_bytes(raw), "offset message id");
    MessageId out;
    out.address.ip = std::string(r.bytes(raw.size() - 12, "ip"));
    out.address.port = r.i32("port");
    out.offset = r.i64("offset");
    return out;
}

/// How decode_message(s) treats bodies.
struct MessageDecodeOptions {
    /// false: skip the body (Java's readBody = false).
    bool read_body = true;
    /// Inflate compressed bodies (sysFlag is left as stored, as Java's clientDecode does).
    bool decompress_body = true;
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

namespace detail {

inline SocketAddress read_socket_address(rmq::detail::ByteReader& r, bool v6, std::string_view field) {
    SocketAddress a;
    a.ip = std::string(r.bytes(v6 ? 16 : 4, field));
    a.port = r.i32(field);
    return a;
}

inline void
write_socket_address(rmq::detail::ByteWriter& w, std::string_view host, bool v6, std::string_view field) {
    const SocketAddress a = parse_socket_address(host);
    if (a.is_ipv6() != v6) {
        throw InvalidArgument(fmt::format("{} \"{}\" is {} but sysFlag says {}",
                                          field,
                                          host,
                                          a.is_ipv6() ? "IPv6" : "IPv4",
                                          v6 ? "IPv6" : "IPv4"));
    }
    w.bytes(a.ip);
    w.i32(a.port);
}

/// Smallest possible record: 84 fixed bytes with IPv4 hosts, then empty body, topic and properties.
inline constexpr std::size_t min_record_size = 84 + 4 + 1 + 2;

}  // namespace detail

/// Decodes exactly one record (MessageDecoder.clientDecode). Throws rmq::remoting::CodecError when it is
/// truncated, has a bad magic code or size, or its body cannot be decompressed.
inline MessageExt decode_message(std::span<const std::byte> record,
                                 const MessageDecodeOptions& options = {}) {
    rmq::detail::ByteReader r(record, "message record");
    MessageExt msg;
    const std::int32_t store_size = r.i32("TOTALSIZE");
    if (store_size < 0 || static_cast<std::size_t>(store_size) != record.size()) {
        r.fail(fmt::format("TOTALSIZE {} but the record has {} bytes", store_size, record.size()));
    }
    msg.set_store_size(store_size);
    const std::int32_t magic = r.i32("MAGICCODE");
    if (magic != message_magic_code_v1 && magic != message_magic_code_v2) {
        r.fail(fmt::format("bad MAGICCODE 0x{:08X}", static_cast<std::uint32_t>(magic)));
    }
    msg.set_body_crc(r.i32("BODYCRC"));
    msg.set_queue_id(r.i32("QUEUEID"));
    msg.set_flag(r.i32("FLAG"));
    msg.set_queue_offset(r.i64("QUEUEOFFSET"));
    msg.set_commit_log_offset(r.i64("PHYSICALOFFSET"));
    const std::int32_t sys_flag = r.i32("SYSFLAG");
    msg.set_sys_flag(sys_flag);
    msg.set_born_timestamp(r.i64("BORNTIMESTAMP"));
    msg.set_born_host(
        detail::read_socket_address(r, (sys_flag & message_sys_flag::bornhost_v6) != 0, "BORNHOST")
            .to_string());
    msg.set_store_timestamp(r.i64("STORETIMESTAMP"));
    const SocketAddress store_host =
        detail::read_socket_address(r, (sys_flag & message_sys_flag::storehost_v6) != 0, "STOREHOST");
    msg.set_store_host(store_host.to_string());
    msg.set_reconsume_times(r.i32("RECONSUMETIMES"));
    msg.set_prepared_transaction_offset(r.i64("PREPAREDTRANSACTIONOFFSET"));
    const std::size_t body_len = r.length_i32("BODYLENGTH");
    if (body_len > 0) {
        const std::string_view body = r.bytes(body_len, "BODY");
        if (options.read_body) {
            if (options.decompress_body && (sys_flag & message_sys_flag::compressed) != 0) {
                const auto type = message_sys_flag::compression_type(sys_flag);
                if (!type) {
                    r.fail(fmt::format("unknown compression type {} in SYSFLAG 0x{:X}",
                                       (sys_flag & message_sys_flag::compression_type_mask) >> 8,
                                       sys_flag));
                }
                msg.set_body(decompress(body, *type));
            } else {
                msg.set_body(std::string(body));
            }
        }
    }
    std::size_t topic_len = 0;
    if (magic == message_magic_code_v2) {
        topic_len = r.length_i16("TOPICLENGTH");
    } else {
        const std::int8_t n = r.i8("TOPICLENGTH");
        if (n < 0) {
            r.fail(fmt::format("negative TOPICLENGTH {}", n));
        }
        topic_len = static_cast<std::size_t>(n);
    }
    msg.set_topic(std::string(r.bytes(topic_len, "TOPIC")));
    const std::size_t props_len = r.length_i16("PROPERTIESLENGTH");
    if (props_len > 0) {
        msg.set_properties(decode_properties(r.bytes(props_len, "PROPERTIES")));
    }
    if (r.remaining() != 0) {
        r.fail(fmt::format("{} bytes left after PROPERTIES", r.remaining()));
    }
    msg.set_offset_msg_id(create_message_id(store_host, msg.commit_log_offset()));
    return msg;
}

/// Decodes the body of a PULL_MESSAGE response (back-to-back records, MessageDecoder.decodes). Like Java, the
/// first record that cannot be decoded and everything after it are dropped; `report` (optional) says how
/// many records and bytes were dropped and why.
inline std::vector<MessageExt> decode_messages(std::span<const std::byte> pull_body,
                                               MessageDecodeReport* report = nullptr,
                                               const MessageDecodeOptions& options = {}) {
    if (report != nullptr) {
        *report = MessageDecodeReport{};
    }
    std::vector<MessageExt> out;
    std::size_t pos = 0;
    while (pos < pull_body.size()) {
        const auto rest = pull_body.subspan(pos);
        std::size_t size = 0;
        try {
            rmq::detail::ByteReader r(rest, "message record");
            const std::int32_t total = r.i32("TOTALSIZE");
            if (total < static_cast<std::int32_t>(detail::min_record_size) ||
                static_cast<std::size_t>(total) > rest.size()) {
                r.fail(fmt::format("TOTALSIZE {} does not fit the {} bytes left", total, rest.size()));
            }
            size = static_cast<std::size_t>(total);
            out.push_back(decode_message(rest.first(size), options));
        } catch (const CodecError& e) {
            if (report != nullptr) {
                report->error = fmt::format("record {} at byte {}: {}", out.size(), pos, e.what());
                report->damaged_bytes = rest.size();
                // Count the records Java silently drops: walk the remaining size fields while they are
                // plausible.
                std::size_t p = 0;
                std::size_t n = 0;
                while (p < rest.size()) {
                    ++n;
                    if (rest.size() - p < 4) {
                        break;
                    }
                    rmq::detail::ByteReader rr(rest.subspan(p), "message record");
                    const std::int32_t total = rr.i32("TOTALSIZE");
                    if (total < static_cast<std::int32_t>(detail::min_record_size) ||
                        static_cast<std::size_t>(total) > rest.size() - p) {
                        break;
                    }
                    p += static_cast<std::size_t>(total);
                }
                report->damaged_records = n;
            }
            return out;
        }
        pos += size;
    }
    return out;
}

/// decode_messages() with the count of dropped records in `*damaged` (if not null).
inline std::vector<MessageExt> decode_messages(std::span<const std::byte> pull_body, std::size_t* damaged) {
    MessageDecodeReport report;
    auto out = decode_messages(pull_body, &report);
    if (damaged != nullptr) {
        *damaged = report.damaged_records;
    }
    return out;
}

/// Encodes one record in the store / pull layout (MessageDecoder.encode(msg, false)): the body is written as
/// stored (compress it and set sysFlag beforehand), BODYCRC is copied from the message, hosts are IPv6 when
/// sysFlag says so. `properties_string` replaces the properties (Java writes its HashMap order; the default
/// is encode_properties of the sorted map). Topics longer than 127 bytes use the V2 magic code (2-byte topic
/// length, as 5.x brokers do). Throws rmq::InvalidArgument for unparsable hosts, rmq::remoting::CodecError
/// for properties above 32767 bytes.
inline std::string encode_message(const MessageExt& msg,
                                  std::optional<std::string_view> properties_string = {}) {
    const std::string props_owned = properties_string ? std::string() : encode_properties(msg.properties());
    const std::string_view props = properties_string ? *properties_string : std::string_view(props_owned);
    if (props.size() > static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max())) {
        throw CodecError(
            fmt::format("message properties of {} bytes exceed the 32767 a record can hold", props.size()));
    }
    const std::string& topic = msg.topic();
    const bool v2 = topic.size() > static_cast<std::size_t>(std::numeric_limits<std::int8_t>::max());
    if (topic.size() > static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max())) {
        throw CodecError(fmt::format("topic of {} bytes is too long for a record", topic.size()));
    }
    const std::int32_t sys_flag = msg.sys_flag();
    std::string out;
    rmq::detail::ByteWriter w(out);
    w.i32(0);  // TOTALSIZE, patched below
    w.i32(v2 ? message_magic_code_v2 : message_magic_code_v1);
    w.i32(msg.body_crc());
    w.i32(msg.queue_id());
    w.i32(msg.flag());
    w.i64(msg.queue_offset());
    w.i64(msg.commit_log_offset());
    w.i32(sys_flag);
    w.i64(msg.born_timestamp());
    detail::write_socket_address(
        w, msg.born_host(), (sys_flag & message_sys_flag::bornhost_v6) != 0, "born host");
    w.i64(msg.store_timestamp());
    detail::write_socket_address(
        w, msg.store_host(), (sys_flag & message_sys_flag::storehost_v6) != 0, "store host");
    w.i32(msg.reconsume_times());
    w.i64(msg.prepared_transaction_offset());
    if (msg.body().size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        throw CodecError("message body is too long for a record");
    }
    w.i32(static_cast<std::int32_t>(msg.body().size()));
    w.bytes(msg.body());
    if (v2) {
        w.i16(static_cast<std::int16_t>(topic.size()));
    } else {
        w.u8(static_cast<std::uint8_t>(topic.size()));
    }
    w.bytes(topic);
    w.i16(static_cast<std::int16_t>(props.size()));
    w.bytes(props);
    if (out.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        throw CodecError("message record is too long");
    }
    w.patch_i32(0, static_cast<std::int32_t>(out.size()));
    return out;
}

/// One entry of a SEND_BATCH_MESSAGE body (MessageDecoder.encodeMessage): TOTALSIZE, MAGICCODE 0, BODYCRC 0,
/// FLAG, BODYLEN + body, PROPLEN + properties. `properties_string` as for encode_message.
inline std::string encode_batch_entry(const Message& msg,
                                      std::optional<std::string_view> properties_string = {}) {
    const std::string props_owned = properties_string ? std::string() : encode_properties(msg.properties());
    const std::string_view props = properties_string ? *properties_string : std::string_view(props_owned);
    if (props.size() > static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max())) {
        throw CodecError(fmt::format("message properties of {} bytes exceed the 32767 a batch entry can hold",
                                     props.size()));
    }
    if (msg.body().size() >
        static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) - 64 - props.size()) {
        throw CodecError("message body is too long for a batch entry");
    }
    std::string out;
    rmq::detail::ByteWriter w(out);
    w.i32(static_cast<std::int32_t>(4 + 4 + 4 + 4 + 4 + msg.body().size() + 2 + props.size()));
    w.i32(0);
    w.i32(0);
    w.i32(msg.flag());
    w.i32(static_cast<std::int32_t>(msg.body().size()));
    w.bytes(msg.body());
    w.i16(static_cast<std::int16_t>(props.size()));
    w.bytes(props);
    return out;
}

/// The SEND_BATCH_MESSAGE body (MessageDecoder.encodeMessages): the entries back to back.
inline std::string encode_messages(std::span<const Message> msgs) {
    std::string out;
    for (const auto& m : msgs) {
        out.append(encode_batch_entry(m));
    }
    return out;
}

/// MessageDecoder.decodeMessages: the entries of a SEND_BATCH_MESSAGE body (flag, body, properties).
/// Throws rmq::remoting::CodecError on a truncated or inconsistent entry.
inline std::vector<Message> decode_batch_messages(std::span<const std::byte> batch_body) {
    std::vector<Message> out;
    rmq::detail::ByteReader r(batch_body, "batch message body");
    while (r.remaining() > 0) {
        const std::size_t start = r.position();
        const std::int32_t total = r.i32("TOTALSIZE");
        r.i32("MAGICCODE");
        r.i32("BODYCRC");
        Message m;
        m.set_flag(r.i32("FLAG"));
        m.set_body(std::string(r.bytes(r.length_i32("BODYLENGTH"), "BODY")));
        const std::size_t props_len = r.length_i16("PROPERTIESLENGTH");
        m.set_properties(decode_properties(r.bytes(props_len, "PROPERTIES")));
        if (static_cast<std::int64_t>(r.position() - start) != total) {
            r.fail(fmt::format(
                "entry {} has TOTALSIZE {} but {} bytes", out.size(), total, r.position() - start));
        }
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace rmq::remoting
