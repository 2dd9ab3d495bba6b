#pragma once

/// @file detail/check/input.hpp
/// What the one trace checker (rmq/detail/check/check.hpp) reads: the messages a keyed producer stored, every
/// listener call of every member and the fault log. Neutral between its two users: the simulation (rmq::sim::
/// Trace, adapted by rmq/detail/check/from_trace.hpp: virtual ms as µs, int keys and members as their decimal
/// names) and the real-cluster chaos suite (tests/chaos/logs.hpp: µs of one machine's clock, named members).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rmq::detail::check {

/// One message the producer stored (SEND_OK). `seq` counts per key from 0; each key goes to one queue.
struct Sent {
    std::string key;
    std::int64_t seq = 0;
    std::string msg_id;
    std::string broker;
    int queue_id = 0;
    std::int64_t offset = 0;
    std::int64_t time_us = 0;  ///< when the send returned
    /// Stored twice (a producer retry after a lost answer): a second delivery is explained.
    bool duplicated = false;
};

/// Whether the member held the broker's lock on the message's queue at the call (ordered policies).
enum class Lock { Unknown, Held, NotHeld };

/// One listener call on a message. `member` names one incarnation of a process (a restarted member is
/// another member). The chaos members record only successes (before their listener returns).
struct Handled {
    std::string member;
    std::string key;
    std::int64_t seq = 0;
    std::string msg_id;
    std::string broker;
    int queue_id = 0;
    std::int64_t offset = 0;
    std::int64_t time_us = 0;
    bool success = true;
    Lock lock = Lock::Unknown;
    std::string
        queue{};  ///< "topic:queue_id" it was pulled from (a retry topic for redeliveries), when known
};

/// Every fault either world injects or meets. The chaos driver's: Start .. BrokerUp; the simulation's add the
/// rest (its BrokerRestarted is a BrokerKill and a BrokerStart at one time, its BrokerDown a BrokerKill).
enum class FaultKind {
    Start,        ///< a member (incarnation) started: joins the group
    Kill,         ///< kill -9 of a member (a simulated crash)
    Term,         ///< SIGTERM of a member (clean shutdown)
    Pause,        ///< SIGSTOP of a member
    Resume,       ///< SIGCONT of a member
    BrokerKill,   ///< kill -9 of a broker (target: broker name)
    BrokerStart,  ///< a killed broker started again
    BrokerUp,     ///< ... and serves again (its start command returned; the POP rules' end of the outage)
    Expired,      ///< the broker dropped a member whose heartbeats stopped: the others rebalance
    PullDropped,
    PullDelayed,
    OffsetDropped,      ///< an offset commit lost (queue: its queue)
    OffsetDelayed,      ///< ... applied late, after newer ones
    OffsetDuplicated,   ///< ... applied now and again later
    LockAnswerDropped,  ///< a lock applied by the broker, its answer lost (queue: its queue)
    HeartbeatDropped,
    SendDuplicated,
    PopAnswerDropped,  ///< a pop's answer lost (target: the popping member, msg_id; time: the pop's)
    AckDropped,        ///< an ACK_MESSAGE lost (target: the acking member, msg_id)
};
inline constexpr int fault_kind_count = 19;

[[nodiscard]] inline std::string_view to_string(FaultKind k) noexcept {
    constexpr std::string_view names[] = {"start",
                                          "kill",
                                          "term",
                                          "pause",
                                          "resume",
                                          "broker_kill",
                                          "broker_start",
                                          "broker_up",
                                          "expired",
                                          "pull_dropped",
                                          "pull_delayed",
                                          "offset_dropped",
                                          "offset_delayed",
                                          "offset_duplicated",
                                          "lock_answer_dropped",
                                          "heartbeat_dropped",
                                          "send_duplicated",
                                          "pop_answer_dropped",
                                          "ack_dropped"};
    const auto i = static_cast<std::size_t>(k);
    return i < std::size(names) ? names[i] : "?";
}

/// The kind named `s` (as to_string prints it); false when `s` names none.
[[nodiscard]] inline bool fault_kind_from(std::string_view s, FaultKind& out) noexcept {
    for (int i = 0; i < fault_kind_count; ++i) {
        const auto k = static_cast<FaultKind>(i);
        if (to_string(k) == s) {
            out = k;
            return true;
        }
    }
    return false;
}

struct Fault {
    std::int64_t time_us = 0;  ///< just before the signal was sent / the command ran / the fault struck
    FaultKind kind = FaultKind::Start;
    std::string target;    ///< member or broker name; empty when neither's
    std::string queue{};   ///< the queue of a queue's fault ("topic:queue_id"), else empty
    std::string msg_id{};  ///< the message of a message's fault (PopAnswerDropped, AckDropped), else empty
};

/// One message a POP member's pop returned (the simulation records them; the chaos members' records are
/// their handlings). A pop of a message popped before is a redelivery, judged against that previous pop.
struct Pop {
    std::string member;
    std::string key;
    std::int64_t seq = 0;
    std::string msg_id;
    std::string broker;
    std::int64_t time_us = 0;       ///< the broker's answer: the message's invisible time starts here
    std::int64_t invisible_us = 0;  ///< how long the pop made it invisible
    int reconsume_times = 0;
};

/// A member's clean shutdown: from the SIGTERM (or the end of the run) to the end of shutdown().
struct Shutdown {
    std::string member;
    std::int64_t requested_us = 0;
    std::int64_t done_us = 0;
};

struct Input {
    std::vector<Sent> sent;
    std::vector<Handled> handled;  ///< any order; each member's records in its log order
    std::vector<Fault> faults;
    std::vector<Shutdown> shutdowns;
    std::vector<Pop> pops;  ///< a POP run's pops in the order they happened (Rules::Simulation), else empty
    std::int64_t send_failures = 0;  ///< sends that did not return SEND_OK (not in `sent`)
};

}  // namespace rmq::detail::check
