#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include <rmq/sim/pop_trace.hpp>

namespace rmq::detail::sim {

/// The POP checker: one pass over the pops in order, each judged against the message's previous pop.
class PopChecker {
public:
    PopChecker(const rmq::sim::Trace& trace, const rmq::sim::PopTrace& pops, std::int64_t pause_max)
        : trace_(trace)
        , pops_(pops)
        , pause_max_(pause_max) {
        for (const auto& s : trace.sent) {
            if (s.duplicated) {
                stored_twice_.insert({s.key, s.seq});
            }
        }
    }

    rmq::sim::Verdict run() {
        const auto base = rmq::sim::check(trace_, false);
        v_.lost = base.lost;
        for (const auto& p : base.problems) {
            if (p.find("never handled") != std::string::npos) {
                problem(p);
            }
        }
        std::map<std::pair<int, int>, const rmq::sim::Popped*> previous;
        for (const auto& p : pops_.popped) {
            const auto id = std::make_pair(p.key, p.seq);
            if (const auto it = previous.find(id); it != previous.end() && !explained(*it->second, p)) {
                ++v_.unexplained_duplicates;
                problem(fmt::format("key {} seq {} popped again at {} ms by member {} (reconsume times {}): "
                                    "nothing explains it after its pop at {} ms by member {}",
                                    p.key,
                                    p.seq,
                                    p.time,
                                    p.member,
                                    p.reconsume_times,
                                    it->second->time,
                                    it->second->member));
            }
            previous[id] = &p;
        }
        std::set<std::pair<int, int>> succeeded;
        for (const auto& h : trace_.handled) {
            if (h.success && !succeeded.insert({h.key, h.seq}).second) {
                ++v_.duplicates;
            }
        }
        return std::move(v_);
    }

private:
    static constexpr std::size_t max_problems = 10;

    /// Whether what became of `prev` explains the pop `next` of the same message.
    [[nodiscard]] bool explained(const rmq::sim::Popped& prev, const rmq::sim::Popped& next) const {
        if (stored_twice_.contains({next.key, next.seq}) || restarted_after(prev)) {
            return true;
        }
        const std::int64_t visible = prev.time + prev.invisible_millis;
        if (failed_after(prev, next.time)) {
            return true;
        }
        if (next.time < visible) {
            return false;  // back before its invisible time passed: nothing the client did explains that
        }
        return prev.answer_lost || ack_lost_after(prev) || member_gone(prev);
    }

    /// A broker restart rewinds the group's pop offsets to its last flush (every second).
    [[nodiscard]] bool restarted_after(const rmq::sim::Popped& prev) const {
        return std::ranges::any_of(trace_.faults, [&](const rmq::sim::FaultEvent& e) {
            return (e.kind == rmq::sim::FaultKind::BrokerRestarted ||
                    e.kind == rmq::sim::FaultKind::BrokerDown) &&
                   e.time >= prev.time && e.time <= prev.time + 1000;
        });
    }

    /// A failed handling (RECONSUME_LATER) by the popping member changes the invisible time to a retry
    /// delay of 10 s at least: the next pop comes that long after the failure at the earliest.
    [[nodiscard]] bool failed_after(const rmq::sim::Popped& prev, std::int64_t next_time) const {
        return std::ranges::any_of(trace_.handled, [&](const rmq::sim::Handled& h) {
            return !h.success && h.member == prev.member && h.key == prev.key && h.seq == prev.seq &&
                   h.time >= prev.time &&
                   next_time >= std::min(h.time + 10000, prev.time + prev.invisible_millis);
        });
    }

    [[nodiscard]] bool ack_lost_after(const rmq::sim::Popped& prev) const {
        return std::ranges::any_of(pops_.acks_lost, [&](const rmq::sim::AckLost& a) {
            return a.member == prev.member && a.key == prev.key && a.seq == prev.seq && a.time >= prev.time;
        });
    }

    /// The popping member crashed (before the message was handled) or was paused past its invisible time.
    [[nodiscard]] bool member_gone(const rmq::sim::Popped& prev) const {
        const std::int64_t visible = prev.time + prev.invisible_millis;
        return std::ranges::any_of(trace_.faults, [&](const rmq::sim::FaultEvent& e) {
            if (e.member != prev.member) {
                return false;
            }
            if (e.kind == rmq::sim::FaultKind::MemberCrashed) {
                return e.time <= visible;
            }
            return e.kind == rmq::sim::FaultKind::MemberPaused && e.time <= visible &&
                   e.time + pause_max_ >= prev.time;
        });
    }

    void problem(std::string text) {
        if (v_.problems.size() < max_problems) {
            v_.problems.push_back(std::move(text));
        }
    }

    const rmq::sim::Trace& trace_;
    const rmq::sim::PopTrace& pops_;
    std::int64_t pause_max_;
    std::set<std::pair<int, int>> stored_twice_;
    rmq::sim::Verdict v_;
};

}  // namespace rmq::detail::sim

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
    return detail::sim::PopChecker(trace, pops, pause_max_millis).run();
}

}  // namespace rmq::sim
