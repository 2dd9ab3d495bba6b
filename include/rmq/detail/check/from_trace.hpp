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
    // A switch, not a table: a kind added to rmq::sim::FaultKind and not mapped here is a -Wswitch error.
    using S = rmq::sim::FaultKind;
    switch (k) {
    case S::PullDropped:
        return FaultKind::PullDropped;
    case S::PullDelayed:
        return FaultKind::PullDelayed;
    case S::OffsetDropped:
        return FaultKind::OffsetDropped;
    case S::OffsetDelayed:
        return FaultKind::OffsetDelayed;
    case S::OffsetDuplicated:
        return FaultKind::OffsetDuplicated;
    case S::LockAnswerDropped:
        return FaultKind::LockAnswerDropped;
    case S::HeartbeatDropped:
        return FaultKind::HeartbeatDropped;
    case S::SendDuplicated:
        return FaultKind::SendDuplicated;
    case S::MemberJoined:
        return FaultKind::Start;
    case S::MemberCrashed:
        return FaultKind::Kill;
    case S::MemberPaused:
        return FaultKind::Pause;
    case S::BrokerRestarted:
    case S::BrokerDown:
        return FaultKind::BrokerKill;
    case S::MemberExpired:
        return FaultKind::Expired;
    case S::BrokerUp:
        return FaultKind::BrokerUp;
    // Without the message they hit: from_pop_trace adds each again with its msg_id, which the rules match.
    case S::PopAnswerDropped:
        return FaultKind::PopAnswerDropped;
    case S::AckDropped:
        return FaultKind::AckDropped;
    }
    return FaultKind::Start;  // not reached: every value is a case
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
