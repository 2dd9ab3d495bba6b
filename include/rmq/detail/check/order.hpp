#pragma once

/// @file detail/check/order.hpp
/// The one trace checker's per-key analysis of successful handlings: the chaos rules' order findings
/// (out of order, interleaved), rewinds and the longest wait of each key's messages.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <rmq/detail/check/input.hpp>
#include <rmq/detail/check/report.hpp>

namespace rmq::detail::check {

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

using Violation = std::function<void(OrderFault, const Handled&, std::int64_t, std::int64_t)>;

/// One key's successful handlings in time order: its order findings (reported through `violation` when
/// `judge_order`), rewinds, and the first handling of each seq. Returns seq -> first handling's time.
inline std::map<std::int64_t, std::int64_t> key_order(const std::vector<const Handled*>& list,
                                                      const std::vector<Fault>& faults,
                                                      bool judge_order,
                                                      const Violation& violation,
                                                      std::int64_t& rewinds) {
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
                if (judge_order) {
                    violation(OrderFault::OutOfOrder, *h, max_first, first_time[max_first]);
                }
                continue;
            }
            const auto it = seqs.find(h->seq);
            const std::int64_t predecessor = it == seqs.begin() ? -1 : *std::prev(it);
            // Only what the logs prove: the member went on from its own predecessor while another one
            // re-handled older seqs (two holders at once), or it skipped its predecessor after re-handling an
            // older one, with nothing in between that could have taken the queue from it and given it back
            // (its own pause, a broker restart). A member that handled neither resumes after another holder's
            // progress: a handover, even when a holder in between re-handled an older seq and stopped there.
            if (judge_order && last != nullptr && predecessor != last->seq && my_previous != nullptr &&
                (my_previous->seq == predecessor || my_previous->seq == last->seq) &&
                !could_have_lost_queue(h->member, my_previous->time_us, h->time_us, faults)) {
                violation(OrderFault::Interleaved, *h, last->seq, last->time_us);
            }
            max_first = std::max(max_first, h->seq);
        } else if (h->seq <= last->seq) {  // a repeat: an earlier handling set `last`
            ++rewinds;
        }
        last = h;
    }
    return first_time;
}

/// How long each message of `key` waited for its turn once it was sent and its predecessor handled: the
/// longest wait.
inline Stall key_stall(const std::string& key,
                       const std::map<std::int64_t, std::int64_t>& first_time,
                       const std::map<std::int64_t, std::int64_t>& sent_seqs) {
    Stall worst{.key = key};
    std::int64_t ready_floor = 0;  // first handling of the previous handled seq
    for (const auto& [seq, t] : first_time) {
        const auto st = sent_seqs.find(seq);
        const std::int64_t ready = std::max(st == sent_seqs.end() ? t : st->second, ready_floor);
        if (t - ready > worst.wait_us) {
            worst = Stall{.key = key, .seq = seq, .wait_us = t - ready, .time_us = t};
        }
        ready_floor = t;
    }
    return worst;
}

}  // namespace rmq::detail::check
