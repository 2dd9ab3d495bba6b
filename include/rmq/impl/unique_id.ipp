#pragma once

/// @file impl/unique_id.ipp
/// Definitions of unique_id.hpp.

#include <rmq/unique_id.hpp>

// Only the definitions need these.
#include <chrono>
#include <random>

#include <fmt/format.h>

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

RMQ_DECL void detail::append_hex(std::string& out, std::span<const std::uint8_t> bytes) {
    static constexpr char digits[] = "0123456789ABCDEF";
    for (const std::uint8_t b : bytes) {
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 0xF]);
    }
}

RMQ_DECL void detail::append_hex_int(std::string& out, std::uint32_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) {
        const auto b = static_cast<std::uint8_t>(v >> (8 * i));
        append_hex(out, std::span<const std::uint8_t>(&b, 1));
    }
}

RMQ_DECL std::vector<std::uint8_t> detail::hex_to_bytes(std::string_view hex) {
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

RMQ_DECL std::vector<std::uint8_t> detail::unique_id_bytes(std::string_view id) {
    if (id.size() != 32 && id.size() != 56) {
        throw InvalidArgument(fmt::format("a unique message id has 32 or 56 hex characters: {}", id));
    }
    return hex_to_bytes(id);
}

RMQ_DECL std::int64_t detail::month_start_millis(std::int64_t wall_millis, int months) {
    using namespace std::chrono;
    const sys_days day = floor<days>(sys_time<milliseconds>(milliseconds(wall_millis)));
    const year_month ym =
        year_month_day(day).year() / year_month_day(day).month() + std::chrono::months(months);
    const sys_days start = ym / std::chrono::day(1);
    return duration_cast<milliseconds>(start.time_since_epoch()).count();
}

RMQ_DECL std::atomic<std::uint32_t>& detail::unique_id_counter() {
    static std::atomic<std::uint32_t> counter{0};
    return counter;
}

RMQ_DECL std::vector<std::uint8_t> detail::local_ip() {
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

RMQ_DECL std::int32_t detail::process_id() {
#if __has_include(<unistd.h>)
    return static_cast<std::int32_t>(::getpid());
#else
    return 0;
#endif
}

RMQ_DECL std::string compose_unique_id(std::span<const std::uint8_t> ip,
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

RMQ_DECL std::vector<std::uint8_t> unique_id_ip(std::string_view id) {
    auto bytes = detail::unique_id_bytes(id);
    bytes.resize(id.size() == 32 ? 4 : 16);
    return bytes;
}

RMQ_DECL std::string unique_id_ip_string(std::string_view id) {
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

RMQ_DECL std::int32_t unique_id_pid(std::string_view id) {
    const auto b = detail::unique_id_bytes(id);
    const std::size_t at = b.size() - 12;
    return (b[at] << 8) | b[at + 1];
}

RMQ_DECL std::int64_t unique_id_nearly_time(std::string_view id, std::int64_t now_wall_millis) {
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

RMQ_DECL UniqueIdGenerator::UniqueIdGenerator(std::shared_ptr<Clock> clock,
                                              std::vector<std::uint8_t> ip,
                                              std::int32_t pid,
                                              std::int32_t class_loader_hash)
    : clock_(std::move(clock)) {
    fix_ = compose_unique_id(ip, pid, class_loader_hash, 0, 0);
    fix_.resize(fix_.size() - 12);
}

RMQ_DECL std::string UniqueIdGenerator::next() {
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

RMQ_DECL std::int32_t UniqueIdGenerator::process_hash() {
    static const std::int32_t hash = static_cast<std::int32_t>(std::random_device{}());
    return hash;
}

}  // namespace rmq
