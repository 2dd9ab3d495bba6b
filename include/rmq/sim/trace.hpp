#pragma once

/// @file sim/trace.hpp
/// What a simulation run records (rmq::sim::Trace: messages sent, listener calls, faults injected) and the
/// checker that judges it (rmq::sim::check): nothing lost, per-key order kept for ordered policies, queue
/// ownership respected, and every duplicate explained by a fault or a rebalance: the one trace checker
/// (rmq/detail/check/check.hpp) that also judges the real-cluster chaos runs. See docs/simulation.md.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>

namespace rmq::sim {

/// One message the simulation's producer stored.
struct Sent {
    int key = 0;
    int seq = 0;  ///< 0, 1, 2 ... per key, in send order
    int queue_id = 0;
    /// Stored twice (a producer retry after a lost answer): a second delivery is explained.
    bool duplicated = false;
};

/// One message handed to a listener.
struct Handled {
    std::int64_t time = 0;  ///< virtual ms
    int member = 0;
    int key = 0;
    int seq = 0;
    std::string queue;  ///< "topic:queue_id" the message was pulled from (a retry topic for redeliveries)
    bool success = false;
    /// The broker's lock on the message's queue belonged to this member at the call (ordered policies).
    bool lock_held = false;
};

enum class FaultKind {
    PullDropped,        ///< a pull's answer lost: the consumer sees a timeout
    PullDelayed,        ///< a pull's answer late (others overtake it)
    OffsetDropped,      ///< UPDATE_CONSUMER_OFFSET lost
    OffsetDelayed,      ///< UPDATE_CONSUMER_OFFSET applied late, after newer ones
    OffsetDuplicated,   ///< UPDATE_CONSUMER_OFFSET applied now and again later
    LockAnswerDropped,  ///< LOCK_BATCH_MQ applied by the broker, its answer lost
    HeartbeatDropped,   ///< HEART_BEAT lost
    SendDuplicated,     ///< a message stored twice
    MemberJoined,       ///< a member started
    MemberCrashed,      ///< a member vanished without unregistering
    MemberPaused,       ///< a member stopped running for a while
    BrokerRestarted,    ///< locks and memberships lost, offsets back to the last flush
    MemberExpired,      ///< the broker dropped a member whose heartbeats stopped (a crash or a long pause,
                        ///< channel expiry): the others rebalance, up to 2 minutes after the fault itself
    BrokerDown,         ///< a broker went down (runs with several brokers): locks and memberships lost,
                        ///< offsets back to the last flush, requests to it fail until BrokerUp
    BrokerUp,           ///< the broker that went down is reachable again
    PopAnswerDropped,   ///< a POP_MESSAGE answer lost (POP runs; its messages: rmq::sim::PopTrace)
    AckDropped,         ///< an ACK_MESSAGE lost (POP runs)
};

[[nodiscard]] std::string_view to_string(FaultKind kind) noexcept;

/// One fault (or membership change) and when it happened.
struct FaultEvent {
    std::int64_t time = 0;
    FaultKind kind = FaultKind::PullDropped;
    int member = -1;    ///< -1 when not a member's
    std::string queue;  ///< "topic:queue_id", empty when not a queue's
};

/// A span of virtual time during which two or more live members (neither crashed nor paused) both had a
/// queue of the topic in their assignment (Consumer::assigned_queues).
struct DoubleOwnership {
    std::string queue;
    std::int64_t from = 0;  ///< virtual ms
    std::int64_t to = 0;
    std::vector<int> members;  ///< the owners when it began

    [[nodiscard]] std::int64_t millis() const noexcept { return to - from; }
};

/// Everything one run recorded, in the order it happened.
struct Trace {
    std::vector<Sent> sent;
    std::vector<Handled> handled;
    std::vector<FaultEvent> faults;
    std::vector<DoubleOwnership> double_ownership;  ///< in the order they ended

    /// The longest double ownership of any queue (ms); 0 when none.
    [[nodiscard]] std::int64_t longest_double_ownership() const noexcept;

    /// FNV-1a over every record: two runs of one seed have equal hashes.
    [[nodiscard]] std::uint64_t hash() const noexcept;

    /// Injected faults (membership changes not counted).
    [[nodiscard]] std::size_t injected_faults() const noexcept;
};

/// The checker's findings.
struct Verdict {
    std::size_t lost = 0;                    ///< sent, never handled successfully
    std::size_t order_violations = 0;        ///< a key's message handled before its predecessor succeeded
    std::size_t ownership_violations = 0;    ///< handled without the queue's broker lock, unexplained
    std::size_t duplicates = 0;              ///< successful handlings beyond the first
    std::size_t unexplained_duplicates = 0;  ///< of those, with no fault or rebalance to explain them
    std::vector<std::string> problems;       ///< the first few, readable

    [[nodiscard]] bool ok() const noexcept {
        return lost == 0 && order_violations == 0 && ownership_violations == 0 && unexplained_duplicates == 0;
    }

    /// One line: the counts.
    [[nodiscard]] std::string summary() const;
};

/// Checks a trace (docs/simulation.md lists the rules). `ordered`: the policy promises per-key order and
/// exclusive queue ownership (Orderly, KeyOrderly). `lock_grace_millis`: a handling without the broker lock
/// is explained for this long after a broker restart (the restart lost the locks while members still trust
/// theirs).
[[nodiscard]] Verdict check(const Trace& trace, bool ordered, std::int64_t lock_grace_millis = 60000);

}  // namespace rmq::sim

#if RMQ_INCLUDE_IMPL
#    include <rmq/sim/impl/trace.ipp>
#endif
