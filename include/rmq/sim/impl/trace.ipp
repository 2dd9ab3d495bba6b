#pragma once

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include <rmq/sim/trace.hpp>

#include <rmq/detail/check/check.hpp>
#include <rmq/detail/check/from_trace.hpp>

namespace rmq::sim {

RMQ_DECL std::string_view to_string(FaultKind kind) noexcept {
    switch (kind) {
    case FaultKind::PullDropped:
        return "pull-dropped";
    case FaultKind::PullDelayed:
        return "pull-delayed";
    case FaultKind::OffsetDropped:
        return "offset-dropped";
    case FaultKind::OffsetDelayed:
        return "offset-delayed";
    case FaultKind::OffsetDuplicated:
        return "offset-duplicated";
    case FaultKind::LockAnswerDropped:
        return "lock-answer-dropped";
    case FaultKind::HeartbeatDropped:
        return "heartbeat-dropped";
    case FaultKind::SendDuplicated:
        return "send-duplicated";
    case FaultKind::MemberJoined:
        return "member-joined";
    case FaultKind::MemberCrashed:
        return "member-crashed";
    case FaultKind::MemberPaused:
        return "member-paused";
    case FaultKind::BrokerRestarted:
        return "broker-restarted";
    case FaultKind::MemberExpired:
        return "member-expired";
    case FaultKind::BrokerDown:
        return "broker-down";
    case FaultKind::BrokerUp:
        return "broker-up";
    case FaultKind::PopAnswerDropped:
        return "pop-answer-dropped";
    case FaultKind::AckDropped:
        return "ack-dropped";
    }
    return "unknown";
}

}  // namespace rmq::sim

// The hash's helper: internal to the simulation, in its detail namespace.
namespace rmq::detail::sim {

struct Fnv {
    std::uint64_t h = 14695981039346656037ULL;

    void add(std::uint64_t v) noexcept {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xffU;
            h *= 1099511628211ULL;
        }
    }

    void add(std::string_view s) noexcept {
        for (const char c : s) {
            h ^= static_cast<unsigned char>(c);
            h *= 1099511628211ULL;
        }
        add(s.size());
    }
};

}  // namespace rmq::detail::sim

namespace rmq::sim {

RMQ_DECL std::uint64_t Trace::hash() const noexcept {
    detail::sim::Fnv f;
    for (const auto& s : sent) {
        f.add(static_cast<std::uint64_t>(s.key));
        f.add(static_cast<std::uint64_t>(s.seq));
        f.add(static_cast<std::uint64_t>(s.queue_id));
        f.add(s.duplicated ? 1U : 0U);
    }
    for (const auto& h : handled) {
        f.add(static_cast<std::uint64_t>(h.time));
        f.add(static_cast<std::uint64_t>(h.member));
        f.add(static_cast<std::uint64_t>(h.key));
        f.add(static_cast<std::uint64_t>(h.seq));
        f.add(h.queue);
        f.add((h.success ? 1U : 0U) | (h.lock_held ? 2U : 0U));
    }
    for (const auto& e : faults) {
        f.add(static_cast<std::uint64_t>(e.time));
        f.add(static_cast<std::uint64_t>(e.kind));
        f.add(static_cast<std::uint64_t>(e.member));
        f.add(e.queue);
    }
    return f.h;
}

RMQ_DECL std::size_t Trace::injected_faults() const noexcept {
    std::size_t n = 0;
    for (const auto& e : faults) {
        if (e.kind != FaultKind::MemberJoined && e.kind != FaultKind::MemberExpired &&
            e.kind != FaultKind::BrokerUp) {  // events, not faults
            ++n;
        }
    }
    return n;
}

RMQ_DECL std::int64_t Trace::longest_double_ownership() const noexcept {
    std::int64_t longest = 0;
    for (const auto& d : double_ownership) {
        longest = std::max(longest, d.millis());
    }
    return longest;
}

RMQ_DECL std::string Verdict::summary() const {
    return fmt::format(
        "lost {}, order violations {}, ownership violations {}, duplicates {} ({} unexplained)",
        lost,
        order_violations,
        ownership_violations,
        duplicates,
        unexplained_duplicates);
}

RMQ_DECL Verdict check(const Trace& trace, bool ordered, std::int64_t lock_grace_millis) {
    namespace dc = detail::check;
    constexpr std::int64_t us_per_ms = 1000;
    const dc::Report r = dc::check(
        dc::from_trace(trace),
        {.rules = dc::Rules::Simulation, .ordered = ordered, .lock_grace_us = lock_grace_millis * us_per_ms});
    Verdict v;
    v.lost = static_cast<std::size_t>(r.lost);
    v.order_violations = static_cast<std::size_t>(r.order_violations());
    v.ownership_violations = static_cast<std::size_t>(r.without_lock);
    v.duplicates = static_cast<std::size_t>(r.duplicates);
    v.unexplained_duplicates = static_cast<std::size_t>(r.by(dc::Cause::Unexplained));
    v.problems = r.problems;
    return v;
}

}  // namespace rmq::sim
