#pragma once

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include <rmq/sim/trace.hpp>

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

// The checker's and the hash's helpers: internals of the simulation, in its detail namespace.
namespace rmq::detail::sim {

using rmq::sim::FaultEvent;
using rmq::sim::FaultKind;
using rmq::sim::Handled;
using rmq::sim::Trace;
using rmq::sim::Verdict;

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

inline bool membership_change(FaultKind k) noexcept {
    return k == FaultKind::MemberJoined || k == FaultKind::MemberCrashed || k == FaultKind::MemberPaused ||
           k == FaultKind::BrokerRestarted || k == FaultKind::MemberExpired || k == FaultKind::BrokerDown ||
           k == FaultKind::BrokerUp;
}

inline bool queue_fault(FaultKind k) noexcept {
    return k == FaultKind::OffsetDropped || k == FaultKind::OffsetDelayed ||
           k == FaultKind::OffsetDuplicated || k == FaultKind::LockAnswerDropped;
}

// Whether something that may legitimately cause a redelivery happened in [from, to]: a membership change or
// restart anywhere, or an offset or lock fault on one of the queues.
inline bool disturbed(
    const Trace& trace, std::int64_t from, std::int64_t to, const std::string& q1, const std::string& q2) {
    return std::ranges::any_of(trace.faults, [&](const FaultEvent& e) {
        return e.time >= from && e.time <= to &&
               (membership_change(e.kind) || (queue_fault(e.kind) && (e.queue == q1 || e.queue == q2)));
    });
}

inline bool restarted_within(const Trace& trace, std::int64_t from, std::int64_t to) {
    return std::ranges::any_of(trace.faults, [&](const FaultEvent& e) {
        return (e.kind == FaultKind::BrokerRestarted || e.kind == FaultKind::BrokerDown) && e.time >= from &&
               e.time <= to;
    });
}

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

}  // namespace rmq::sim

namespace rmq::detail::sim {

// One pass over a trace's handlings, in order.
class Checker {
public:
    Checker(const Trace& trace, bool ordered, std::int64_t grace)
        : trace_(&trace)
        , ordered_(ordered)
        , grace_(grace) {
        for (const auto& s : trace.sent) {
            duplicated_send_[{s.key, s.seq}] = s.duplicated;
        }
    }

    Verdict run() {
        for (const auto& h : trace_->handled) {
            auto& [failures, successes] = attempts_[{h.key, h.seq}];
            ++(h.success ? successes : failures);
            if (ordered_) {
                check_order(h);
            }
            if (h.success) {
                check_duplicate(h, failures, successes);
            }
        }
        for (const auto& s : trace_->sent) {
            if (!first_success_.contains({s.key, s.seq})) {
                ++v_.lost;
                problem(fmt::format(
                    "key {} seq {} (queue {}) never handled successfully", s.key, s.seq, s.queue_id));
            }
        }
        return std::move(v_);
    }

private:
    static constexpr std::size_t max_problems = 10;

    void problem(std::string text) {
        if (v_.problems.size() < max_problems) {
            v_.problems.push_back(std::move(text));
        }
    }

    void check_order(const Handled& h) {
        if (h.seq > 0 && !first_success_.contains({h.key, h.seq - 1})) {
            ++v_.order_violations;
            problem(fmt::format("t={} member {}: key {} seq {} handled before seq {} succeeded",
                                h.time,
                                h.member,
                                h.key,
                                h.seq,
                                h.seq - 1));
        }
        if (!h.lock_held && !restarted_within(*trace_, h.time - grace_, h.time)) {
            ++v_.ownership_violations;
            problem(fmt::format("t={} member {}: key {} seq {} handled on {} without the broker's lock",
                                h.time,
                                h.member,
                                h.key,
                                h.seq,
                                h.queue));
        }
    }

    void check_duplicate(const Handled& h, std::size_t failures, std::size_t successes) {
        const std::pair<int, int> id{h.key, h.seq};
        const auto it = first_success_.find(id);
        if (it == first_success_.end()) {
            first_success_.emplace(id, &h);
            return;
        }
        ++v_.duplicates;
        const Handled& first = *it->second;
        // Without order, each failed delivery sends a copy back to the retry topic, and each copy may
        // succeed once: two members that both failed a message (a rebalance in between) make two copies.
        const bool retry_copies = !ordered_ && successes <= failures;
        const bool explained = duplicated_send_[id] || retry_copies || first.member != h.member ||
                               disturbed(*trace_, first.time - grace_, h.time, first.queue, h.queue);
        if (!explained) {
            ++v_.unexplained_duplicates;
            problem(
                fmt::format("t={} member {}: key {} seq {} handled again (first at t={} by member {}) with "
                            "no fault or rebalance in between",
                            h.time,
                            h.member,
                            h.key,
                            h.seq,
                            first.time,
                            first.member));
        }
    }

    const Trace* trace_;
    bool ordered_;
    std::int64_t grace_;
    Verdict v_;
    std::map<std::pair<int, int>, bool> duplicated_send_;
    std::map<std::pair<int, int>, const Handled*> first_success_;
    // Per message: failed and successful handlings so far.
    std::map<std::pair<int, int>, std::pair<std::size_t, std::size_t>> attempts_;
};

}  // namespace rmq::detail::sim

namespace rmq::sim {

RMQ_DECL Verdict check(const Trace& trace, bool ordered, std::int64_t lock_grace_millis) {
    return detail::sim::Checker(trace, ordered, lock_grace_millis).run();
}

}  // namespace rmq::sim
