#pragma once

/// @file unique_id.hpp
/// Message unique ids (the UNIQ_KEY property) with the layout of Java's MessageClientIDSetter: ip, pid,
/// a per-process int, milliseconds since the start of the month and a counter, as upper-case hex.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/clock.hpp>
#include <rmq/config.hpp>
#include <rmq/error.hpp>

namespace rmq {

namespace detail {

void append_hex(std::string& out, std::span<const std::uint8_t> bytes);

void append_hex_int(std::string& out, std::uint32_t v, int bytes);

/// UtilAll.string2bytes: hex (either case) to bytes; throws rmq::InvalidArgument for anything else.
std::vector<std::uint8_t> hex_to_bytes(std::string_view hex);

/// Checks an id's length: 32 hex chars (IPv4) or 56 (IPv6).
std::vector<std::uint8_t> unique_id_bytes(std::string_view id);

/// Start of the month (UTC) containing `wall_millis`, shifted by `months`.
std::int64_t month_start_millis(std::int64_t wall_millis, int months = 0);

/// The process-wide counter of Java's MessageClientIDSetter.COUNTER.
std::atomic<std::uint32_t>& unique_id_counter();

/// UtilAll.getIP: the first non-loopback IPv4 address (site-local preferred), else 127.0.0.1.
std::vector<std::uint8_t> local_ip();

std::int32_t process_id();

}  // namespace detail

/// Composes an id exactly as MessageClientIDSetter does from its parts (ip of 4 or 16 bytes, pid truncated to
/// 16 bits, class-loader hash code, milliseconds since the month start, counter truncated to 16 bits).
std::string compose_unique_id(std::span<const std::uint8_t> ip,
                              std::int32_t pid,
                              std::int32_t class_loader_hash,
                              std::int32_t diff_millis,
                              std::int32_t counter);

/// MessageClientIDSetter.getIPFromID: the 4 (32-char id) or 16 (56-char id) ip bytes.
std::vector<std::uint8_t> unique_id_ip(std::string_view id);

/// MessageClientIDSetter.getIPStrFromID: `10.0.0.5`, or eight 4-digit lower-case hex groups for IPv6.
std::string unique_id_ip_string(std::string_view id);

/// MessageClientIDSetter.getPidFromID: the 16-bit pid field, unsigned.
std::int32_t unique_id_pid(std::string_view id);

/// MessageClientIDSetter.getNearlyTimeFromID: month start (UTC; Java uses the JVM time zone) of `now` plus
/// the id's unsigned millisecond field; the previous month's start when that is not before `now`.
std::int64_t unique_id_nearly_time(std::string_view id, std::int64_t now_wall_millis);

/// Generates UNIQ_KEY values (MessageClientIDSetter.createUniqID). Thread-safe; the counter is shared by
/// every generator of the process, as Java's is static.
class UniqueIdGenerator {
public:
    /// Uses this host's IPv4 address, the process id and a random per-process int.
    explicit UniqueIdGenerator(std::shared_ptr<Clock> clock = system_clock())
        : UniqueIdGenerator(std::move(clock), detail::local_ip(), detail::process_id(), process_hash()) {}

    /// Fixed parts given explicitly (tests, or a client that knows its address).
    UniqueIdGenerator(std::shared_ptr<Clock> clock,
                      std::vector<std::uint8_t> ip,
                      std::int32_t pid,
                      std::int32_t class_loader_hash);

    /// The per-process prefix (Java's FIX_STRING).
    [[nodiscard]] const std::string& fix_string() const noexcept { return fix_; }

    /// A new id.
    [[nodiscard]] std::string next();

private:
    static std::int32_t process_hash();

    std::shared_ptr<Clock> clock_;
    std::string fix_;
    std::mutex mutex_;
    std::int64_t start_ = 0;
    std::int64_t next_start_ = 0;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/unique_id.ipp>
#endif
