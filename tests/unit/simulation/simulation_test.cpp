// Deterministic simulation (rmq::sim): a fixed set of seeds per order policy, each a whole run of several
// members and the embedded broker under faults, judged by rmq::sim::check; and the determinism of a seed.
// A failing seed prints the one command that replays it. tools/sim.sh runs many seeds through the hidden
// [sim-many] case below.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "chaos_check.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/rmq.hpp>

#include <rmq/detail/check/from_trace.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace simulation_test {

namespace {

// The members log every fault they meet (as they should); a run of many seeds would drown in it.
// RMQ_SIM_LOGS=1 (tools/sim.sh --logs) keeps them, at debug level, to follow one seed.
struct QuietLogs {
    rmq::LogLevel previous = rmq::set_log_level(std::getenv("RMQ_SIM_LOGS") != nullptr ? rmq::LogLevel::Debug
                                                                                       : rmq::LogLevel::Off);
    QuietLogs() = default;
    QuietLogs(const QuietLogs&) = delete;
    QuietLogs& operator=(const QuietLogs&) = delete;

    ~QuietLogs() { rmq::set_log_level(previous); }
};

// A listener that fails now and then, the same way every run: whether an attempt fails depends on the
// message and its attempt only.
template <class Order>
typename Order::Listener flaky_listener(int percent) {
    return [percent](std::span<const rmq::MessageExt> msgs,
                     typename Order::Context& /*ctx*/) -> std::optional<typename Order::Status> {
        for (const auto& m : msgs) {
            const auto h = static_cast<std::uint64_t>(rmq::sim::key_of(m)) * 7919U +
                           static_cast<std::uint64_t>(rmq::sim::seq_of(m)) * 104729U +
                           static_cast<std::uint64_t>(m.reconsume_times()) * 15485863U;
            if (static_cast<int>(h % 100U) < percent) {
                return Order::failure_status;
            }
        }
        if constexpr (std::is_same_v<Order, rmq::Concurrently>) {
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        } else {
            return rmq::ConsumeOrderlyStatus::Success;
        }
    };
}

// The same run through the chaos suite's rules of the one checker (docs/chaos.md, rmq::sim::check applies
// the simulation's): successful handlings only count there (the chaos members record a message when its
// listener succeeds), and the faults it does not model (offset and send faults, retry copies) make duplicates
// it cannot explain, so only its lost count and its order findings are asserted; an order finding within the
// lock grace after a broker restart is expected (the restart lost the locks while members still trust theirs,
// up to 30 s: a new holder and the old one interleave, as with a real broker; rmq::sim::check excuses it the
// same way).
rmq_chaos::Report chaos_report(const rmq::sim::Trace& t) {
    const auto in = rmq::detail::check::from_trace(t);
    rmq_chaos::Options options;
    options.examples = in.handled.size();  // every order finding, to be matched with restarts below
    return rmq_chaos::check(in, options);
}

constexpr std::int64_t grace_millis = 60000;

std::size_t unexplained_order_findings(const rmq_chaos::Report& r, const rmq::sim::Trace& t) {
    std::size_t n = 0;
    const auto after_restart = [&t](std::int64_t at) {
        return std::any_of(t.faults.begin(), t.faults.end(), [at](const auto& f) {
            return f.kind == rmq::sim::FaultKind::BrokerRestarted && f.time <= at &&
                   at - f.time <= grace_millis;
        });
    };
    for (const auto& v : r.violation_examples) {
        // either handling of the pair: the stale one may come first (seed 4982 of Orderly: a member trusting
        // its lock 12 s after a restart re-handled old seqs; the holder went on two minutes later)
        if (!after_restart(v.time_us / 1000) && !after_restart(v.after_time_us / 1000)) {
            ++n;
        }
    }
    return n;
}

struct Outcome {
    rmq::sim::Verdict verdict;
    std::uint64_t hash = 0;
    std::size_t faults = 0;
    std::uint64_t steps = 0;
    rmq::sim::Trace trace;
    rmq_chaos::Report chaos;
    bool ordered = false;
};

// RMQ_SIM_TRACE=1 (tools/sim.sh --trace): every record of a replayed seed, in order.
void print_trace(const rmq::sim::Trace& t) {
    std::size_t h = 0;
    std::size_t f = 0;
    // Merged by time; at equal times faults first (they are recorded when they strike).
    while (h < t.handled.size() || f < t.faults.size()) {
        if (f < t.faults.size() && (h == t.handled.size() || t.faults[f].time <= t.handled[h].time)) {
            const auto& e = t.faults[f++];
            fmt::print(
                "t={} fault {} member {} {}\n", e.time, rmq::sim::to_string(e.kind), e.member, e.queue);
        } else {
            const auto& e = t.handled[h++];
            fmt::print("t={} member {} key {} seq {} {} {}{}\n",
                       e.time,
                       e.member,
                       e.key,
                       e.seq,
                       e.queue,
                       e.success ? "ok" : "failed",
                       e.lock_held ? "" : " (no lock)");
        }
    }
}

template <class Order>
Outcome run_seed(std::uint64_t seed) {
    rmq::sim::Options options;
    options.seed = seed;
    rmq::sim::Simulation<Order> sim(options, flaky_listener<Order>(5));
    const auto& trace = sim.run();
    constexpr bool ordered = !std::is_same_v<Order, rmq::Concurrently>;
    return Outcome{rmq::sim::check(trace, ordered),
                   trace.hash(),
                   trace.injected_faults(),
                   sim.steps(),
                   trace,
                   chaos_report(trace),
                   ordered};
}

Outcome run_policy(std::string_view policy, std::uint64_t seed) {
    const QuietLogs quiet;
    if (policy == "concurrently") {
        return run_seed<rmq::Concurrently>(seed);
    }
    if (policy == "orderly") {
        return run_seed<rmq::Orderly>(seed);
    }
    if (policy == "key_orderly") {
        return run_seed<rmq::KeyOrderly>(seed);
    }
    throw rmq::InvalidArgument(fmt::format("unknown policy {}", policy));
}

std::string replay_command(std::string_view policy, std::uint64_t seed) {
    return fmt::format("tools/sim.sh --policy {} --seed {}", policy, seed);
}

// Runs the seeds and reports each failing one with its replay command; asserts on the test thread.
void check_seeds(std::string_view policy, const std::vector<std::uint64_t>& seeds) {
    for (const auto seed : seeds) {
        const Outcome out = run_policy(policy, seed);
        INFO(fmt::format("seed {} ({}): {}\nreplay: {}",
                         seed,
                         policy,
                         out.verdict.summary(),
                         replay_command(policy, seed)));
        for (const auto& p : out.verdict.problems) {
            UNSCOPED_INFO(p);
        }
        CHECK(out.verdict.ok());
        CHECK(out.faults > 0);
        CHECK(out.chaos.lost == 0);
        CHECK((!out.ordered || unexplained_order_findings(out.chaos, out.trace) == 0));
    }
}

// Seeds 10, 33, 38 and 47 are among those that caught a member consuming after its lock expired (Orderly
// and KeyOrderly without the is_lock_expired() check before a listener call); 1 and 2 among those that caught
// a Concurrently consumer dropping failed messages instead of sending them back; 2192 (Orderly) one whose
// handovers after a pause and a broker restart the chaos checker took for interleaving; 2543 (KeyOrderly) one
// with a re-delivery from the rebalance of a member's channel expiry, two minutes after its crash; 4982
// (Orderly) one whose order finding pairs a handling two minutes after a restart with a stale one right after
// it.
const std::vector<std::uint64_t> fixed_seeds{1, 2, 10, 33, 38, 47, 2192, 2543, 4982};

}  // namespace

