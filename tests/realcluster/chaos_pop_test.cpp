// The chaos suite's short variant in POP mode (docs/chaos.md#pop-mode): three rmq::Concurrently members in
// POP mode (rmq_chaos_member pop, 20 s invisible time) against the cluster of tools/broker-test.sh, with one
// kill -9 of a member (restarted), one SIGSTOP past the invisible time and one broker kill -9 and restart;
// the checker, with its POP rules, must find nothing lost and no duplicate the faults do not explain. Apache
// RocketMQ 4.x has no POP: there the test only warns that it did not run.

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <string>
#include <thread>

#include "chaos_run.hpp"

#include <catch2/catch.hpp>

namespace {

constexpr int invisible_s = 20;

/// Messages `member` handled after `from_us`.
std::int64_t handled_after(const rmq_chaos::Input& in, const std::string& member, std::int64_t from_us) {
    return std::count_if(in.handled.begin(), in.handled.end(), [&](const rmq_chaos::Handled& h) {
        return h.member == member && h.time_us > from_us;
    });
}

std::int64_t fault_time(const rmq_chaos::Input& in, rmq_chaos::FaultKind kind) {
    for (const auto& f : in.faults) {
        if (f.kind == kind) {
            return f.time_us;
        }
    }
    return 0;
}

/// The schedule, 50 s of producing; the broker restart runs beside it (start-broker takes 15-25 s). m2 is
/// stopped for 35 s: what it popped comes back to the others after the invisible time, and once continued
/// it must drop what it still holds (timed out) and pop anew.
bool run_schedule(rmq_rc_chaos::Run& run) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto at = [&](int s) {
        std::this_thread::sleep_until(t0 + std::chrono::seconds(s));
    };
    for (int slot = 1; slot <= 3; ++slot) {
        run.start(slot);
    }
    const pid_t producer = run.produce(40, 40, 50);
    at(5);
    run.signal(2, "pause", SIGSTOP);
    at(12);
    run.signal(1, "kill", SIGKILL);
    waitpid(run.members.at(1).second, nullptr, 0);
    at(14);
    run.start(1);
    at(18);
    std::thread broker = run.restart_broker("broker-b", std::chrono::seconds(5));
    at(5 + invisible_s + 15);
    run.signal(2, "resume", SIGCONT);
    broker.join();
    waitpid(producer, nullptr, 0);
    const bool drained = rmq_rc::wait_until([&] { return run.drained(); }, std::chrono::seconds(90));
    run.stop_members();
    return drained;
}

}  // namespace

TEST_CASE(
    "chaos (short, POP): pop members under kill -9, a pause past the invisible time and a broker restart",
    "[realcluster][chaos][pop]") {
    if (rmq_rc::rocketmq_4x()) {
        WARN("Apache RocketMQ " << rmq_rc::env("RMQ_VERSION") << " has no POP: this 5.x test did NOT run");
        return;
    }
    rmq_rc_chaos::Run run("RcChaosPop", {"pop", std::to_string(invisible_s * 1000)}, 4);
    const bool drained = run_schedule(run);
    const auto input = rmq_chaos::read_run(run.dir);
    const auto report = rmq_chaos::check(
        input, rmq_chaos::Options{.window_us = 60'000'000, .pop_invisible_us = invisible_s * 1'000'000LL});
    const auto resumed = handled_after(input, "m2.1", fault_time(input, rmq_chaos::FaultKind::Resume));
    INFO(rmq_chaos::to_markdown(report, "POP (short chaos run)", false));
    INFO("logs: " << run.dir.string() << "; m2.1 handled " << resumed << " messages after SIGCONT");
    CHECK(drained);
    CHECK(report.sent > 500);  // 40 msg/s for 50 s, broker-b down for half of it; a loaded machine sends less
    CHECK(report.lost == 0);
    CHECK(report.by(rmq_chaos::Cause::Unexplained) == 0);
    CHECK(report.faults.at("kill") == 1);
    CHECK(report.faults.at("pause") == 1);
    CHECK(report.faults.at("broker_kill") == 1);
    CHECK(report.shutdowns.size() == 3);
    CHECK(resumed > 0);  // the paused member popped again once continued
    WARN(rmq_chaos::to_markdown(report, "POP (short chaos run)", false));
}
