// The chaos checker (tests/support/chaos_check.hpp) on hand-made logs: every figure it reports, each cause of
// a duplicate, order violations against rewinds, and the verdict.

#include <cstdint>
#include <string>
#include <vector>

#include "chaos_check.hpp"

#include <catch2/catch.hpp>

namespace {

using rmq_chaos::Cause;
using rmq_chaos::Fault;
using rmq_chaos::FaultKind;
using rmq_chaos::Handled;
using rmq_chaos::Input;
using rmq_chaos::Sent;

constexpr std::int64_t s = 1'000'000;  // one second in microseconds

std::string id(const std::string& key, std::int64_t seq) {
    return key + "#" + std::to_string(seq);
}

/// `n` messages of `key`, seq 0..n-1, sent at 1 s, 2 s, ... (offset = seq, queue 0 of broker-a).
void send(Input& in, const std::string& key, std::int64_t n) {
    for (std::int64_t q = 0; q < n; ++q) {
        in.sent.push_back(Sent{.key = key,
                               .seq = q,
                               .msg_id = id(key, q),
                               .broker = "broker-a",
                               .queue_id = 0,
                               .offset = q,
                               .time_us = (q + 1) * s});
    }
}

void handle(Input& in, const std::string& member, const std::string& key, std::int64_t seq, std::int64_t t) {
    in.handled.push_back(Handled{.member = member,
                                 .key = key,
                                 .seq = seq,
                                 .msg_id = id(key, seq),
                                 .broker = "broker-a",
                                 .queue_id = 0,
                                 .offset = seq,
                                 .time_us = t});
}

/// A clean run: every message of k handled once, in order, by m1 right after it was sent.
Input clean(std::int64_t n = 10) {
    Input in;
    send(in, "k", n);
    for (std::int64_t q = 0; q < n; ++q) {
        handle(in, "m1", "k", q, (q + 1) * s + 1000);
    }
    return in;
}

}  // namespace

TEST_CASE("chaos check: a clean run is ok", "[chaos]") {
    auto in = clean();
    in.send_failures = 2;
    const auto r = rmq_chaos::check(in);
    CHECK(r.sent == 10);
    CHECK(r.send_failures == 2);
    CHECK(r.handled == 10);
    CHECK(r.unique == 10);
    CHECK(r.lost == 0);
    CHECK(r.unknown == 0);
    CHECK(r.duplicates == 0);
    CHECK(r.order_violations() == 0);
    CHECK(r.rewinds == 0);
    CHECK(r.keys == 1);
    CHECK(r.longest_stall.wait_us == 1000);
    CHECK(r.ok(true));
}

TEST_CASE("chaos check: a message sent and never handled is lost", "[chaos]") {
    auto in = clean();
    in.handled.erase(in.handled.begin() + 4);  // seq 4
    handle(in, "m1", "x", 0, 3 * s);           // not in the sent log
    const auto r = rmq_chaos::check(in);
    CHECK(r.lost == 1);
    CHECK(r.unique == 9);
    CHECK(r.unknown == 1);
    REQUIRE(r.lost_examples.size() == 1);
    CHECK(r.lost_examples[0].starts_with("k#4 "));
    CHECK_FALSE(r.ok(false));
    CHECK(r.order_violations() == 0);  // a lost seq is no one's predecessor
}

