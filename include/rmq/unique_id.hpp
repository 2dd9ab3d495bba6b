#pragma once

/// @file unique_id.hpp
/// Message unique ids (the UNIQ_KEY property) with the layout of Java's MessageClientIDSetter: ip, pid,
/// a per-process int, milliseconds since the start of the month and a counter, as upper-case hex.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/error.hpp>

#if __has_include(<unistd.h>)
#    include <unistd.h>
#endif
#if __has_include(<ifaddrs.h>) && __has_include(<netinet/in.h>)
#    include <ifaddrs.h>
#    include <netinet/in.h>
#    define RMQ_HAS_IFADDRS 1
#endif

namespace rmq {

namespace detail {

inline void append_hex(std::string& out, std::span<const std::uint8_t> bytes) {
    static constexpr char digits[] = "0123456789ABCDEF";
    for (const std::uint8_t b : bytes) {
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 0xF]);
    }
}

inline void append_hex_int(std::string& out, std::uint32_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) {
        const auto b = static_cast<std::uint8_t>(v >> (8 * i));
        append_hex(out, std::span<const std::uint8_t>(&b, 1));
    }
}

/// UtilAll.string2bytes: hex (either case) to bytes; throws rmq::InvalidArgument for anything else.
inline std::vector<std::uint8_t> hex_to_bytes(std::string_view hex) {
    auto nibble = [&](char c) -> std::uint8_t {
        if (c >= '0' && c <= '9') {
            return static_cast<std::uint8_t>(c - '0');
        }
        if (c >= 'A' && c <= 'F') {
            return static_cast<std::uint8_t>(c - 'A' + 10);
        }
        if (c >= 'a' && c <= 'f') {
            return static_cast<std::uint8_t>(c - 'a' + 10);
        }
        throw InvalidArgument(fmt::format("not a hex message id: {}", hex));
    };
    if (hex.size() % 2 != 0) {
        throw InvalidArgument(fmt::format("not a hex message id: {}", hex));
    }
    std::vector<std::uint8_t> out;
    out.reserve(hex.size() / 2);
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        out.push_back(static_cast<std::uint8_t>((nibble(hex[i]) << 4) | nibble(hex[i + 1])));
    }
    return out;
}

/// Checks an id's length: 32 hex chars (IPv4) or 56 (IPv6).
inline std::vector<std::uint8_t> unique_id_bytes(std::string_view id) {
    if (id.size() != 32 && id.size() != 56) {
        throw InvalidArgument(fmt::format("a unique message id has 32 or 56 hex characters: {}", id));
    }
    return hex_to_bytes(id);
}

/// Start of the month (UTC) containing `wall_millis`, shifted by `months`.
inline std::int64_t month_start_millis(std::int64_t wall_millis, int months = 0) {
    using namespace std::chrono;
    const sys_days day = floor<days>(sys_time<milliseconds>(milliseconds(wall_millis)));
    const year_month ym =
        year_month_day(day).year() / year_month_day(day).month() + std::chrono::months(months);
    const sys_days start = ym / std::chrono::day(1);
    return duration_cast<milliseconds>(start.time_since_epoch()).count();
}

/// The process-wide counter of Java's MessageClientIDSetter.COUNTER.
inline std::atomic<std::uint32_t>& unique_id_counter() {
    static std::atomic<std::uint32_t> counter{0};
    return counter;
}

/// UtilAll.getIP: the first non-loopback IPv4 address (site-local preferred), else 127.0.0.1.
inline std::vector<std::uint8_t> local_ip() {
    std::vector<std::uint8_t> best;
#ifdef RMQ_HAS_IFADDRS
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) == 0) {
        for (ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
            if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) {
                continue;
            }
            const auto* sin = reinterpret_cast<const sockaddr_in*>(it->ifa_addr);
            const auto* b = reinterpret_cast<const std::uint8_t*>(&sin->sin_addr.s_addr);
            std::vector<std::uint8_t> ip(b, b + 4);
            if (ip[0] == 127) {
                continue;
            }
            const bool site_local =
                ip[0] == 10 || (ip[0] == 172 && (ip[1] & 0xF0) == 16) || (ip[0] == 192 && ip[1] == 168);
            if (best.empty() || site_local) {
                best = ip;
                if (site_local) {
                    break;
                }
            }
        }
        freeifaddrs(list);
    }
#endif
    if (best.empty()) {
        best = {127, 0, 0, 1};
    }
    return best;
}

inline std::int32_t process_id() {
#if __has_include(<unistd.h>)
    return static_cast<std::int32_t>(::getpid());
#else
    return 0;
#endif
}

}  // namespace detail

