#pragma once

// The chaos checker (docs/chaos.md): from what a keyed producer sent, what every consumer member handled and
// the log of injected faults, it computes lost messages, duplicates explained by the faults, per-key order
// violations, rewinds, the longest stall of a key and shutdown times. Pure: no I/O and nothing of rmq's
// transport, so the real-cluster chaos programs (tests/chaos/) and a simulator feed it the same way. Times
// are microseconds on one clock (the real runs use the system clock of one machine).

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace rmq_chaos {

/// One message the producer stored (SEND_OK). `seq` counts per key from 0; each key goes to one queue.
struct Sent {
    std::string key;
    std::int64_t seq = 0;
    std::string msg_id;
    std::string broker;
    int queue_id = 0;
    std::int64_t offset = 0;
    std::int64_t time_us = 0;  // when the send returned
};

/// One handling of a message by a member's listener, recorded (and flushed) before the listener returned
/// success. `member` names one incarnation of a process (a restarted member is another member).
struct Handled {
    std::string member;
    std::string key;
    std::int64_t seq = 0;
    std::string msg_id;
    std::string broker;
    int queue_id = 0;
    std::int64_t offset = 0;
    std::int64_t time_us = 0;
};

enum class FaultKind {
    Start,        // a member (incarnation) started: joins the group
    Kill,         // kill -9 of a member
    Term,         // SIGTERM of a member (clean shutdown)
    Pause,        // SIGSTOP of a member
    Resume,       // SIGCONT of a member
    BrokerKill,   // kill -9 of a broker (target: broker name)
    BrokerStart,  // a killed broker started again
    BrokerUp,     // ... and serves again (its start command returned; the POP rules' end of the outage)
};

[[nodiscard]] inline std::string_view to_string(FaultKind k) noexcept {
    switch (k) {
    case FaultKind::Start:
        return "start";
    case FaultKind::Kill:
        return "kill";
    case FaultKind::Term:
        return "term";
    case FaultKind::Pause:
        return "pause";
    case FaultKind::Resume:
        return "resume";
    case FaultKind::BrokerKill:
        return "broker_kill";
    case FaultKind::BrokerStart:
        return "broker_start";
    case FaultKind::BrokerUp:
        return "broker_up";
    }
    return "?";
}

/// The kind named `s` (as to_string prints it); false when `s` names none.
[[nodiscard]] inline bool fault_kind_from(std::string_view s, FaultKind& out) noexcept {
    for (const FaultKind k : {FaultKind::Start,
                              FaultKind::Kill,
                              FaultKind::Term,
                              FaultKind::Pause,
                              FaultKind::Resume,
                              FaultKind::BrokerKill,
                              FaultKind::BrokerStart,
                              FaultKind::BrokerUp}) {
        if (to_string(k) == s) {
            out = k;
            return true;
        }
    }
    return false;
}

struct Fault {
    std::int64_t time_us = 0;  // just before the signal was sent / the command ran
    FaultKind kind = FaultKind::Start;
    std::string target;  // member or broker name
};

/// A member's clean shutdown: from the SIGTERM (or the end of the run) to the end of shutdown().
struct Shutdown {
    std::string member;
    std::int64_t requested_us = 0;
    std::int64_t done_us = 0;
};

struct Input {
    std::vector<Sent> sent;
    std::vector<Handled> handled;  // any order; each member's records in its log order
    std::vector<Fault> faults;
    std::vector<Shutdown> shutdowns;
    std::int64_t send_failures = 0;  // sends that did not return SEND_OK (not in `sent`)
};

/// Why a message was handled again. Checked in this order; the first that fits wins.
enum class Cause {
    KillOfHolder,   // the member that handled it before was killed (kill -9) between the two handlings
    TermOfHolder,   // ... was stopped with SIGTERM
    PauseOfHolder,  // ... was paused (SIGSTOP)
    BrokerRestart,  // a broker was killed or started between the two handlings
    Handover,  // another member started/stopped/paused/resumed shortly before or in between: the queue moved
    Unexplained,  // none of these
};
inline constexpr int cause_count = 6;

[[nodiscard]] inline std::string_view to_string(Cause c) noexcept {
    switch (c) {
    case Cause::KillOfHolder:
        return "kill of the holder";
    case Cause::TermOfHolder:
        return "SIGTERM of the holder";
    case Cause::PauseOfHolder:
        return "pause of the holder";
    case Cause::BrokerRestart:
        return "broker restart";
    case Cause::Handover:
        return "handover";
    case Cause::Unexplained:
        return "unexplained";
    }
    return "?";
}

struct Options {
    /// A fault explains a repeat when it happened at most this long after the previous handling (offsets are
    /// committed every few seconds; a message handled long before a fault was committed already).
    std::int64_t window_us = 30'000'000;
    /// Tolerance for a record written just after the driver logged the fault (the signal is sent after).
    std::int64_t slack_us = 1'000'000;
    /// A membership change or broker restart moves queues only at the members' next rebalance: such a fault
    /// explains repeats whose previous handling came up to this long after it (two members briefly consuming
    /// a queue that moves, which Concurrently allows).
    std::int64_t rebalance_lag_us = 10'000'000;
    /// Examples kept per kind of finding.
    std::size_t examples = 5;
    /// > 0: a POP run (docs/chaos.md#pop-mode), the members' pop_invisible_time. No queue moves between POP
    /// members, so a repeat is a redelivery after that time and other rules explain it (detail::explain_pop).
    std::int64_t pop_invisible_us = 0;
};

struct Duplicate {
    std::string msg_id;
    std::string key;
    std::int64_t seq = 0;
    std::string first_member;  // the previous handling's member
    std::string member;        // the repeat's member
    std::int64_t previous_us = 0;
    std::int64_t time_us = 0;
    Cause cause = Cause::Unexplained;
};

enum class OrderFault {
    /// A seq handled for the first time after a higher seq of its key was handled for the first time.
    OutOfOrder,
    /// A seq handled for the first time right after a handling of the key that was not its predecessor:
    /// another
    /// handling of an older seq came between (a stale or second holder consumed the key concurrently).
    Interleaved,
};

struct OrderViolation {
    OrderFault fault = OrderFault::OutOfOrder;
    std::string key;
    std::int64_t seq = 0;
    std::int64_t after_seq =
        0;  // the key's previous handling (Interleaved) / highest first handling (OutOfOrder)
    std::string member;
    std::int64_t time_us = 0;
    std::int64_t after_time_us = 0;  // when after_seq was handled (that handling)
};

struct Stall {
    std::string key;
    std::int64_t seq = 0;  // the message that waited
    std::int64_t wait_us = 0;
    std::int64_t time_us = 0;  // when it was finally handled
};

struct Report {
    std::int64_t sent = 0;
    std::int64_t send_failures = 0;
    std::int64_t handled = 0;  // every handling
    std::int64_t unique = 0;   // distinct sent messages handled at least once
    std::int64_t lost = 0;     // sent, never handled
    std::int64_t unknown =
        0;  // distinct handled messages that were not in `sent` (e.g. a failed send stored)
    std::int64_t duplicates = 0;                       // handlings beyond the first
    std::array<std::int64_t, cause_count> by_cause{};  // indexed by Cause
    std::int64_t out_of_order = 0;
    std::int64_t interleaved = 0;
    std::int64_t rewinds = 0;  // jumps back of a key to re-handle already handled seqs
    std::int64_t keys = 0;
    Stall longest_stall;        // the longest wait of any message for its key's turn
    std::vector<Stall> stalls;  // the longest wait per key, longest first (Options::examples)
    std::map<std::string, std::int64_t> faults;  // count per FaultKind name
    std::vector<Shutdown> shutdowns;             // sorted by duration, longest first
    std::vector<std::string> lost_examples;
    std::vector<Duplicate> unexplained_examples;
    std::vector<OrderViolation> violation_examples;

    [[nodiscard]] std::int64_t by(Cause c) const noexcept { return by_cause.at(static_cast<std::size_t>(c)); }

    [[nodiscard]] std::int64_t order_violations() const noexcept { return out_of_order + interleaved; }

    /// The chaos suite's goal: nothing lost, no unexplained duplicate, and (for ordered policies) no order
    /// violation.
    [[nodiscard]] bool ok(bool ordered) const noexcept {
        return lost == 0 && by(Cause::Unexplained) == 0 && (!ordered || order_violations() == 0);
    }
};

namespace detail {

/// Records sorted by time; ties keep the input order (each member's log order).
inline std::vector<const Handled*> by_time(const std::vector<Handled>& handled) {
    std::vector<const Handled*> out;
    out.reserve(handled.size());
    for (const auto& h : handled) {
        out.push_back(&h);
    }
    std::stable_sort(
        out.begin(), out.end(), [](const Handled* a, const Handled* b) { return a->time_us < b->time_us; });
    return out;
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

/// POP: the previous handling's broker (whose check points, pop offsets and acks it was) was killed before
/// the repeat, and the previous handling came at most rebalance_lag_us before the kill (what the broker had
/// not flushed) or before the invisible time after its return passed (an ack to the dead broker; the copies
/// it released on its return: revived check points and rolled-back pop offsets, which may both come back).
inline bool pop_broker_restart(const Handled& previous,
                               const Handled& repeat,
                               const std::vector<Fault>& faults,
                               const Options& o) {
    return std::any_of(faults.begin(), faults.end(), [&](const Fault& f) {
        if (f.kind != FaultKind::BrokerKill || f.target != previous.broker || f.time_us > repeat.time_us) {
            return false;
        }
        const std::int64_t back = broker_back_us(f.target, f.time_us, faults);
        return previous.time_us + o.rebalance_lag_us >= f.time_us &&
               previous.time_us <= back + o.pop_invisible_us + o.slack_us;
    });
}

/// A POP run: a message handled again came back after its invisible time because its ack did not reach the
/// broker, or its broker restarted. Only the handler's fault within that time after the previous handling can
/// have kept the ack away (later, the message was acked or back already): killed, stopped or paused before
/// acking; else a restart of its broker (pop_broker_restart). Another member's start or exit moves nothing:
/// no handover.
inline Cause explain_pop(const Handled& previous,
                         const Handled& repeat,
                         const std::vector<Fault>& faults,
                         const Options& o) {
    const std::int64_t from = previous.time_us - o.slack_us;
    const std::int64_t until = std::min(repeat.time_us, previous.time_us + o.pop_invisible_us + o.slack_us);
    for (const auto& [kind, cause] : {std::pair{FaultKind::Kill, Cause::KillOfHolder},
                                      std::pair{FaultKind::Term, Cause::TermOfHolder},
                                      std::pair{FaultKind::Pause, Cause::PauseOfHolder}}) {
        if (std::any_of(faults.begin(), faults.end(), [&](const Fault& f) {
                return f.kind == kind && f.target == previous.member && f.time_us >= from &&
                       f.time_us <= until;
            })) {
            return cause;
        }
    }
    return pop_broker_restart(previous, repeat, faults, o) ? Cause::BrokerRestart : Cause::Unexplained;
}

inline Cause
explain(const Handled& previous, const Handled& repeat, const std::vector<Fault>& faults, const Options& o) {
    if (o.pop_invisible_us > 0) {
        return explain_pop(previous, repeat, faults, o);
    }
    const auto in_window = [&](const Fault& f) {
        return f.time_us + o.slack_us >= previous.time_us && f.time_us <= repeat.time_us &&
               f.time_us - previous.time_us <= o.window_us;
    };
    const auto holder_fault = [&](FaultKind k) {
        return std::any_of(faults.begin(), faults.end(), [&](const Fault& f) {
            return f.kind == k && f.target == previous.member && in_window(f);
        });
    };
    if (holder_fault(FaultKind::Kill)) {
        return Cause::KillOfHolder;
    }
    if (holder_fault(FaultKind::Term)) {
        return Cause::TermOfHolder;
    }
    if (holder_fault(FaultKind::Pause)) {
        return Cause::PauseOfHolder;
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
    if (any([](const Fault& f) {
            return f.kind != FaultKind::BrokerKill && f.kind != FaultKind::BrokerStart &&
                   f.kind != FaultKind::BrokerUp;
        })) {
        return Cause::Handover;
    }
    return Cause::Unexplained;
}

/// Whether `member` may have lost its queues and taken them again in (from_us, to_us]: it was paused or
/// resumed, or a broker restarted (its locks were lost).
inline bool could_have_lost_queue(const std::string& member,
                                  std::int64_t from_us,
                                  std::int64_t to_us,
                                  const std::vector<Fault>& faults) {
    return std::any_of(faults.begin(), faults.end(), [&](const Fault& f) {
        const bool own = (f.kind == FaultKind::Pause || f.kind == FaultKind::Resume) && f.target == member;
        const bool broker = f.kind == FaultKind::BrokerKill || f.kind == FaultKind::BrokerStart;
        return (own || broker) && f.time_us > from_us && f.time_us <= to_us;
    });
}

}  // namespace detail

/// Computes the report. `input.handled` may hold records of messages that are not in `input.sent` (counted as
/// unknown, and still checked for order by key and seq).
[[nodiscard]] inline Report check(const Input& input, const Options& o = {}) {
    Report r;
    r.sent = static_cast<std::int64_t>(input.sent.size());
    r.send_failures = input.send_failures;
    r.handled = static_cast<std::int64_t>(input.handled.size());
    for (const auto& f : input.faults) {
        ++r.faults[std::string(to_string(f.kind))];
    }

    const auto records = detail::by_time(input.handled);

    // lost, unique, unknown, duplicates by cause
    std::unordered_map<std::string, const Handled*> last_handling;  // msg id -> its latest handling so far
    std::unordered_map<std::string, std::int64_t> sent_time;
    for (const auto& s : input.sent) {
        sent_time.emplace(s.msg_id, s.time_us);
    }
    for (const Handled* h : records) {
        auto [it, first] = last_handling.try_emplace(h->msg_id, h);
        if (first) {
            ++(sent_time.contains(h->msg_id) ? r.unique : r.unknown);
            continue;
        }
        const Cause c = detail::explain(*it->second, *h, input.faults, o);
        ++r.duplicates;
        ++r.by_cause.at(static_cast<std::size_t>(c));
        if (c == Cause::Unexplained && r.unexplained_examples.size() < o.examples) {
            r.unexplained_examples.push_back(Duplicate{.msg_id = h->msg_id,
                                                       .key = h->key,
                                                       .seq = h->seq,
                                                       .first_member = it->second->member,
                                                       .member = h->member,
                                                       .previous_us = it->second->time_us,
                                                       .time_us = h->time_us,
                                                       .cause = c});
        }
        it->second = h;
    }
    for (const auto& s : input.sent) {
        if (!last_handling.contains(s.msg_id)) {
            ++r.lost;
            if (r.lost_examples.size() < o.examples) {
                r.lost_examples.push_back(fmt::format(
                    "{} (key {} seq {}, {}:{}@{})", s.msg_id, s.key, s.seq, s.broker, s.queue_id, s.offset));
            }
        }
    }

    // per key: order, rewinds, stalls
    std::map<std::string, std::vector<const Handled*>> per_key;
    for (const Handled* h : records) {
        per_key[h->key].push_back(h);
    }
    std::map<std::string, std::map<std::int64_t, std::int64_t>> sent_by_key;  // key -> seq -> sent time
    for (const auto& s : input.sent) {
        sent_by_key[s.key].emplace(s.seq, s.time_us);
    }
    r.keys = static_cast<std::int64_t>(per_key.size());
    const auto violation = [&](OrderFault f, const Handled& h, std::int64_t after, std::int64_t after_time) {
        ++(f == OrderFault::OutOfOrder ? r.out_of_order : r.interleaved);
        if (r.violation_examples.size() < o.examples) {
            r.violation_examples.push_back(OrderViolation{.fault = f,
                                                          .key = h.key,
                                                          .seq = h.seq,
                                                          .after_seq = after,
                                                          .member = h.member,
                                                          .time_us = h.time_us,
                                                          .after_time_us = after_time});
        }
    };
    for (const auto& [key, list] : per_key) {
        // predecessor of each handled seq among the key's handled seqs (a lost seq is no one's predecessor)
        std::set<std::int64_t> seqs;
        for (const Handled* h : list) {
            seqs.insert(h->seq);
        }
        std::map<std::int64_t, std::int64_t> first_time;    // seq -> first handling
        std::map<std::string, const Handled*> member_last;  // member -> its last handling of this key
        std::int64_t max_first = -1;
        const Handled* last = nullptr;  // the key's position: its last handling (an out-of-order one aside)
        for (const Handled* h : list) {
            const bool first = first_time.try_emplace(h->seq, h->time_us).second;
            const auto mine = member_last.find(h->member);
            const Handled* my_previous = mine == member_last.end() ? nullptr : mine->second;
            member_last[h->member] = h;
            if (first) {
                if (last != nullptr && h->seq < max_first) {
                    // counted once: the key's position stays where it was, so its successor is no violation
                    violation(OrderFault::OutOfOrder, *h, max_first, first_time[max_first]);
                    continue;
                }
                const auto it = seqs.find(h->seq);
                const std::int64_t predecessor = it == seqs.begin() ? -1 : *std::prev(it);
                // Only what the logs prove: the member went on from its own predecessor while another one
                // re-handled older seqs (two holders at once), or it skipped its predecessor after
                // re-handling an older one, with nothing in between that could have taken the queue from it
                // and given it back (its own pause, a broker restart). A member that handled neither resumes
                // after another holder's progress: a handover, even when a holder in between re-handled an
                // older seq and stopped there.
                if (last != nullptr && predecessor != last->seq && my_previous != nullptr &&
                    (my_previous->seq == predecessor || my_previous->seq == last->seq) &&
                    !detail::could_have_lost_queue(
                        h->member, my_previous->time_us, h->time_us, input.faults)) {
                    violation(OrderFault::Interleaved, *h, last->seq, last->time_us);
                }
                max_first = std::max(max_first, h->seq);
            } else if (h->seq <= last->seq) {  // a repeat: an earlier handling set `last`
                ++r.rewinds;
            }
            last = h;
        }
        // stall: how long each message waited for its key's turn once it was sent and its predecessor handled
        Stall worst{.key = key};
        const auto& sent_seqs = sent_by_key[key];
        std::int64_t ready_floor = 0;  // first handling of the previous handled seq
        for (const auto& [seq, t] : first_time) {
            const auto st = sent_seqs.find(seq);
            const std::int64_t ready = std::max(st == sent_seqs.end() ? t : st->second, ready_floor);
            if (t - ready > worst.wait_us) {
                worst = Stall{.key = key, .seq = seq, .wait_us = t - ready, .time_us = t};
            }
            ready_floor = t;
        }
        r.stalls.push_back(worst);
    }
    std::stable_sort(r.stalls.begin(), r.stalls.end(), [](const Stall& a, const Stall& b) {
        return a.wait_us > b.wait_us;
    });
    if (!r.stalls.empty()) {
        r.longest_stall = r.stalls.front();
    }
    if (r.stalls.size() > o.examples) {
        r.stalls.resize(o.examples);
    }

    r.shutdowns = input.shutdowns;
    std::stable_sort(r.shutdowns.begin(), r.shutdowns.end(), [](const Shutdown& a, const Shutdown& b) {
        return a.done_us - a.requested_us > b.done_us - b.requested_us;
    });
    return r;
}

/// The report as a markdown section (a heading, a table of figures, examples of what went wrong).
[[nodiscard]] inline std::string to_markdown(const Report& r, std::string_view title, bool ordered) {
    const auto ms = [](std::int64_t us) {
        return fmt::format("{:.0f} ms", static_cast<double>(us) / 1000.0);
    };
    std::string out = fmt::format("### {}\n\n| figure | value |\n| --- | --- |\n", title);
    const auto row = [&](std::string_view name, const std::string& value) {
        out += fmt::format("| {} | {} |\n", name, value);
    };
    row("verdict", r.ok(ordered) ? "**ok**" : "**FAILED**");
    row("sent (SEND_OK) / send failures", fmt::format("{} / {}", r.sent, r.send_failures));
    row("handled (all) / unique", fmt::format("{} / {}", r.handled, r.unique));
    row("**lost**", fmt::format("**{}**", r.lost));
    row("handled but not in the sent log", fmt::format("{}", r.unknown));
    row("duplicates", fmt::format("{}", r.duplicates));
    for (int c = 0; c < cause_count; ++c) {
        const auto cause = static_cast<Cause>(c);
        const auto n = r.by(cause);
        row(fmt::format("&nbsp;&nbsp;{}", to_string(cause)),
            cause == Cause::Unexplained ? fmt::format("**{}**", n) : fmt::format("{}", n));
    }
    row(fmt::format("**order violations** (out of order / interleaved){}", ordered ? "" : " — not promised"),
        fmt::format("**{}** ({} / {})", r.order_violations(), r.out_of_order, r.interleaved));
    row("rewinds", fmt::format("{}", r.rewinds));
    row("keys", fmt::format("{}", r.keys));
    row("longest stall of a key",
        r.keys == 0 ? std::string("-")
                    : fmt::format("{} (key {} seq {})",
                                  ms(r.longest_stall.wait_us),
                                  r.longest_stall.key,
                                  r.longest_stall.seq));
    std::string faults;
    for (const auto& [kind, n] : r.faults) {
        faults += fmt::format("{}{} {}", faults.empty() ? "" : ", ", kind, n);
    }
    row("faults injected", faults.empty() ? "none" : faults);
    if (r.shutdowns.empty()) {
        row("clean shutdowns", "none");
    } else {
        std::vector<std::int64_t> took;
        for (const auto& s : r.shutdowns) {
            took.push_back(s.done_us - s.requested_us);
        }
        std::sort(took.begin(), took.end());
        row("clean shutdowns: count / median / longest",
            fmt::format("{} / {} / {}", took.size(), ms(took[took.size() / 2]), ms(took.back())));
    }
    out += "\n";
    if (!r.lost_examples.empty()) {
        out += "Lost (first few):\n\n";
        for (const auto& l : r.lost_examples) {
            out += fmt::format("- {}\n", l);
        }
        out += "\n";
    }
    if (!r.unexplained_examples.empty()) {
        out += "Unexplained duplicates (first few):\n\n";
        for (const auto& d : r.unexplained_examples) {
            out += fmt::format("- {} key {} seq {}: {} at {} us, again {} at {} us\n",
                               d.msg_id,
                               d.key,
                               d.seq,
                               d.first_member,
                               d.previous_us,
                               d.member,
                               d.time_us);
        }
        out += "\n";
    }
    if (!r.violation_examples.empty()) {
        out += "Order violations (first few):\n\n";
        for (const auto& v : r.violation_examples) {
            out += fmt::format("- {} key {} seq {} by {} at {} us, after seq {}\n",
                               v.fault == OrderFault::OutOfOrder ? "out of order" : "interleaved",
                               v.key,
                               v.seq,
                               v.member,
                               v.time_us,
                               v.after_seq);
        }
        out += "\n";
    }
    if (r.stalls.size() > 1) {
        out += "Longest stalls per key:";
        for (const auto& s : r.stalls) {
            out += fmt::format(" {} {} (seq {});", s.key, ms(s.wait_us), s.seq);
        }
        out += "\n\n";
    }
    return out;
}

}  // namespace rmq_chaos
