#pragma once

#include <algorithm>
#include <cstdint>

#include <rmq/sim/pop_trace.hpp>

#include <rmq/detail/check/check.hpp>
#include <rmq/detail/check/from_pop_trace.hpp>

namespace rmq::sim {

RMQ_DECL std::uint64_t PopTrace::hash() const noexcept {
    detail::sim::Fnv f;
    for (const auto& p : popped) {
        f.add(static_cast<std::uint64_t>(p.time));
        f.add(static_cast<std::uint64_t>(p.member));
        f.add(static_cast<std::uint64_t>(p.key));
        f.add(static_cast<std::uint64_t>(p.seq));
        f.add(static_cast<std::uint64_t>(p.invisible_millis));
        f.add(static_cast<std::uint64_t>(p.reconsume_times));
        f.add(p.answer_lost ? 1U : 0U);
    }
    for (const auto& a : acks_lost) {
        f.add(static_cast<std::uint64_t>(a.time));
        f.add(static_cast<std::uint64_t>(a.member));
        f.add(static_cast<std::uint64_t>(a.key));
        f.add(static_cast<std::uint64_t>(a.seq));
    }
    return f.h;
}

RMQ_DECL Verdict check_pop(const Trace& trace, const PopTrace& pops, std::int64_t pause_max_millis) {
    namespace dc = detail::check;
    constexpr std::int64_t us_per_ms = 1000;
    // Each pop carries its invisible time; pop_invisible_us > 0 only makes the run a POP run.
    std::int64_t invisible_us = 1;
    for (const auto& p : pops.popped) {
        invisible_us = std::max(invisible_us, p.invisible_millis * us_per_ms);
    }
    const dc::Report r = dc::check(dc::from_pop_trace(trace, pops),
                                   {.pop_invisible_us = invisible_us,
                                    .rules = dc::Rules::Simulation,
                                    .ordered = false,
                                    .pause_max_us = pause_max_millis * us_per_ms});
    Verdict v;
    v.lost = static_cast<std::size_t>(r.lost);
    v.duplicates = static_cast<std::size_t>(r.duplicates);
    v.unexplained_duplicates = static_cast<std::size_t>(r.by(dc::Cause::Unexplained));
    v.problems = r.problems;
    return v;
}

}  // namespace rmq::sim
