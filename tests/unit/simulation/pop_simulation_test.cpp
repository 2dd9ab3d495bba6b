// Deterministic simulation of POP members (rmq::sim::Options::pop): the push consumer's POP mode over the
// asynchronous pop (rmq::HasAsyncPop), under the POP faults (pop answers and acks lost) and the run's member
// crashes, pauses and a broker restart, judged by rmq::sim::check_pop: nothing lost, every redelivery
// explained. A seed is one history (equal trace hashes); the POP checker's rules each catch their failure.

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/rmq.hpp>

namespace pop_simulation_test {

namespace {

struct QuietLogs {
    rmq::LogLevel previous = rmq::set_log_level(std::getenv("RMQ_SIM_LOGS") != nullptr ? rmq::LogLevel::Debug
                                                                                       : rmq::LogLevel::Off);
    QuietLogs() = default;
    QuietLogs(const QuietLogs&) = delete;
    QuietLogs& operator=(const QuietLogs&) = delete;

    ~QuietLogs() { rmq::set_log_level(previous); }
};

/// Fails 5 % of the attempts, the same way every run (the message and its attempt decide).
rmq::Concurrently::Listener flaky_listener() {
    return [](std::span<const rmq::MessageExt> msgs,
              rmq::ConsumeConcurrentlyContext& /*ctx*/) -> std::optional<rmq::ConsumeConcurrentlyStatus> {
        for (const auto& m : msgs) {
            const auto h = static_cast<std::uint64_t>(rmq::sim::key_of(m)) * 7919U +
                           static_cast<std::uint64_t>(rmq::sim::seq_of(m)) * 104729U +
                           static_cast<std::uint64_t>(m.reconsume_times()) * 15485863U;
            if (h % 100U < 5U) {
                return rmq::ConsumeConcurrentlyStatus::ReconsumeLater;
            }
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    };
}

struct Outcome {
    rmq::sim::Verdict verdict;
    std::uint64_t hash = 0;
    std::uint64_t pop_hash = 0;
    std::size_t faults = 0;
    std::size_t redeliveries = 0;
    std::uint64_t steps = 0;
};

Outcome run_seed(std::uint64_t seed) {
    const QuietLogs quiet;
    rmq::sim::Options options;
    options.seed = seed;
    options.pop = true;
    rmq::sim::Simulation<rmq::Concurrently> sim(options, flaky_listener());
    const auto& trace = sim.run();
    const auto& pops = sim.pop_trace();
    std::size_t redeliveries = 0;
    for (const auto& p : pops.popped) {
        redeliveries += p.reconsume_times > 0 ? 1U : 0U;
    }
    return Outcome{rmq::sim::check_pop(trace, pops, options.faults.pause_max_millis),
                   trace.hash(),
                   pops.hash(),
                   trace.injected_faults(),
                   redeliveries,
                   sim.steps()};
}

/// Seeds run in CI.
const std::vector<std::uint64_t> fixed_seeds{1, 2, 3, 4, 5, 6};

}  // namespace

TEST_CASE("simulation: fixed seeds, POP members", "[sim]") {
    for (const auto seed : fixed_seeds) {
        const Outcome out = run_seed(seed);
        INFO(fmt::format("POP seed {}: {}", seed, out.verdict.summary()));
        for (const auto& p : out.verdict.problems) {
            UNSCOPED_INFO(p);
        }
        CHECK(out.verdict.ok());
        CHECK(out.faults > 0);
        CHECK(out.redeliveries > 0);  // the faults and failures did make messages come back
    }
}

TEST_CASE("simulation: one POP seed is one history", "[sim]") {
    const Outcome a = run_seed(7);
    const Outcome b = run_seed(7);
    const Outcome c = run_seed(8);
    CHECK(a.hash == b.hash);
    CHECK(a.pop_hash == b.pop_hash);
    CHECK(a.steps == b.steps);
    CHECK(a.hash != c.hash);
}

TEST_CASE("simulation: the POP checker explains redeliveries only by what became of the previous pop",
          "[sim]") {
    using rmq::sim::FaultKind;
    rmq::sim::Trace t;
    t.sent = {{0, 0, 0, false}, {1, 0, 1, false}};
    t.handled = {{100, 0, 0, 0, "T:-1", true, false}, {100, 0, 1, 0, "T:-1", true, false}};
    rmq::sim::PopTrace pops;
    // key 0 comes back after its invisible time with nothing lost; key 1 before its invisible time.
    pops.popped = {{100, 0, 0, 0, 20000, 0, false},
                   {100, 0, 1, 0, 20000, 0, false},
                   {5000, 1, 1, 0, 20000, 0, false},
                   {20100, 1, 0, 0, 20000, 1, false}};
    const auto bare = rmq::sim::check_pop(t, pops);
    CHECK(bare.unexplained_duplicates == 2);
    CHECK(bare.lost == 0);
    CHECK_FALSE(bare.ok());

    // A lost ack explains key 0's redelivery; it does not make key 1's early one right.
    pops.acks_lost = {{100, 0, 0, 0}, {100, 0, 1, 0}};
    CHECK(rmq::sim::check_pop(t, pops).unexplained_duplicates == 1);
    // A broker restart right after the pop (offsets rewound) explains an early re-pop.
    t.faults = {{600, FaultKind::BrokerRestarted, -1, ""}};
    CHECK(rmq::sim::check_pop(t, pops).ok());

    // A crash of the popping member explains a redelivery after the invisible time; a lost message is lost.
    rmq::sim::Trace crash;
    crash.sent = {{2, 0, 0, false}};
    crash.faults = {{150, FaultKind::MemberCrashed, 0, ""}};
    rmq::sim::PopTrace crash_pops;
    crash_pops.popped = {{100, 0, 2, 0, 20000, 0, false}, {20100, 1, 2, 0, 20000, 1, false}};
    const auto crashed = rmq::sim::check_pop(crash, crash_pops);
    CHECK(crashed.unexplained_duplicates == 0);
    CHECK(crashed.lost == 1);
}

// RMQ_SIM_SEED (first seed), RMQ_SIM_SEEDS (how many): prints every failing POP seed and its findings.
TEST_CASE("simulation: many POP seeds", "[.sim-pop-many]") {
    const char* seed_env = std::getenv("RMQ_SIM_SEED");
    const char* count_env = std::getenv("RMQ_SIM_SEEDS");
    const std::uint64_t first = seed_env != nullptr ? std::stoull(seed_env) : 1;
    const std::uint64_t count = count_env != nullptr ? std::stoull(count_env) : 100;
    std::vector<std::uint64_t> failed;
    for (std::uint64_t seed = first; seed < first + count; ++seed) {
        const Outcome out = run_seed(seed);
        if (!out.verdict.ok()) {
            failed.push_back(seed);
            fmt::print("FAIL POP seed {}: {}\n", seed, out.verdict.summary());
            for (const auto& p : out.verdict.problems) {
                fmt::print("  {}\n", p);
            }
        }
    }
    fmt::print("{} POP seeds from {}: {} failed\n", count, first, failed.size());
    CHECK(failed.empty());
}

}  // namespace pop_simulation_test
