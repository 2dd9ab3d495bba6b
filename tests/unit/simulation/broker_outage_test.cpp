// Broker outages in rmq::sim (issue 30 §1): two brokers, one goes down for 5-15 s and a member starts
// meanwhile (it never heard of the down broker), then the broker comes back. No queue may have two live
// owners for more than 2 s of simulated time; without the route check (Java's 30 s route poll) it does.

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/rmq.hpp>

namespace {

struct QuietLogs {
    rmq::LogLevel previous = rmq::set_log_level(std::getenv("RMQ_SIM_LOGS") != nullptr ? rmq::LogLevel::Debug
                                                                                       : rmq::LogLevel::Off);
    QuietLogs() = default;
    QuietLogs(const QuietLogs&) = delete;
    QuietLogs& operator=(const QuietLogs&) = delete;

    ~QuietLogs() { rmq::set_log_level(previous); }
};

// Only the outage: no lost answers, crashes or pauses, so that every double ownership is the outage's.
rmq::sim::Options outage_options(std::uint64_t seed) {
    rmq::sim::Options o;
    o.seed = seed;
    o.brokers = 2;
    o.members = 3;
    o.queues = 4;
    o.messages = 300;
    o.send_millis = 60000;
    o.fault_millis = 60000;
    rmq::sim::Faults& f = o.faults;
    f.pull_drop = f.pull_delay = f.offset_drop = f.offset_delay = f.offset_duplicate = 0;
    f.lock_answer_drop = f.heartbeat_drop = f.send_duplicate = 0;
    f.crashes = f.pauses = f.restarts = 0;
    f.outages = 1;
    f.member_starts_during_outage = true;
    return o;
}

struct Run {
    rmq::sim::Verdict verdict;
    rmq::sim::Trace trace;
};

Run run(const rmq::sim::Options& options) {
    const QuietLogs quiet;
    rmq::sim::Simulation<rmq::Concurrently> sim(
        options, [](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    const auto& trace = sim.run();
    return Run{rmq::sim::check(trace, false), trace};
}

std::string describe(const rmq::sim::Trace& t) {
    std::string out;
    for (const auto& f : t.faults) {
        if (f.kind != rmq::sim::FaultKind::MemberExpired) {
            out += fmt::format("t={} {} member {}\n", f.time, rmq::sim::to_string(f.kind), f.member);
        }
    }
    for (const auto& d : t.double_ownership) {
        if (d.millis() > 0) {
            out += fmt::format("{} owned by {} from {} to {} ({} ms)\n",
                               d.queue,
                               fmt::join(d.members, ","),
                               d.from,
                               d.to,
                               d.millis());
        }
    }
    return out;
}

const std::vector<std::uint64_t> outage_seeds{1, 2, 3, 4, 5, 6, 7, 8};

}  // namespace

TEST_CASE("simulation: after a broker outage during which a member started, no queue has two live owners "
          "for more than 2 s",
          "[sim]") {
    for (const auto seed : outage_seeds) {
        const Run r = run(outage_options(seed));
        INFO(fmt::format("seed {}: {}; longest double ownership {} ms\n{}",
                         seed,
                         r.verdict.summary(),
                         r.trace.longest_double_ownership(),
                         describe(r.trace)));
        CHECK(r.verdict.lost == 0);
        CHECK(r.verdict.unexplained_duplicates == 0);
        CHECK(r.trace.longest_double_ownership() <= 2000);
    }
}

TEST_CASE("simulation: without the route check, a member that started during a broker outage shares queues "
          "for longer than 2 s",
          "[sim]") {
    std::int64_t longest = 0;
    for (const auto seed : outage_seeds) {
        auto options = outage_options(seed);
        options.routes.check_millis = 0;  // only the 30 s route poll, as Java
        const Run r = run(options);
        CHECK(r.verdict.lost == 0);
        longest = std::max(longest, r.trace.longest_double_ownership());
    }
    CHECK(longest > 2000);
}

// The figures: tools or a person run `rmq_unit_simulation "[.sim-outage]"` (RMQ_SIM_SEEDS seeds, default 50)
// for the longest double ownership per model.
TEST_CASE("simulation: longest double ownership after broker outages", "[.sim-outage]") {
    const char* count_env = std::getenv("RMQ_SIM_SEEDS");
    const std::uint64_t count = count_env != nullptr ? std::stoull(count_env) : 50;

    struct Model {
        const char* name;
        std::int64_t check_millis;
        bool member_list_union;
    };

    for (const Model m : {Model{"route check + member list union (rmq)", 1000, true},
                          Model{"route check, one broker's member list", 1000, false},
                          Model{"30 s route poll only + one broker's member list (Java)", 0, false}}) {
        std::int64_t longest = 0;
        std::uint64_t worst = 0;
        std::size_t over = 0;
        std::size_t lost = 0;
        for (std::uint64_t seed = 1; seed <= count; ++seed) {
            auto options = outage_options(seed);
            options.routes.check_millis = m.check_millis;
            options.routes.member_list_union = m.member_list_union;
            const Run r = run(options);
            const auto l = r.trace.longest_double_ownership();
            lost += r.verdict.lost;
            over += l > 2000 ? 1 : 0;
            if (l > longest) {
                longest = l;
                worst = seed;
            }
        }
        fmt::print("{}: {} seeds, longest double ownership {} ms (seed {}), {} seeds over 2 s, lost {}\n",
                   m.name,
                   count,
                   longest,
                   worst,
                   over,
                   lost);
    }
}
