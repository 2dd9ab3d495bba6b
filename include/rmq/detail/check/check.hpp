#pragma once

/// @file detail/check/check.hpp
/// The one trace checker: from what a keyed producer stored, every listener call and the fault log, it
/// computes lost messages, duplicates and their causes, per-key order violations, calls without the queue's
/// lock, rewinds, the longest stall of a key and shutdown times. Pure: no I/O and nothing of rmq's transport.
/// rmq::sim::check feeds it a simulation's trace (Rules::Simulation) and the real-cluster chaos suite its
/// logs (tests/support/chaos_check.hpp, Rules::Chaos), rmq::sim::check_pop a simulation's POP run (its pops
/// in Input::pops, Rules::Simulation with Options::pop_invisible_us); the rules both worlds share live here
/// once (what is lost, what is a duplicate, which faults exist, why a POP message comes back), and where
/// their evidence differs Options::rules picks (docs/simulation.md, docs/chaos.md).

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/detail/check/explain.hpp>
#include <rmq/detail/check/input.hpp>
#include <rmq/detail/check/order.hpp>
#include <rmq/detail/check/report.hpp>

namespace rmq::detail::check {

/// One pass over the calls in time order (ties keep the input order: each member's log order).
class Checker {
public:
    Checker(const Input& in, const Options& o)
        : in_(&in)
        , o_(o) {
        for (const auto& s : in.sent) {
            sent_[s.msg_id] = s.duplicated;
        }
        for (const auto& h : in.handled) {
            records_.push_back(&h);
        }
        std::stable_sort(records_.begin(), records_.end(), [](const Handled* a, const Handled* b) {
            return a->time_us < b->time_us;
        });
    }

    Report run() {
        r_.sent = static_cast<std::int64_t>(in_->sent.size());
        r_.send_failures = in_->send_failures;
        for (const auto& f : in_->faults) {
            ++r_.faults[std::string(to_string(f.kind))];
        }
        for (const Handled* h : records_) {
            call(*h);
        }
        lost();
        if (pop_simulation()) {
            redeliveries();
        }
        per_key();
        r_.shutdowns = in_->shutdowns;
        std::stable_sort(r_.shutdowns.begin(), r_.shutdowns.end(), [](const Shutdown& a, const Shutdown& b) {
            return a.done_us - a.requested_us > b.done_us - b.requested_us;
        });
        return std::move(r_);
    }

private:
    struct Message {
        const Handled* first = nullptr;  // its first success
        const Handled* last = nullptr;   // its latest success so far
        Attempts attempts;
    };

    [[nodiscard]] bool simulation() const noexcept { return o_.rules == Rules::Simulation; }

    // A simulation's POP run: its redeliveries are judged (by the pops), not its repeated handlings.
    [[nodiscard]] bool pop_simulation() const noexcept { return simulation() && o_.pop_invisible_us > 0; }

    void problem(std::string text) {
        if (r_.problems.size() < o_.problems) {
            r_.problems.push_back(std::move(text));
        }
    }

    void call(const Handled& h) {
        Message& m = messages_[h.msg_id];
        ++(h.success ? m.attempts.successes : m.attempts.failures);
        if (simulation() && o_.ordered) {
            check_predecessor(h);
            check_lock(h);
        }
        if (!h.success) {
            ++r_.failed;
            return;
        }
        ++r_.handled;
        succeeded_.emplace(h.key, h.seq);
        if (m.first == nullptr) {
            m.first = m.last = &h;
            ++(sent_.contains(h.msg_id) ? r_.unique : r_.unknown);
            return;
        }
        m.attempts.duplicated_send = sent_[h.msg_id];
        if (pop_simulation()) {
            ++r_.duplicates;
            m.last = &h;
            return;
        }
        const Cause c = simulation() ? explain_simulation(*m.first, h, m.attempts, in_->faults, o_)
                                     : explain_chaos(*m.last, h, in_->faults, o_);
        ++r_.duplicates;
        ++r_.by_cause.at(static_cast<std::size_t>(c));
        if (c == Cause::Unexplained) {
            unexplained(simulation() ? *m.first : *m.last, h);
        }
        m.last = &h;
    }

    // One of the first o_.examples unexplained repeats (a handling's or a pop's, against its previous one).
    template <class Event>
    void example(const Event& previous, const Event& e) {
        if (r_.unexplained_examples.size() < o_.examples) {
            r_.unexplained_examples.push_back(Duplicate{.msg_id = e.msg_id,
                                                        .key = e.key,
                                                        .seq = e.seq,
                                                        .first_member = previous.member,
                                                        .member = e.member,
                                                        .previous_us = previous.time_us,
                                                        .time_us = e.time_us,
                                                        .cause = Cause::Unexplained});
        }
    }

    void unexplained(const Handled& previous, const Handled& h) {
        example(previous, h);
        problem(
            fmt::format("t={} member {}: key {} seq {} handled again (first at t={} by member {}) with no "
                        "fault or rebalance in between",
                        h.time_us / 1000,
                        h.member,
                        h.key,
                        h.seq,
                        previous.time_us / 1000,
                        previous.member));
    }