TEST_CASE("simulation: fixed seeds, Concurrently", "[sim]") {
    check_seeds("concurrently", fixed_seeds);
}

TEST_CASE("simulation: fixed seeds, Orderly", "[sim]") {
    check_seeds("orderly", fixed_seeds);
}

TEST_CASE("simulation: fixed seeds, KeyOrderly", "[sim]") {
    check_seeds("key_orderly", fixed_seeds);
}

TEST_CASE("simulation: one seed is one history", "[sim]") {
    const Outcome a = run_policy("orderly", 7);
    const Outcome b = run_policy("orderly", 7);
    const Outcome c = run_policy("orderly", 8);
    CHECK(a.hash == b.hash);
    CHECK(a.steps == b.steps);
    CHECK(a.faults == b.faults);
    CHECK(a.hash != c.hash);
}

TEST_CASE("simulation: the checker finds each kind of failure", "[sim]") {
    using rmq::sim::FaultKind;
    rmq::sim::Trace t;
    t.sent = {{0, 0, 0, false}, {0, 1, 0, false}, {0, 2, 0, false}, {1, 0, 1, false}};
    // key 0: seq 1 before seq 0 succeeded; seq 0 twice by one member with nothing in between; key 1 by a
    // member without the lock; key 0 seq 2 never succeeds.
    t.handled = {
        {10, 0, 0, 1, "T:0", true, true},
        {20, 0, 0, 0, "T:0", true, true},
        {30, 0, 0, 0, "T:0", true, true},
        {40, 1, 1, 0, "T:1", true, false},
        {50, 0, 0, 2, "T:0", false, true},
    };
    const auto ordered = rmq::sim::check(t, true);
    CHECK(ordered.order_violations == 1);
    CHECK(ordered.duplicates == 1);
    CHECK(ordered.unexplained_duplicates == 1);
    CHECK(ordered.ownership_violations == 1);
    CHECK(ordered.lost == 1);
    CHECK_FALSE(ordered.ok());
    const auto unordered = rmq::sim::check(t, false);
    CHECK(unordered.order_violations == 0);
    CHECK(unordered.ownership_violations == 0);
    CHECK(unordered.lost == 1);

    // A rebalance explains the duplicate, a restart the missing lock; then only the lost message remains.
    t.faults = {{25, FaultKind::MemberJoined, 2, ""}, {35, FaultKind::BrokerRestarted, -1, ""}};
    const auto explained = rmq::sim::check(t, true);
    CHECK(explained.unexplained_duplicates == 0);
    CHECK(explained.ownership_violations == 0);
    CHECK(explained.lost == 1);
    CHECK(t.injected_faults() == 1);
}

