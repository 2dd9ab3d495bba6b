#pragma once

/// @file detail/check/from_pop_trace.hpp
/// A simulation's POP run as the one trace checker's input: its trace as from_trace makes it, its pops as
/// Input::pops (virtual ms as µs, the one broker named "broker" as from_trace names it) and its lost pop
/// answers and acks as PopAnswerDropped and AckDropped faults. rmq::sim::check_pop judges it with
/// Rules::Simulation as a POP run.

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include <rmq/sim/pop_trace.hpp>

#include <rmq/detail/check/from_trace.hpp>
#include <rmq/detail/check/input.hpp>

namespace rmq::detail::check {

[[nodiscard]] inline Input from_pop_trace(const rmq::sim::Trace& t, const rmq::sim::PopTrace& pops) {
    constexpr std::int64_t us_per_ms = 1000;
    Input in = from_trace(t);
    for (const auto& p : pops.popped) {
        const std::string member = std::to_string(p.member);
        const std::string id = fmt::format("{}/{}", p.key, p.seq);
        in.pops.push_back(Pop{.member = member,
                              .key = std::to_string(p.key),
                              .seq = p.seq,
                              .msg_id = id,
                              .broker = "broker",
                              .time_us = p.time * us_per_ms,
                              .invisible_us = p.invisible_millis * us_per_ms,
                              .reconsume_times = p.reconsume_times});
        if (p.answer_lost) {
            in.faults.push_back(Fault{p.time * us_per_ms, FaultKind::PopAnswerDropped, member, {}, id});
        }
    }
    for (const auto& a : pops.acks_lost) {
        in.faults.push_back(Fault{a.time * us_per_ms,
                                  FaultKind::AckDropped,
                                  std::to_string(a.member),
                                  {},
                                  fmt::format("{}/{}", a.key, a.seq)});
    }
    return in;
}

}  // namespace rmq::detail::check