    // A simulation's POP run: each pop of a message popped before, against that previous pop.
    void redeliveries() {
        std::unordered_map<std::string, const Pop*> previous;
        for (const Pop& p : in_->pops) {
            const auto [it, first] = previous.try_emplace(p.msg_id, &p);
            if (first) {
                continue;
            }
            const Pop& prev = *it->second;
            it->second = &p;
            ++r_.redeliveries;
            const auto sent = sent_.find(p.msg_id);
            const Cause c = explain_pop_simulation(
                prev, p, sent != sent_.end() && sent->second, in_->handled, in_->faults, o_);
            ++r_.by_cause.at(static_cast<std::size_t>(c));
            if (c != Cause::Unexplained) {
                continue;
            }
            example(prev, p);
            problem(
                fmt::format("key {} seq {} popped again at {} ms by member {} (reconsume times {}): nothing "
                            "explains it after its pop at {} ms by member {}",
                            p.key,
                            p.seq,
                            p.time_us / 1000,
                            p.member,
                            p.reconsume_times,
                            prev.time_us / 1000,
                            prev.member));
        }
    }

    // Rules::Simulation, ordered: no call on a seq before its predecessor succeeded.
    void check_predecessor(const Handled& h) {
        if (h.seq > 0 && !succeeded_.contains({h.key, h.seq - 1})) {
            violation(OrderFault::BeforePredecessor, h, h.seq - 1, 0);
            problem(fmt::format("t={} member {}: key {} seq {} handled before seq {} succeeded",
                                h.time_us / 1000,
                                h.member,
                                h.key,
                                h.seq,
                                h.seq - 1));
        }
    }

    // Ordered: no call without the queue's broker lock, unless a broker restart lost the locks within the
    // grace before it.
    void check_lock(const Handled& h) {
        if (h.lock != Lock::NotHeld ||
            std::any_of(in_->faults.begin(), in_->faults.end(), [&](const Fault& f) {
                return f.kind == FaultKind::BrokerKill && f.time_us >= h.time_us - o_.lock_grace_us &&
                       f.time_us <= h.time_us;
            })) {
            return;
        }
        ++r_.without_lock;
        problem(fmt::format("t={} member {}: key {} seq {} handled on {} without the broker's lock",
                            h.time_us / 1000,
                            h.member,
                            h.key,
                            h.seq,
                            h.queue));
    }

    void violation(OrderFault f, const Handled& h, std::int64_t after, std::int64_t after_time) {
        ++(f == OrderFault::OutOfOrder    ? r_.out_of_order
           : f == OrderFault::Interleaved ? r_.interleaved
                                          : r_.before_predecessor);
        if (r_.violation_examples.size() < o_.examples) {
            r_.violation_examples.push_back(OrderViolation{.fault = f,
                                                           .key = h.key,
                                                           .seq = h.seq,
                                                           .after_seq = after,
                                                           .member = h.member,
                                                           .time_us = h.time_us,
                                                           .after_time_us = after_time});
        }
    }

    void lost() {
        for (const auto& s : in_->sent) {
            const auto it = messages_.find(s.msg_id);
            if (it != messages_.end() && it->second.first != nullptr) {
                continue;
            }
            ++r_.lost;
            if (r_.lost_examples.size() < o_.examples) {
                r_.lost_examples.push_back(fmt::format(
                    "{} (key {} seq {}, {}:{}@{})", s.msg_id, s.key, s.seq, s.broker, s.queue_id, s.offset));
            }
            problem(
                fmt::format("key {} seq {} (queue {}) never handled successfully", s.key, s.seq, s.queue_id));
        }
    }

    // Per key, its successful handlings: the chaos rules' order findings, rewinds, stalls.
    void per_key() {
        std::map<std::string, std::vector<const Handled*>> per_key;
        for (const Handled* h : records_) {
            if (h->success) {
                per_key[h->key].push_back(h);
            }
        }
        std::map<std::string, std::map<std::int64_t, std::int64_t>> sent_by_key;  // key -> seq -> sent time
        for (const auto& s : in_->sent) {
            sent_by_key[s.key].emplace(s.seq, s.time_us);
        }
        r_.keys = static_cast<std::int64_t>(per_key.size());
        const Violation violation =
            [this](OrderFault f, const Handled& h, std::int64_t after, std::int64_t t) {
                this->violation(f, h, after, t);
            };
        for (const auto& [key, list] : per_key) {
            const auto first_time = key_order(list, in_->faults, !simulation(), violation, r_.rewinds);
            r_.stalls.push_back(key_stall(key, first_time, sent_by_key[key]));
        }
        std::stable_sort(r_.stalls.begin(), r_.stalls.end(), [](const Stall& a, const Stall& b) {
            return a.wait_us > b.wait_us;
        });
        if (!r_.stalls.empty()) {
            r_.longest_stall = r_.stalls.front();
        }
        if (r_.stalls.size() > o_.examples) {
            r_.stalls.resize(o_.examples);
        }
    }

    const Input* in_;
    Options o_;
    Report r_;
    std::vector<const Handled*> records_;
    std::unordered_map<std::string, bool> sent_;  // msg id -> stored twice
    std::unordered_map<std::string, Message> messages_;
    std::set<std::pair<std::string, std::int64_t>> succeeded_;  // (key, seq) of every success so far
};

/// Computes the report. `input.handled` may hold records of messages that are not in `input.sent` (counted as
/// unknown, and still checked for order by key and seq).
[[nodiscard]] inline Report check(const Input& input, const Options& o = {}) {
    return Checker(input, o).run();
}

}  // namespace rmq::detail::check
