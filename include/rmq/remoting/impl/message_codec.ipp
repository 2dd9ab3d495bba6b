#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include <arpa/inet.h>

#include <fmt/format.h>

#include <rmq/remoting/message_codec.hpp>

#include <rmq/detail/util/crc32.hpp>
#include <rmq/detail/util/java_string.hpp>
#include <rmq/detail/wire/bytes.hpp>

namespace rmq::remoting {

namespace detail {

/// A record's host field as its bytes (no string of its own: a decoded message reads two of them).
struct RawAddress {
    std::string_view ip;  // 4 or 16 bytes
    std::int32_t port = 0;
};

inline RawAddress read_raw_address(rmq::detail::ByteReader& r, bool v6, std::string_view field) {
    RawAddress a;
    a.ip = r.bytes(v6 ? 16 : 4, field);
    a.port = r.i32(field);
    return a;
}

/// create_message_id from a record's store host bytes: big-endian ip ‖ port ‖ offset in a stack buffer, then
/// hex.
inline std::string message_id_text(const RawAddress& store, std::int64_t commit_log_offset) {
    std::array<char, 16 + 4 + 8> raw{};
    const std::size_t ip_len = store.ip.size();
    std::memcpy(raw.data(), store.ip.data(), ip_len);
    const auto put = [&raw](std::size_t at, std::uint64_t v, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            raw[at + i] = static_cast<char>((v >> (8 * (n - 1 - i))) & 0xFFU);
        }
    };
    put(ip_len, static_cast<std::uint32_t>(store.port), 4);
    put(ip_len + 4, static_cast<std::uint64_t>(commit_log_offset), 8);
    return rmq::detail::hex_upper(std::string_view(raw.data(), ip_len + 12));
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

/// BODY of a record into `msg` (inflated unless options say otherwise; skipped when read_body is false).
inline void read_body(rmq::detail::ByteReader& r, MessageExt& msg, const MessageDecodeOptions& options) {
    const std::int32_t sys_flag = msg.sys_flag();
    const std::size_t body_len = r.length_i32("BODYLENGTH");
    if (body_len == 0) {
        return;
    }
    const std::string_view body = r.bytes(body_len, "BODY");
    if (!options.read_body) {
        return;
    }
    if (!options.decompress_body || (sys_flag & message_sys_flag::compressed) == 0) {
        msg.set_body(std::string(body));
        return;
    }
    const auto type = message_sys_flag::compression_type(sys_flag);
    if (!type) {
        r.fail(fmt::format("unknown compression type {} in SYSFLAG 0x{:X}",
                           (sys_flag & message_sys_flag::compression_type_mask) >> 8,
                           sys_flag));
    }
    msg.set_body(decompress(body, *type, std::min(max_decompressed_body, options.max_decompressed_total)));
}

/// TOPICLENGTH: two bytes in a v2 record, one (non-negative) byte otherwise.
inline std::size_t read_topic_length(rmq::detail::ByteReader& r, std::int32_t magic) {
    if (magic == message_magic_code_v2) {
        return r.length_i16("TOPICLENGTH");
    }
    const std::int8_t n = r.i8("TOPICLENGTH");
    if (n < 0) {
        r.fail(fmt::format("negative TOPICLENGTH {}", n));
    }
    return static_cast<std::size_t>(n);
}

/// The records a pull body holds by their TOTALSIZE fields, up to the first implausible one: room for the
/// decoded messages in one allocation (each is then decoded in place, never moved by a regrowth).
inline std::size_t count_records(std::span<const std::byte> body) noexcept {
    std::size_t n = 0;
    std::size_t pos = 0;
    while (body.size() - pos >= min_record_size) {
        std::uint32_t total = 0;
        for (std::size_t i = 0; i < 4; ++i) {
            total = (total << 8) | static_cast<std::uint8_t>(body[pos + i]);
        }
        if (total < min_record_size || total > body.size() - pos) {
            break;
        }
        ++n;
        pos += total;
    }
    return n;
}

}  // namespace detail

RMQ_DECL std::optional<CompressionType> message_sys_flag::compression_type(std::int32_t sys_flag) noexcept {
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

RMQ_DECL std::int32_t crc32(std::string_view data) noexcept {
    return rmq::detail::crc32(data);
}

RMQ_DECL SocketAddress parse_socket_address(std::string_view text) {
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

RMQ_DECL std::string create_message_id(const SocketAddress& store_host, std::int64_t commit_log_offset) {
    if (store_host.ip.size() > 16) {  // not an address a record holds: written as given
        std::string raw;
        rmq::detail::ByteWriter w(raw);
        w.bytes(store_host.ip);
        w.i32(store_host.port);
        w.i64(commit_log_offset);
        return rmq::detail::hex_upper(raw);
    }
    return detail::message_id_text(detail::RawAddress{store_host.ip, store_host.port}, commit_log_offset);
}

RMQ_DECL MessageId decode_message_id(std::string_view id) {
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

RMQ_DECL MessageExt decode_message(std::span<const std::byte> record, const MessageDecodeOptions& options) {
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
    const detail::RawAddress born_host =
        detail::read_raw_address(r, (sys_flag & message_sys_flag::bornhost_v6) != 0, "BORNHOST");
    msg.set_born_host(SocketAddress::text_of(born_host.ip, born_host.port));
    msg.set_store_timestamp(r.i64("STORETIMESTAMP"));
    const detail::RawAddress store_host =
        detail::read_raw_address(r, (sys_flag & message_sys_flag::storehost_v6) != 0, "STOREHOST");
    msg.set_store_host(SocketAddress::text_of(store_host.ip, store_host.port));
    msg.set_reconsume_times(r.i32("RECONSUMETIMES"));
    msg.set_prepared_transaction_offset(r.i64("PREPAREDTRANSACTIONOFFSET"));
    detail::read_body(r, msg, options);
    const std::size_t topic_len = detail::read_topic_length(r, magic);
    msg.set_topic(std::string(r.bytes(topic_len, "TOPIC")));
    const std::size_t props_len = r.length_i16("PROPERTIESLENGTH");
    if (props_len > 0) {
        msg.set_properties(decode_properties(r.bytes(props_len, "PROPERTIES"), options.property_room));
    }
    if (r.remaining() != 0) {
        r.fail(fmt::format("{} bytes left after PROPERTIES", r.remaining()));
    }
    msg.set_offset_msg_id(detail::message_id_text(store_host, msg.commit_log_offset()));
    return msg;
}

RMQ_DECL std::vector<MessageExt> decode_messages(std::span<const std::byte> pull_body,
                                                 MessageDecodeReport* report,
                                                 const MessageDecodeOptions& options) {
    if (report != nullptr) {
        *report = MessageDecodeReport{};
    }
    std::vector<MessageExt> out;
    out.reserve(detail::count_records(pull_body));
    MessageDecodeOptions budget = options;  // what the records left may still inflate to
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
            out.push_back(decode_message(rest.first(size), budget));
            if ((out.back().sys_flag() & message_sys_flag::compressed) != 0 && options.decompress_body) {
                budget.max_decompressed_total -= out.back().body().size();
            }
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

RMQ_DECL std::vector<MessageExt> decode_messages(std::span<const std::byte> pull_body, std::size_t* damaged) {
    MessageDecodeReport report;
    auto out = decode_messages(pull_body, &report);
    if (damaged != nullptr) {
        *damaged = report.damaged_records;
    }
    return out;
}

RMQ_DECL std::string encode_message(const MessageExt& msg,
                                    std::optional<std::string_view> properties_string) {
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

RMQ_DECL std::string encode_batch_entry(const Message& msg,
                                        std::optional<std::string_view> properties_string) {
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

RMQ_DECL std::string encode_messages(std::span<const Message> msgs) {
    std::string out;
    for (const auto& m : msgs) {
        out.append(encode_batch_entry(m));
    }
    return out;
}

RMQ_DECL std::vector<Message> decode_batch_messages(std::span<const std::byte> batch_body) {
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

RMQ_DECL bool is_wrapped_inner_batch(const MessageExt& msg) noexcept {
    constexpr std::int32_t both = message_sys_flag::inner_batch | message_sys_flag::need_unwrap;
    return (msg.sys_flag() & both) == both;
}

namespace detail {

/// Inner message `index` of the inner-batch record `outer` (MessageDecoder.decodeMessage).
inline MessageExt inner_message(const MessageExt& outer, Message inner, std::size_t index) {
    MessageExt m;
    static_cast<Message&>(m) = std::move(inner);
    m.set_topic(outer.topic());
    m.set_broker_name(outer.broker_name());
    m.set_queue_id(outer.queue_id());
    m.set_queue_offset(outer.queue_offset() + static_cast<std::int64_t>(index));
    m.set_sys_flag(outer.sys_flag());
    m.set_born_timestamp(outer.born_timestamp());
    m.set_born_host(outer.born_host());
    m.set_store_timestamp(outer.store_timestamp());
    m.set_store_host(outer.store_host());
    m.set_commit_log_offset(outer.commit_log_offset());
    // Java's setWaitStoreMsgOK(outer.isWaitStoreMsgOK()): absent means true.
    const auto wait = outer.property_view(property::wait_store_msg_ok);
    const bool wait_ok = wait.empty() || rmq::detail::parse_java_boolean(wait);
    m.set_property(property::wait_store_msg_ok, wait_ok ? "true" : "false");
    return m;
}

}  // namespace detail

RMQ_DECL std::vector<MessageExt> unwrap_inner_batches(std::span<const MessageExt> msgs) {
    std::vector<MessageExt> out;
    out.reserve(msgs.size());
    for (const auto& outer : msgs) {
        if (!is_wrapped_inner_batch(outer)) {
            out.push_back(outer);
            continue;
        }
        auto inner = decode_batch_messages(outer.body_bytes());
        for (std::size_t i = 0; i < inner.size(); ++i) {
            out.push_back(detail::inner_message(outer, std::move(inner[i]), i));
        }
    }
    return out;
}

}  // namespace rmq::remoting