// tools/sim.sh: RMQ_SIM_POLICY (concurrently, orderly, key_orderly), RMQ_SIM_SEED (first seed), RMQ_SIM_SEEDS
// (how many). Prints every failing seed's replay command, then seeds/s and faults per CPU second.
TEST_CASE("simulation: many seeds", "[.sim-many]") {
    const char* policy_env = std::getenv("RMQ_SIM_POLICY");
    const char* seed_env = std::getenv("RMQ_SIM_SEED");
    const char* count_env = std::getenv("RMQ_SIM_SEEDS");
    const std::string policy = policy_env != nullptr ? policy_env : "orderly";
    const std::uint64_t first = seed_env != nullptr ? std::stoull(seed_env) : 1;
    const std::uint64_t count = count_env != nullptr ? std::stoull(count_env) : 1;
    const std::clock_t cpu_begin = std::clock();
    std::size_t faults = 0;
    std::uint64_t steps = 0;
    std::vector<std::uint64_t> failed;
    for (std::uint64_t seed = first; seed < first + count; ++seed) {
        const Outcome out = run_policy(policy, seed);
        faults += out.faults;
        steps += out.steps;
        const bool chaos_ok =
            out.chaos.lost == 0 && (!out.ordered || unexplained_order_findings(out.chaos, out.trace) == 0);
        if (!out.verdict.ok() || !chaos_ok) {
            failed.push_back(seed);
            fmt::print("FAIL seed {} ({}): chaos checker: lost {}, order violations {}\n",
                       seed,
                       policy,
                       out.chaos.lost,
                       out.chaos.order_violations());
            for (const auto& v : out.chaos.violation_examples) {
                fmt::print("  chaos: {} key {} seq {} after seq {} by {} at t={}\n",
                           v.fault == rmq_chaos::OrderFault::OutOfOrder ? "out of order" : "interleaved",
                           v.key,
                           v.seq,
                           v.after_seq,
                           v.member,
                           v.time_us / 1000);
            }
            fmt::print("FAIL seed {} ({}): {}\n", seed, policy, out.verdict.summary());
            for (const auto& p : out.verdict.problems) {
                fmt::print("  {}\n", p);
            }
            fmt::print("  replay: {}\n", replay_command(policy, seed));
        }
        if (count == 1 && std::getenv("RMQ_SIM_TRACE") != nullptr) {
            print_trace(out.trace);
        }
        if (out.verdict.ok() && count == 1) {
            fmt::print("seed {} ({}): ok, {} faults, {} steps, hash {:016x}; {}\n",
                       seed,
                       policy,
                       out.faults,
                       out.steps,
                       out.hash,
                       out.verdict.summary());
        }
    }
    const double cpu = static_cast<double>(std::clock() - cpu_begin) / CLOCKS_PER_SEC;
    fmt::print("{} seeds of {} in {:.2f} CPU s: {:.1f} seeds/s, {} faults ({:.0f} per CPU s), {} steps "
               "({:.0f} per CPU s), "
               "{} failed\n",
               count,
               policy,
               cpu,
               static_cast<double>(count) / cpu,
               faults,
               static_cast<double>(faults) / cpu,
               steps,
               static_cast<double>(steps) / cpu,
               failed.size());
    CHECK(failed.empty());
}

}  // namespace simulation_test