/// Composes an id exactly as MessageClientIDSetter does from its parts (ip of 4 or 16 bytes, pid truncated to
/// 16 bits, class-loader hash code, milliseconds since the month start, counter truncated to 16 bits).
inline std::string compose_unique_id(std::span<const std::uint8_t> ip,
                                     std::int32_t pid,
                                     std::int32_t class_loader_hash,
                                     std::int32_t diff_millis,
                                     std::int32_t counter) {
    if (ip.size() != 4 && ip.size() != 16) {
        throw InvalidArgument(fmt::format("unique id: ip must have 4 or 16 bytes, not {}", ip.size()));
    }
    std::string out;
    out.reserve((ip.size() + 12) * 2);
    detail::append_hex(out, ip);
    detail::append_hex_int(out, static_cast<std::uint32_t>(pid), 2);
    detail::append_hex_int(out, static_cast<std::uint32_t>(class_loader_hash), 4);
    detail::append_hex_int(out, static_cast<std::uint32_t>(diff_millis), 4);
    detail::append_hex_int(out, static_cast<std::uint32_t>(counter), 2);
    return out;
}

/// MessageClientIDSetter.getIPFromID: the 4 (32-char id) or 16 (56-char id) ip bytes.
inline std::vector<std::uint8_t> unique_id_ip(std::string_view id) {
    auto bytes = detail::unique_id_bytes(id);
    bytes.resize(id.size() == 32 ? 4 : 16);
    return bytes;
}

/// MessageClientIDSetter.getIPStrFromID: `10.0.0.5`, or eight 4-digit lower-case hex groups for IPv6.
inline std::string unique_id_ip_string(std::string_view id) {
    const auto ip = unique_id_ip(id);
    if (ip.size() == 4) {
        return fmt::format("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3]);
    }
    std::string out;
    for (std::size_t i = 0; i < 16; i += 2) {
        if (i > 0) {
            out.push_back(':');
        }
        out += fmt::format("{:02x}{:02x}", ip[i], ip[i + 1]);
    }
    return out;
}

/// MessageClientIDSetter.getPidFromID: the 16-bit pid field, unsigned.
inline std::int32_t unique_id_pid(std::string_view id) {
    const auto b = detail::unique_id_bytes(id);
    const std::size_t at = b.size() - 12;
    return (b[at] << 8) | b[at + 1];
}

/// MessageClientIDSetter.getNearlyTimeFromID: month start (UTC; Java uses the JVM time zone) of `now` plus
/// the id's unsigned millisecond field; the previous month's start when that is not before `now`.
inline std::int64_t unique_id_nearly_time(std::string_view id, std::int64_t now_wall_millis) {
    const auto b = detail::unique_id_bytes(id);
    const std::size_t at = b.size() - 6;
    const std::int64_t span = (std::int64_t{b[at]} << 24) | (std::int64_t{b[at + 1]} << 16) |
                              (std::int64_t{b[at + 2]} << 8) | std::int64_t{b[at + 3]};
    std::int64_t start = detail::month_start_millis(now_wall_millis);
    if (start + span >= now_wall_millis) {
        start = detail::month_start_millis(now_wall_millis, -1);
    }
    return start + span;
}

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
                      std::int32_t class_loader_hash)
        : clock_(std::move(clock)) {
        fix_ = compose_unique_id(ip, pid, class_loader_hash, 0, 0);
        fix_.resize(fix_.size() - 12);
    }

    /// The per-process prefix (Java's FIX_STRING).
    [[nodiscard]] const std::string& fix_string() const noexcept { return fix_; }

    /// A new id.
    [[nodiscard]] std::string next() {
        const std::int64_t now = clock_->wall_millis();
        std::int64_t start = 0;
        {
            const std::lock_guard lock(mutex_);
            if (now >= next_start_) {  // setStartTime: the month rolled over
                start_ = detail::month_start_millis(now);
                next_start_ = detail::month_start_millis(now, 1);
            }
            start = start_;
        }
        auto diff = static_cast<std::int32_t>(now - start);
        if (diff < 0 && diff > -1000000) {
            diff = 0;
        }
        const auto counter = detail::unique_id_counter().fetch_add(1, std::memory_order_relaxed);
        std::string out = fix_;
        detail::append_hex_int(out, static_cast<std::uint32_t>(diff), 4);
        detail::append_hex_int(out, counter, 2);
        return out;
    }

private:
    static std::int32_t process_hash() {
        static const std::int32_t hash = static_cast<std::int32_t>(std::random_device{}());
        return hash;
    }

    std::shared_ptr<Clock> clock_;
    std::string fix_;
    std::mutex mutex_;
    std::int64_t start_ = 0;
    std::int64_t next_start_ = 0;
};

}  // namespace rmq
