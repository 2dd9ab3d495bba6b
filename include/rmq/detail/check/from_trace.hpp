#pragma once

/// @file detail/check/from_trace.hpp
/// A simulation's trace as the one trace checker's input: virtual ms as µs, keys and members by their
/// decimal names, message ids "key/seq"; a broker restart as a BrokerKill and a BrokerStart at one time, an
/// outage as a BrokerKill then a BrokerUp. rmq::sim::check judges it with Rules::Simulation; the simulation
/// tests also judge it with the chaos suite's rules.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include <rmq/sim/trace.hpp>

#include <rmq/detail/check/input.hpp>

namespace rmq::detail::check {

/// The kind of the simulation's `k` (a restart's BrokerStart added by from_trace).
[[nodiscard]] inline FaultKind from_sim(rmq::sim::FaultKind k) noexcept {
    using enum FaultKind;
    // in the order of rmq::sim::FaultKind's values
    constexpr FaultKind kinds[] = {PullDropped,
                                   PullDelayed,
                                   OffsetDropped,
                                   OffsetDelayed,
                                   OffsetDuplicated,
                                   LockAnswerDropped,
                                   HeartbeatDropped,
                                   SendDuplicated,
                                   Start,
                                   Kill,
                                   Pause,
                                   BrokerKill,
                                   Expired,
                                   BrokerKill,
                                   BrokerUp};
    static_assert(std::size(kinds) == static_cast<std::size_t>(rmq::sim::FaultKind::BrokerUp) + 1);
    return kinds[static_cast<std::size_t>(k)];
}

[[nodiscard]] inline Input from_trace(const rmq::sim::Trace& t) {
    constexpr std::int64_t us_per_ms = 1000;
    const auto id = [](int key, int seq) {
        return fmt::format("{}/{}", key, seq);
    };
    Input in;
    for (const auto& s : t.sent) {
        in.sent.push_back(Sent{.key = std::to_string(s.key),
                               .seq = s.seq,
                               .msg_id = id(s.key, s.seq),
                               .broker = {},
                               .queue_id = s.queue_id,
                               .offset = s.seq,
                               .time_us = 0,
                               .duplicated = s.duplicated});
    }
    for (const auto& h : t.handled) {
        in.handled.push_back(Handled{.member = std::to_string(h.member),
                                     .key = std::to_string(h.key),
                                     .seq = h.seq,
                                     .msg_id = id(h.key, h.seq),
                                     .broker = {},
                                     .queue_id = 0,
                                     .offset = h.seq,
                                     .time_us = h.time * us_per_ms,
                                     .success = h.success,
                                     .lock = h.lock_held ? Lock::Held : Lock::NotHeld,
                                     .queue = h.queue});
    }
    for (const auto& f : t.faults) {
        const bool broker = f.kind == rmq::sim::FaultKind::BrokerRestarted ||
                            f.kind == rmq::sim::FaultKind::BrokerDown ||
                            f.kind == rmq::sim::FaultKind::BrokerUp;
        const std::string target = broker ? "broker" : f.member >= 0 ? std::to_string(f.member) : "";
        in.faults.push_back(Fault{f.time * us_per_ms, from_sim(f.kind), target, f.queue});
        if (f.kind == rmq::sim::FaultKind::BrokerRestarted) {
            in.faults.push_back(Fault{f.time * us_per_ms, FaultKind::BrokerStart, target, f.queue});
        }
    }
    return in;
}

}  // namespace rmq::detail::check
