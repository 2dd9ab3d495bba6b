#pragma once

/// @file detail/check/explain.hpp
/// Why a message was handled again: the one trace checker's duplicate rules, the chaos suite's (against the
/// previous handling, from the driver's signals) and the simulation's (against the first success, from the
/// faults where they struck). POP runs have their own rules in both worlds, sharing their core (a message
/// comes back after its invisible time when its holder was killed or paused, or its broker restarted):
/// explain_pop against the previous handling, explain_pop_simulation against the previous pop.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rmq/detail/check/input.hpp>
#include <rmq/detail/check/report.hpp>

namespace rmq::detail::check {

[[nodiscard]] inline bool broker_fault(FaultKind k) noexcept {
    return k == FaultKind::BrokerKill || k == FaultKind::BrokerStart || k == FaultKind::BrokerUp;
}

/// A fault that moves queues between members: a member's start, exit, pause or expiry, or a broker's.
[[nodiscard]] inline bool membership_change(FaultKind k) noexcept {
    return k == FaultKind::Start || k == FaultKind::Kill || k == FaultKind::Term || k == FaultKind::Pause ||
           k == FaultKind::Resume || k == FaultKind::Expired || broker_fault(k);
}

/// A fault of one queue's offset commit or lock answer (Fault::queue).
[[nodiscard]] inline bool queue_fault(FaultKind k) noexcept {
    return k == FaultKind::OffsetDropped || k == FaultKind::OffsetDelayed ||
           k == FaultKind::OffsetDuplicated || k == FaultKind::LockAnswerDropped;
}

/// When `broker`, killed at `kill_us`, served again: its next BrokerUp, else its next BrokerStart, else the
/// kill.
inline std::int64_t
broker_back_us(const std::string& broker, std::int64_t kill_us, const std::vector<Fault>& faults) {
    std::optional<std::int64_t> up;
    std::optional<std::int64_t> start;
    for (const auto& f : faults) {
        if (f.target != broker || f.time_us < kill_us) {
            continue;
        }
        if (f.kind == FaultKind::BrokerUp && (!up || f.time_us < *up)) {
            up = f.time_us;
        } else if (f.kind == FaultKind::BrokerStart && (!start || f.time_us < *start)) {
            start = f.time_us;
        }
    }
    return up.value_or(start.value_or(kill_us));
}

/// The POP rules' common core (chaos and simulation): a message popped by `member` and never acked comes back
/// once its invisible time passed. Only the member's kill, SIGTERM or pause from `kill_from_us` (a pause:
/// from `pause_from_us`) up to `until_us` (the end of that invisible time, or the repeat if earlier) can have
/// kept the ack away: later, the message was acked or back already. Unexplained when none.
inline Cause pop_holder_gone(const std::string& member,
                             std::int64_t kill_from_us,
                             std::int64_t pause_from_us,
                             std::int64_t until_us,
                             const std::vector<Fault>& faults) {
    for (const auto& [kind, cause] : {std::pair{FaultKind::Kill, Cause::KillOfHolder},
                                      std::pair{FaultKind::Term, Cause::TermOfHolder},
                                      std::pair{FaultKind::Pause, Cause::PauseOfHolder}}) {
        const std::int64_t from = kind == FaultKind::Pause ? pause_from_us : kill_from_us;
        if (std::any_of(faults.begin(), faults.end(), [&](const Fault& f) {
                return f.kind == kind && f.target == member && f.time_us >= from && f.time_us <= until_us;
            })) {
            return cause;
        }
    }
    return Cause::Unexplained;
}

/// The POP rules' other common cause: `broker` (holding the pop's check point and the group's pop offset) was
/// killed from `from_us` to `until_us`, and `in_time(kill)` holds: what it had not flushed came back.
template <class InTime>
bool pop_broker_killed(const std::string& broker,
                       std::int64_t from_us,
                       std::int64_t until_us,
                       const std::vector<Fault>& faults,
                       InTime in_time) {
    return std::any_of(faults.begin(), faults.end(), [&](const Fault& f) {
        return f.kind == FaultKind::BrokerKill && f.target == broker && f.time_us >= from_us &&
               f.time_us <= until_us && in_time(f);
    });
}

/// Chaos, POP: the previous handling's broker (whose check points, pop offsets and acks it was) was killed
/// before the repeat, and the previous handling came at most rebalance_lag_us before the kill (what the
/// broker had not flushed) or before the invisible time after its return passed (an ack to the dead broker;
/// the copies it released on its return: revived check points and rolled-back pop offsets, which may both
/// come back).
inline bool pop_broker_restart(const Handled& previous,
                               const Handled& repeat,
                               const std::vector<Fault>& faults,
                               const Options& o) {
    return pop_broker_killed(previous.broker,
                             std::numeric_limits<std::int64_t>::min(),
                             std::min(repeat.time_us, previous.time_us + o.rebalance_lag_us),
                             faults,
                             [&](const Fault& kill) {
                                 const std::int64_t back = broker_back_us(kill.target, kill.time_us, faults);
                                 return previous.time_us <= back + o.pop_invisible_us + o.slack_us;
                             });
}

/// Chaos, POP: a message handled again came back after its invisible time because its ack did not reach the
/// broker, or its broker restarted. The handler's fault within that time after the previous handling
/// (pop_holder_gone, with the slack around the driver's signals), else a restart of its broker
/// (pop_broker_restart). Another member's start or exit moves nothing: no handover.
inline Cause explain_pop(const Handled& previous,
                         const Handled& repeat,
                         const std::vector<Fault>& faults,
                         const Options& o) {
    const std::int64_t from = previous.time_us - o.slack_us;
    const std::int64_t until = std::min(repeat.time_us, previous.time_us + o.pop_invisible_us + o.slack_us);
    const Cause c = pop_holder_gone(previous.member, from, from, until, faults);
    if (c != Cause::Unexplained) {
        return c;
    }
    return pop_broker_restart(previous, repeat, faults, o) ? Cause::BrokerRestart : Cause::Unexplained;
}

/// Simulation, POP: whether `faults` hold a fault of `kind` on the message of `pop` by its member at or
/// after the pop (`exact`: at the pop's time).
[[nodiscard]] inline bool
pop_message_fault(FaultKind kind, const Pop& pop, bool exact, const std::vector<Fault>& faults) {
    return std::any_of(faults.begin(), faults.end(), [&](const Fault& f) {
        return f.kind == kind && f.target == pop.member && f.msg_id == pop.msg_id &&
               (exact ? f.time_us == pop.time_us : f.time_us >= pop.time_us);
    });
}

/// Simulation, POP: what became of the message's previous pop `prev` explains its pop `next`. The message was
/// stored twice; or its broker restarted within pop_flush_us after the pop (the restart rewound the group's
/// pop offsets to its last flush); or the popping member's call failed (RECONSUME_LATER: back after
/// pop_retry_delay_us, or the invisible time if shorter). Else only once the pop's invisible time passed: its
/// answer or its ack was lost, or its member crashed before then or was paused (at most pause_max_us) across
/// the pop (pop_holder_gone).
inline Cause explain_pop_simulation(const Pop& prev,
                                    const Pop& next,
                                    bool stored_twice,
                                    const std::vector<Handled>& handled,
                                    const std::vector<Fault>& faults,
                                    const Options& o) {
    if (stored_twice) {
        return Cause::SendDuplicated;
    }
    if (pop_broker_killed(prev.broker, prev.time_us, prev.time_us + o.pop_flush_us, faults, [](const Fault&) {
            return true;
        })) {
        return Cause::BrokerRestart;
    }
    const std::int64_t visible = prev.time_us + prev.invisible_us;
    if (std::any_of(handled.begin(), handled.end(), [&](const Handled& h) {
            return !h.success && h.member == prev.member && h.msg_id == prev.msg_id &&
                   h.time_us >= prev.time_us &&
                   next.time_us >= std::min(h.time_us + o.pop_retry_delay_us, visible);
        })) {
        return Cause::RetryCopy;
    }
    if (next.time_us < visible) {
        return Cause::Unexplained;  // back before its invisible time passed: nothing the client did explains
                                    // it
    }
    if (pop_message_fault(FaultKind::PopAnswerDropped, prev, true, faults) ||
        pop_message_fault(FaultKind::AckDropped, prev, false, faults)) {
        return Cause::PopLost;
    }
    return pop_holder_gone(prev.member,
                           std::numeric_limits<std::int64_t>::min(),
                           prev.time_us - o.pause_max_us,
                           std::min(next.time_us, visible),
                           faults);
}

/// The chaos rules: a fault of the previous handling's member within the window, else a broker restart or
/// another membership change up to the rebalance lag before the previous handling.
inline Cause explain_chaos(const Handled& previous,
                           const Handled& repeat,
                           const std::vector<Fault>& faults,
                           const Options& o) {
    if (o.pop_invisible_us > 0) {
        return explain_pop(previous, repeat, faults, o);
    }
    const auto in_window = [&](const Fault& f) {
        return f.time_us + o.slack_us >= previous.time_us && f.time_us <= repeat.time_us &&
               f.time_us - previous.time_us <= o.window_us;
    };
    for (const auto& [kind, cause] : {std::pair{FaultKind::Kill, Cause::KillOfHolder},
                                      std::pair{FaultKind::Term, Cause::TermOfHolder},
                                      std::pair{FaultKind::Pause, Cause::PauseOfHolder}}) {
        if (std::any_of(faults.begin(), faults.end(), [&](const Fault& f) {
                return f.kind == kind && f.target == previous.member && in_window(f);
            })) {
            return cause;
        }
    }
    const auto in_rebalance_window = [&](const Fault& f) {
        return f.time_us + std::max(o.slack_us, o.rebalance_lag_us) >= previous.time_us &&
               f.time_us <= repeat.time_us && f.time_us - previous.time_us <= o.window_us;
    };
    const auto any = [&](auto pred) {
        return std::any_of(
            faults.begin(), faults.end(), [&](const Fault& f) { return pred(f) && in_rebalance_window(f); });
    };
    if (any([](const Fault& f) {
            return f.kind == FaultKind::BrokerKill || f.kind == FaultKind::BrokerStart;
        })) {
        return Cause::BrokerRestart;
    }
    if (any([](const Fault& f) { return !broker_fault(f.kind); })) {
        return Cause::Handover;
    }
    return Cause::Unexplained;
}

/// What the simulation's rules know of one message when it succeeds again.
struct Attempts {
    std::size_t failures = 0;
    std::size_t successes = 0;  ///< this one included
    bool duplicated_send = false;
};

/// The simulation's rules: a second stored copy; without order, a retry copy per failed call; another
/// member; or, from lock_grace_us before the first success to the repeat, a broker restart, a fault of one of
/// the two queues, or any membership change.
inline Cause explain_simulation(const Handled& first,
                                const Handled& repeat,
                                const Attempts& a,
                                const std::vector<Fault>& faults,
                                const Options& o) {
    if (a.duplicated_send) {
        return Cause::SendDuplicated;
    }
    // Without order, each failed delivery sends a copy back to the retry topic, and each copy may succeed
    // once: two members that both failed a message (a rebalance in between) make two copies.
    if (!o.ordered && a.successes <= a.failures) {
        return Cause::RetryCopy;
    }
    if (first.member != repeat.member) {
        return Cause::Handover;
    }
    const auto within = [&](const Fault& f) {
        return f.time_us >= first.time_us - o.lock_grace_us && f.time_us <= repeat.time_us;
    };
    const auto any = [&](auto pred) {
        return std::any_of(
            faults.begin(), faults.end(), [&](const Fault& f) { return within(f) && pred(f); });
    };
    if (any([](const Fault& f) { return broker_fault(f.kind); })) {
        return Cause::BrokerRestart;
    }
    if (any([&](const Fault& f) {
            return queue_fault(f.kind) && (f.queue == first.queue || f.queue == repeat.queue);
        })) {
        return Cause::QueueFault;
    }
    return any([](const Fault& f) { return membership_change(f.kind); }) ? Cause::Handover
                                                                         : Cause::Unexplained;
}

}  // namespace rmq::detail::check