TEST_CASE("chaos check: each repeat is explained by the faults between the two handlings", "[chaos]") {
    // k#3 handled by m1 at 4 s; a fault at 6 s; handled again at 10 s by `again`
    const auto run = [](const std::vector<Fault>& faults, const std::string& again = "m2") {
        auto in = clean();
        in.faults = faults;
        handle(in, again, "k", 3, 10 * s);
        const auto r = rmq_chaos::check(in);
        REQUIRE(r.duplicates == 1);
        for (int c = 0; c < rmq_chaos::cause_count; ++c) {
            if (r.by(static_cast<Cause>(c)) == 1) {
                return static_cast<Cause>(c);
            }
        }
        FAIL("no cause counted");
        return Cause::Unexplained;
    };
    CHECK(run({{6 * s, FaultKind::Kill, "m1"}}) == Cause::KillOfHolder);
    CHECK(run({{6 * s, FaultKind::Term, "m1"}}) == Cause::TermOfHolder);
    CHECK(run({{6 * s, FaultKind::Pause, "m1"}}) == Cause::PauseOfHolder);
    CHECK(run({{6 * s, FaultKind::BrokerKill, "broker-b"}}) == Cause::BrokerRestart);
    CHECK(run({{6 * s, FaultKind::BrokerStart, "broker-a"}}) == Cause::BrokerRestart);
    CHECK(run({{6 * s, FaultKind::Start, "m3"}}) == Cause::Handover);
    CHECK(run({{6 * s, FaultKind::Kill, "m3"}}) == Cause::Handover);  // another member: the queue moved
    CHECK(run({{6 * s, FaultKind::BrokerUp, "broker-a"}}) == Cause::Unexplained);  // the POP rules' mark only
    CHECK(run({}) == Cause::Unexplained);
    CHECK(run({}, "m1") == Cause::Unexplained);
    // the holder's own fault wins over a broker restart in the same window
    CHECK(run({{5 * s, FaultKind::BrokerKill, "broker-a"}, {6 * s, FaultKind::Kill, "m1"}}) ==
          Cause::KillOfHolder);
    // a fault before the first handling (beyond the slack), after the repeat, or long after the first
    // handling explains nothing
    CHECK(run({{-7 * s, FaultKind::Kill, "m1"}}) == Cause::Unexplained);
    CHECK(run({{2 * s, FaultKind::Kill, "m1"}}) ==
          Cause::Handover);  // not as the holder: 2 s before its handling
    CHECK(run({{11 * s, FaultKind::Kill, "m1"}}) == Cause::Unexplained);
    {
        auto in = clean();
        in.faults = {{40 * s, FaultKind::Kill, "m1"}};
        handle(in, "m2", "k", 3, 41 * s);
        CHECK(rmq_chaos::check(in).by(Cause::Unexplained) ==
              1);  // 36 s after the handling: beyond the window
        CHECK(rmq_chaos::check(in, {.window_us = 40 * s}).by(Cause::KillOfHolder) == 1);
    }
    // a membership change shortly before both handlings: two members consumed the moving queue for a moment
    CHECK(run({{2 * s, FaultKind::Start, "m3"}}) == Cause::Handover);
    CHECK(run({{2 * s, FaultKind::BrokerStart, "broker-b"}}) == Cause::BrokerRestart);
    {
        auto in = clean();
        in.faults = {{3 * s, FaultKind::Start, "m3"}};
        handle(in, "m2", "k", 8, 14 * s);  // k#8 first handled at 9 s: 6 s after the start
        handle(in, "m2", "k", 3, 15 * s);  // k#3 first handled at 4 s: 1 s after
        const auto r = rmq_chaos::check(in, {.rebalance_lag_us = 5 * s});
        CHECK(r.by(Cause::Handover) == 1);
        CHECK(r.by(Cause::Unexplained) == 1);  // k#8: beyond rebalance_lag_us
    }
    // a record written just after the driver logged the kill (within the slack) is the holder's
    CHECK(run({{4 * s - 500'000, FaultKind::Kill, "m1"}}) == Cause::KillOfHolder);
}

namespace {

/// The cause of the one repeat in `in`, checked as a POP run with a 20 s invisible time.
Cause pop_cause(const Input& in) {
    const auto r = rmq_chaos::check(in, {.pop_invisible_us = 20 * s});
    REQUIRE(r.duplicates == 1);
    for (int c = 0; c < rmq_chaos::cause_count; ++c) {
        if (r.by(static_cast<Cause>(c)) == 1) {
            return static_cast<Cause>(c);
        }
    }
    FAIL("no cause counted");
    return Cause::Unexplained;
}

/// k#3 handled by m1 at ~4 s, again by m2 at `again_s`, with `faults`.
Input pop_repeat(const std::vector<Fault>& faults, std::int64_t again_s = 30) {
    auto in = clean();
    in.faults = faults;
    handle(in, "m2", "k", 3, again_s * s);
    return in;
}

}  // namespace

TEST_CASE("chaos check (POP): the handler's fault within the invisible time explains a redelivery",
          "[chaos]") {
    CHECK(pop_cause(pop_repeat({{5 * s, FaultKind::Kill, "m1"}})) == Cause::KillOfHolder);
    CHECK(pop_cause(pop_repeat({{5 * s, FaultKind::Term, "m1"}})) == Cause::TermOfHolder);
    CHECK(pop_cause(pop_repeat({{5 * s, FaultKind::Pause, "m1"}})) == Cause::PauseOfHolder);
    // the driver logs the kill just before the signal: a record written within the slack after it is the
    // holder's
    CHECK(pop_cause(pop_repeat({{4 * s - 500'000, FaultKind::Kill, "m1"}})) == Cause::KillOfHolder);
    // up to the invisible time (20 s) plus the slack after the handling
    CHECK(pop_cause(pop_repeat({{24 * s + 500'000, FaultKind::Kill, "m1"}})) == Cause::KillOfHolder);
    // later the message was acked or back already: a kill 22 s after it, within the pull rules' 30 s window,
    // explains nothing
    CHECK(pop_cause(pop_repeat({{26 * s, FaultKind::Kill, "m1"}})) == Cause::Unexplained);
    CHECK(pop_cause(pop_repeat({{26 * s, FaultKind::Pause, "m1"}})) == Cause::Unexplained);
    // before the handling (beyond the slack), or after the repeat
    CHECK(pop_cause(pop_repeat({{2 * s, FaultKind::Kill, "m1"}})) == Cause::Unexplained);
    CHECK(pop_cause(pop_repeat({{12 * s, FaultKind::Kill, "m1"}}, 10)) == Cause::Unexplained);
}

TEST_CASE("chaos check (POP): no handover, another member's fault explains nothing", "[chaos]") {
    // the pull rules call these handovers: the queue moved
    CHECK(pop_cause(pop_repeat({{6 * s, FaultKind::Start, "m3"}})) == Cause::Unexplained);
    CHECK(pop_cause(pop_repeat({{6 * s, FaultKind::Kill, "m3"}})) == Cause::Unexplained);
    CHECK(pop_cause(pop_repeat({{6 * s, FaultKind::Pause, "m2"}})) == Cause::Unexplained);
    CHECK(pop_cause(pop_repeat({})) == Cause::Unexplained);
}

TEST_CASE("chaos check (POP): a restart of the message's broker explains a redelivery", "[chaos]") {
    // k#3 (broker-a) handled at ~4 s, again at 30 s
    CHECK(pop_cause(pop_repeat({{10 * s, FaultKind::BrokerKill, "broker-a"}})) == Cause::BrokerRestart);
    // the other broker's restart explains nothing
    CHECK(pop_cause(pop_repeat({{10 * s, FaultKind::BrokerKill, "broker-b"}})) == Cause::Unexplained);
    // handled after the broker's return (a copy it released: a revived check point, a rolled-back offset)
    CHECK(pop_cause(pop_repeat({{-25 * s, FaultKind::BrokerKill, "broker-a"},
                                {-20 * s, FaultKind::BrokerStart, "broker-a"},
                                {-16 * s, FaultKind::BrokerUp, "broker-a"}})) == Cause::BrokerRestart);
    // ... up to the invisible time after it: without the BrokerUp the return is the start, 24 s before
    CHECK(pop_cause(pop_repeat({{-25 * s, FaultKind::BrokerKill, "broker-a"},
                                {-20 * s, FaultKind::BrokerStart, "broker-a"}})) == Cause::Unexplained);
    // handled more than rebalance_lag_us (10 s) before the kill: the broker had flushed what it was
    CHECK(pop_cause(pop_repeat({{15 * s, FaultKind::BrokerKill, "broker-a"}})) == Cause::Unexplained);
    // a kill after the repeat
    CHECK(pop_cause(pop_repeat({{12 * s, FaultKind::BrokerKill, "broker-a"}}, 10)) == Cause::Unexplained);
    // the handler's own fault wins
    CHECK(pop_cause(pop_repeat({{5 * s, FaultKind::BrokerKill, "broker-a"},
                                {6 * s, FaultKind::Kill, "m1"}})) == Cause::KillOfHolder);
}

TEST_CASE("chaos check: the third handling is explained against the second", "[chaos]") {
    auto in = clean();
    in.faults = {{6 * s, FaultKind::Kill, "m1"}};
    handle(in, "m2", "k", 3, 20 * s);  // after m1's kill
    handle(in, "m2", "k", 3, 25 * s);  // m2 again, nothing happened to m2 (the kill is 14 s before its first)
    const auto r = rmq_chaos::check(in);
    CHECK(r.duplicates == 2);
    CHECK(r.by(Cause::KillOfHolder) == 1);
    CHECK(r.by(Cause::Unexplained) == 1);
    REQUIRE(r.unexplained_examples.size() == 1);
    CHECK(r.unexplained_examples[0].first_member == "m2");
    CHECK_FALSE(r.ok(false));
}

TEST_CASE("chaos check: a seq first handled after a higher one is an order violation", "[chaos]") {
    Input in;
    send(in, "k", 4);
    handle(in, "m1", "k", 0, 10 * s);
    handle(in, "m1", "k", 2, 11 * s);
    handle(in, "m1", "k", 1, 12 * s);
    handle(in, "m1", "k", 3, 13 * s);
    const auto r = rmq_chaos::check(in);
    CHECK(r.out_of_order == 1);
    REQUIRE_FALSE(r.violation_examples.empty());
    CHECK(r.violation_examples[0].seq == 2);  // 2 skipped 1 (interleaved) ...
    CHECK(r.violation_examples[0].fault == rmq_chaos::OrderFault::Interleaved);
    CHECK(r.violation_examples[1].seq == 1);  // ... and 1 came after 2 (out of order)
    CHECK(r.violation_examples[1].after_seq == 2);
    CHECK(r.violation_examples[1].fault == rmq_chaos::OrderFault::OutOfOrder);
    CHECK(r.order_violations() == 2);
    CHECK_FALSE(r.ok(true));
    CHECK(r.ok(false));  // Concurrently promises no order
}

TEST_CASE("chaos check: re-handling already handled seqs in order is a rewind, not a violation", "[chaos]") {
    auto in = clean(10);
    in.handled.resize(7);  // m1 handled 0..6
    in.faults = {{8 * s, FaultKind::Kill, "m1"}};
    for (std::int64_t q = 4; q < 10; ++q) {  // m2 takes over from the committed offset 4
        handle(in, "m2", "k", q, (20 + q) * s);
    }
    const auto r = rmq_chaos::check(in);
    CHECK(r.rewinds == 1);
    CHECK(r.order_violations() == 0);
    CHECK(r.duplicates == 3);
    CHECK(r.by(Cause::KillOfHolder) == 3);
    CHECK(r.lost == 0);
    CHECK(r.ok(true));
    // m2's first new message (seq 7) waited from its send (8 s, after m1 handled 6) to 27 s
    CHECK(r.longest_stall.seq == 7);
    CHECK(r.longest_stall.wait_us == 27 * s - 8 * s);
}

TEST_CASE("chaos check: a stale holder handling old seqs while the new holder goes on is a violation",
          "[chaos]") {
    // m1 paused after seq 4 (its lock expired); m2 handled 3..7; m1 resumed and handled 5, 6 again; m2 went
    // on with 8: two holders consumed the key at once.
    Input in;
    send(in, "k", 10);
    for (std::int64_t q = 0; q < 5; ++q) {
        handle(in, "m1", "k", q, (q + 1) * s);
    }
    in.faults = {{6 * s, FaultKind::Pause, "m1"}, {50 * s, FaultKind::Resume, "m1"}};
    for (std::int64_t q = 3; q < 8; ++q) {
        handle(in, "m2", "k", q, (40 + q) * s);
    }
    handle(in, "m1", "k", 5, 51 * s);
    handle(in, "m1", "k", 6, 52 * s);
    handle(in, "m2", "k", 8, 53 * s);
    handle(in, "m2", "k", 9, 54 * s);
    rmq_chaos::Options o;
    o.window_us = 60 * s;
    const auto r = rmq_chaos::check(in, o);
    CHECK(r.out_of_order == 0);
    CHECK(r.interleaved == 1);
    REQUIRE(r.violation_examples.size() == 1);
    CHECK(r.violation_examples[0].seq == 8);
    CHECK(r.violation_examples[0].after_seq == 6);
    CHECK(r.violation_examples[0].member == "m2");
    CHECK_FALSE(r.ok(true));
}

TEST_CASE("chaos check: a new holder resuming after the key's progress is a handover, even after a stale "
          "re-handling",
          "[chaos]") {
    // The simulation's seed 2192 (Orderly): m2 handled 6, 7, 8 but its commit lagged; m0 took the queue from
    // the committed offset, re-handled 7 and lost the queue; m3 resumed after 8 (m2's late commit).
    Input in;
    send(in, "k", 10);
    for (std::int64_t q = 0; q < 9; ++q) {
        handle(in, "m2", "k", q, (q + 1) * s);
    }
    in.faults = {{15 * s, FaultKind::Pause, "m2"}};
    handle(in, "m0", "k", 7, 20 * s);
    handle(in, "m3", "k", 9, 30 * s);
    const auto r = rmq_chaos::check(in);
    CHECK(r.rewinds == 1);
    CHECK(r.by(Cause::Unexplained) == 0);
    CHECK(r.order_violations() == 0);
    CHECK(r.ok(true));
}

TEST_CASE("chaos check: a member skipping its predecessor after re-handling an older seq is a violation",
          "[chaos]") {
    Input in;
    send(in, "k", 10);
    for (std::int64_t q = 0; q < 9; ++q) {
        handle(in, "m2", "k", q, (q + 1) * s);
    }
    handle(in, "m2", "k", 7, 20 * s);
    handle(in, "m2", "k", 9, 21 * s);  // 8 not re-handled
    const auto r = rmq_chaos::check(in);
    CHECK(r.interleaved == 1);
    REQUIRE(r.violation_examples.size() == 1);
    CHECK(r.violation_examples[0].seq == 9);
    CHECK(r.violation_examples[0].after_seq == 7);
    CHECK_FALSE(r.ok(true));
}

TEST_CASE("chaos check: a member going on from its own progress after its pause is a handover", "[chaos]") {
    // The simulation's seed 2192 after the commit fix: m2 handled 6, 7, 8 and was paused; a broker restart
    // had lost the last commit, so m0 re-handled 7 and lost the queue; m2 took it back and went on from its
    // own kept offset.
    Input in;
    send(in, "k", 10);
    for (std::int64_t q = 0; q < 9; ++q) {
        handle(in, "m2", "k", q, (q + 1) * s);
    }
    in.faults = {{10 * s, FaultKind::BrokerKill, "broker-a"},
                 {11 * s, FaultKind::BrokerStart, "broker-a"},
                 {14 * s, FaultKind::Pause, "m2"},
                 {40 * s, FaultKind::Resume, "m2"}};
    handle(in, "m0", "k", 7, 20 * s);
    handle(in, "m2", "k", 9, 50 * s);
    const auto r = rmq_chaos::check(in);
    CHECK(r.order_violations() == 0);
    CHECK(r.ok(true));
    // the same history without m2's pause and the restart: m2 went on while m0 re-handled 7
    in.faults.clear();
    CHECK(rmq_chaos::check(in).interleaved == 1);
}

TEST_CASE("chaos check: keys are checked apart, handlings of one key may come from several members",
          "[chaos]") {
    Input in;
    send(in, "a", 3);
    send(in, "b", 3);
    handle(in, "m1", "a", 0, 10 * s);
    handle(in, "m2", "b", 0, 10 * s);
    handle(in, "m2", "b", 1, 11 * s);
    handle(in, "m1", "a", 1, 11 * s);
    handle(in, "m2", "a", 2, 12 * s);  // a moved to m2 after a clean handover
    handle(in, "m1", "b", 2, 12 * s);
    const auto r = rmq_chaos::check(in);
    CHECK(r.keys == 2);
    CHECK(r.order_violations() == 0);
    CHECK(r.duplicates == 0);
    CHECK(r.ok(true));
}

TEST_CASE("chaos check: faults and shutdowns are counted and rendered", "[chaos]") {
    auto in = clean();
    in.faults = {{1 * s, FaultKind::Start, "m1"},
                 {2 * s, FaultKind::Kill, "m2"},
                 {3 * s, FaultKind::Kill, "m3"},
                 {4 * s, FaultKind::BrokerKill, "broker-a"}};
    in.shutdowns = {{"m1", 20 * s, 20 * s + 300'000}, {"m2", 20 * s, 21 * s}};
    const auto r = rmq_chaos::check(in);
    CHECK(r.faults.at("kill") == 2);
    CHECK(r.faults.at("start") == 1);
    CHECK(r.faults.at("broker_kill") == 1);
    REQUIRE(r.shutdowns.size() == 2);
    CHECK(r.shutdowns[0].member == "m2");  // longest first
    const auto md = rmq_chaos::to_markdown(r, "Orderly", true);
    CHECK_THAT(md, Catch::Contains("### Orderly"));
    CHECK_THAT(md, Catch::Contains("| **lost** | **0** |"));
    CHECK_THAT(md, Catch::Contains("broker_kill 1, kill 2, start 1"));
    CHECK_THAT(md, Catch::Contains("| clean shutdowns: count / median / longest | 2 / 1000 ms / 1000 ms |"));
    CHECK_THAT(md, Catch::Contains("| verdict | **ok** |"));
}

TEST_CASE("chaos check: fault kinds round-trip through their names", "[chaos]") {
    for (const FaultKind k : {FaultKind::Start,
                              FaultKind::Kill,
                              FaultKind::Term,
                              FaultKind::Pause,
                              FaultKind::Resume,
                              FaultKind::BrokerKill,
                              FaultKind::BrokerStart,
                              FaultKind::BrokerUp}) {
        FaultKind back = FaultKind::Start;
        REQUIRE(rmq_chaos::fault_kind_from(rmq_chaos::to_string(k), back));
        CHECK(back == k);
    }
    FaultKind unused = FaultKind::Start;
    CHECK_FALSE(rmq_chaos::fault_kind_from("sigkill", unused));
}
