#pragma once

// The transactional chaos run's plan and checker (tests/chaos/tx_producer.cpp, tests/realcluster/
// chaos_tx_test.cpp): pure, no I/O. Every message's fate is fixed by its sequence number, so a producer
// started after another was killed answers the broker's check-back for the dead one's half messages exactly
// as the dead one would have. The checker then holds the broker and the client to issue 31's promise for a
// producer killed between its half message and its commit: nothing committed is lost, nothing rolled back is
// delivered.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace rmq_chaos::tx {

/// What the local transaction answers when it runs.
enum class Local { Commit, Rollback, Unknown };

/// What the message must end as: Unknown locals are resolved by the check-back with the same rule.
enum class Final { Commit, Rollback };

struct Plan {
    Local local;
    Final final;
};

/// seq mod 4: committed, rolled back, unknown then committed by a check-back, unknown then rolled back.
inline Plan plan_for(std::int64_t seq) {
    switch (seq % 4) {
    case 0:
        return {Local::Commit, Final::Commit};
    case 1:
        return {Local::Rollback, Final::Rollback};
    case 2:
        return {Local::Unknown, Final::Commit};
    default:
        return {Local::Unknown, Final::Rollback};
    }
}

/// One line of a producer incarnation's log: `attempt` (before the half message is sent), `executing` (the
/// local transaction started: the broker stored the half message), `ended` (END_TRANSACTION sent with the
/// local answer), `check` (a check-back answered, possibly for another incarnation's message).
struct Event {
    std::string kind;
    std::int64_t seq = 0;
};

struct Delivery {
    std::int64_t seq = 0;
    std::string msg_id;
};

struct Input {
    std::vector<Event> events;
    std::vector<Delivery> deliveries;
};

struct Report {
    std::int64_t attempted = 0;
    /// Half messages the broker stored (their local transaction ran).
    std::int64_t stored = 0;
    /// Stored half messages whose END_TRANSACTION never left (their producer was killed in between).
    std::int64_t orphaned = 0;
    /// Stored messages meant to be committed, delivered: the goal is all of them.
    std::int64_t must_deliver = 0;
    std::int64_t delivered = 0;
    /// Orphans meant to be committed and delivered: committed by another incarnation's check-back.
    std::int64_t orphans_committed = 0;
    /// Attempted without a stored record (killed around the send) but delivered: committed by a check-back.
    std::int64_t unrecorded_committed = 0;
    std::int64_t checks = 0;
    std::vector<std::int64_t> lost;
    std::vector<std::int64_t> rolled_back_delivered;
    /// Delivered but never attempted: a message from nowhere.
    std::vector<std::int64_t> strays;
    /// Same message delivered more than once (at-least-once redelivery), and one seq under several ids (a
    /// half message stored twice by a retried send, both committed).
    std::int64_t redelivered = 0;
    std::vector<std::int64_t> several_ids;

    bool ok() const { return lost.empty() && rolled_back_delivered.empty() && strays.empty(); }
};

namespace detail {

inline std::set<std::int64_t> seqs_of(const Input& in, const std::string& kind) {
    std::set<std::int64_t> out;
    for (const auto& e : in.events) {
        if (e.kind == kind) {
            out.insert(e.seq);
        }
    }
    return out;
}

}  // namespace detail

inline Report check(const Input& in) {
    Report r;
    const auto attempted = detail::seqs_of(in, "attempt");
    const auto stored = detail::seqs_of(in, "executing");
    const auto ended = detail::seqs_of(in, "ended");
    std::map<std::int64_t, std::set<std::string>> ids;
    std::set<std::pair<std::int64_t, std::string>> seen;
    for (const auto& d : in.deliveries) {
        ids[d.seq].insert(d.msg_id);
        if (!seen.insert({d.seq, d.msg_id}).second) {
            ++r.redelivered;
        }
    }
    r.attempted = static_cast<std::int64_t>(attempted.size());
    r.stored = static_cast<std::int64_t>(stored.size());
    r.checks = static_cast<std::int64_t>(detail::seqs_of(in, "check").size());
    for (const auto seq : stored) {
        const bool orphan = !ended.contains(seq);
        r.orphaned += orphan ? 1 : 0;
        if (plan_for(seq).final == Final::Commit) {
            ++r.must_deliver;
            if (ids.contains(seq)) {
                ++r.delivered;
                r.orphans_committed += orphan ? 1 : 0;
            } else {
                r.lost.push_back(seq);
            }
        }
    }
    for (const auto& [seq, msg_ids] : ids) {
        if (!attempted.contains(seq)) {
            r.strays.push_back(seq);
        } else if (plan_for(seq).final == Final::Rollback) {
            r.rolled_back_delivered.push_back(seq);
        } else if (!stored.contains(seq)) {
            ++r.unrecorded_committed;
        }
        if (msg_ids.size() > 1) {
            r.several_ids.push_back(seq);
        }
    }
    return r;
}

}  // namespace rmq_chaos::tx
