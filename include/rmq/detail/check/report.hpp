#pragma once

/// @file detail/check/report.hpp
/// The one trace checker's options (which world's rules judge where the worlds differ) and its report.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/detail/check/input.hpp>

namespace rmq::detail::check {

/// Why a message was handled again. The chaos rules check the first six in this order; the first that fits
/// wins. The simulation's rules add the others (docs/simulation.md).
enum class Cause {
    KillOfHolder,   ///< the member that handled it before was killed (kill -9) between the two handlings
    TermOfHolder,   ///< ... was stopped with SIGTERM
    PauseOfHolder,  ///< ... was paused (SIGSTOP)
    BrokerRestart,  ///< a broker was killed or started between the two handlings
    Handover,       ///< another member started/stopped/paused/resumed shortly before or in between: the queue
                    ///< moved
    SendDuplicated,  ///< the producer stored the message twice
    RetryCopy,  ///< a copy sent back to the retry topic by a failed call (unordered policies; POP: the failed
                ///< call set the retry delay)
    QueueFault,   ///< an offset commit or lock answer of one of the two queues was lost or late
    PopLost,      ///< POP: the previous pop's answer or its ack was lost
    Unexplained,  ///< none of these
};
inline constexpr int cause_count = 10;

[[nodiscard]] inline std::string_view to_string(Cause c) noexcept {
    constexpr std::string_view names[] = {"kill of the holder",
                                          "SIGTERM of the holder",
                                          "pause of the holder",
                                          "broker restart",
                                          "handover",
                                          "send stored twice",
                                          "retry copy",
                                          "queue fault",
                                          "pop answer or ack lost",
                                          "unexplained"};
    const auto i = static_cast<std::size_t>(c);
    return i < std::size(names) ? names[i] : "?";
}

/// Where the two worlds' rules differ: the chaos suite's logs prove less (successes only, no locks, faults as
/// signals of a driver), the simulation's trace records every call and each fault where it struck.
enum class Rules {
    Chaos,       ///< explain against the previous handling; order from first handlings (docs/chaos.md)
    Simulation,  ///< explain against the first success; order and locks per call (docs/simulation.md)
};

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
    /// members, so a repeat is a redelivery after that time and other rules explain it (explain_pop). With
    /// Rules::Simulation the redeliveries are the pops in Input::pops, each with its own invisible time
    /// (explain_pop_simulation).
    std::int64_t pop_invisible_us = 0;
    Rules rules = Rules::Chaos;
    /// Rules::Simulation: the policy promises per-key order and exclusive queue ownership.
    bool ordered = false;
    /// Rules::Simulation: a call without the broker's lock is explained this long after a broker restart (the
    /// restart lost the locks while members still trust theirs); a fault explains a repeat this long before
    /// the first success.
    std::int64_t lock_grace_us = 60'000'000;
    /// Rules::Simulation, POP: a failed call (RECONSUME_LATER) makes its message invisible this long at
    /// least.
    std::int64_t pop_retry_delay_us = 10'000'000;
    /// Rules::Simulation, POP: the broker flushes the group's pop offsets this often; a restart rewinds them.
    std::int64_t pop_flush_us = 1'000'000;
    /// Rules::Simulation, POP: how long a pause lasts at most (rmq::sim::Faults::pause_max_millis).
    std::int64_t pause_max_us = 150'000'000;
    /// Readable findings kept (Report::problems), in the order they were found.
    std::size_t problems = 10;
};

struct Duplicate {
    std::string msg_id;
    std::string key;
    std::int64_t seq = 0;
    std::string first_member;  ///< the previous handling's member
    std::string member;        ///< the repeat's member
    std::int64_t previous_us = 0;
    std::int64_t time_us = 0;
    Cause cause = Cause::Unexplained;
};

enum class OrderFault {
    /// Chaos: a seq handled for the first time after a higher seq of its key was handled for the first time.
    OutOfOrder,
    /// Chaos: a seq handled for the first time right after a handling of the key that was not its
    /// predecessor: another handling of an older seq came between (a stale or second holder).
    Interleaved,
    /// Simulation: a call on a seq before its predecessor (seq - 1) succeeded.
    BeforePredecessor,
};

struct OrderViolation {
    OrderFault fault = OrderFault::OutOfOrder;
    std::string key;
    std::int64_t seq = 0;
    std::int64_t after_seq = 0;  ///< the key's previous handling (Interleaved) / highest first handling
    std::string member;
    std::int64_t time_us = 0;
    std::int64_t after_time_us = 0;  ///< when after_seq was handled (that handling)
};

struct Stall {
    std::string key;
    std::int64_t seq = 0;  ///< the message that waited
    std::int64_t wait_us = 0;
    std::int64_t time_us = 0;  ///< when it was finally handled
};

struct Report {
    std::int64_t sent = 0;
    std::int64_t send_failures = 0;
    std::int64_t handled = 0;  ///< every successful handling
    std::int64_t failed = 0;   ///< calls that failed (the simulation's; the chaos logs have none)
    std::int64_t unique = 0;   ///< distinct sent messages handled at least once
    std::int64_t lost = 0;     ///< sent, never handled successfully
    std::int64_t unknown = 0;  ///< distinct handled messages that were not in `sent` (a failed send stored)
    std::int64_t duplicates = 0;  ///< successful handlings beyond the first
    /// Indexed by Cause: the duplicates' causes; in a POP simulation (Input::pops) the redeliveries'.
    std::array<std::int64_t, cause_count> by_cause{};
    std::int64_t redeliveries = 0;  ///< pops of a message popped before (Input::pops)
    std::int64_t out_of_order = 0;
    std::int64_t interleaved = 0;
    std::int64_t before_predecessor = 0;
    std::int64_t without_lock = 0;  ///< calls without the queue's lock, unexplained (Rules::Simulation)
    std::int64_t rewinds = 0;       ///< jumps back of a key to re-handle already handled seqs
    std::int64_t keys = 0;
    Stall longest_stall;        ///< the longest wait of any message for its key's turn
    std::vector<Stall> stalls;  ///< the longest wait per key, longest first (Options::examples)
    std::map<std::string, std::int64_t> faults;  ///< count per FaultKind name
    std::vector<Shutdown> shutdowns;             ///< sorted by duration, longest first
    std::vector<std::string> lost_examples;
    std::vector<Duplicate> unexplained_examples;
    std::vector<OrderViolation> violation_examples;
    std::vector<std::string> problems;  ///< Options::problems readable findings, in the order found

    [[nodiscard]] std::int64_t by(Cause c) const noexcept { return by_cause.at(static_cast<std::size_t>(c)); }

    [[nodiscard]] std::int64_t order_violations() const noexcept {
        return out_of_order + interleaved + before_predecessor;
    }

    /// Nothing lost, no unexplained duplicate, and (for ordered policies) no order violation and no call
    /// without the lock.
    [[nodiscard]] bool ok(bool ordered) const noexcept {
        return lost == 0 && by(Cause::Unexplained) == 0 &&
               (!ordered || (order_violations() == 0 && without_lock == 0));
    }
};

}  // namespace rmq::detail::check
