// The chaos suite's short variant (docs/chaos.md): the programs of tests/chaos/ (a keyed producer, three
// rmq::Orderly members in processes of their own) against the cluster of tools/broker-test.sh, with one kill
// -9 of a member (restarted), one SIGSTOP longer than the broker's queue lock expiry (60 s on this cluster)
// and one broker kill -9 and restart; then the checker of tests/support/chaos_check.hpp must find nothing
// lost, no duplicate the faults do not explain and no per-key order violation.

#include <chrono>
#include <csignal>
#include <set>
#include <string>
#include <thread>

#include "chaos_run.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

TEST_CASE("chaos (short): orderly members under kill -9, a pause past the lock expiry and a broker restart",
          "[realcluster][chaos]") {
    rmq_rc_chaos::Run run("RcChaos", {"orderly"}, 4);
    const auto t0 = Clock::now();
    const auto at = [&](int s) {
        std::this_thread::sleep_until(t0 + std::chrono::seconds(s));
    };
    for (int slot = 1; slot <= 3; ++slot) {
        run.start(slot);
    }
    constexpr int produce_s = 75;
    const pid_t producer = run.produce(40, 40, produce_s);
    // The schedule; the broker restart runs beside it (start-broker takes 15-25 s). m2 is paused past the
    // broker's lock expiry (60 s on this cluster); then m1's kill leaves [m2, m3], which moves m2's upper
    // queues to m3: m3 locks them (m2's locks expired), and m2, continued, must not consume them again.
    at(8);
    run.signal(2, "pause", SIGSTOP);
    at(20);
    std::thread broker = run.restart_broker("broker-b", std::chrono::seconds(5));
    at(70);
    run.signal(1, "kill", SIGKILL);
    waitpid(run.members.at(1).second, nullptr, 0);
    at(76);
    run.signal(2, "resume", SIGCONT);
    at(78);
    run.start(1);
    broker.join();
    waitpid(producer, nullptr, 0);
    const bool drained = rmq_rc::wait_until([&] { return run.drained(); }, std::chrono::seconds(180));
    run.stop_members();
    const auto input = rmq_chaos::read_run(run.dir);
    const auto report = rmq_chaos::check(input, rmq_chaos::Options{.window_us = 60'000'000});
    // the pause did what it is for: another member consumed, during the pause, a queue m2 consumed before it
    std::int64_t paused_at = 0;
    std::int64_t resumed_at = 0;
    for (const auto& f : input.faults) {
        if (f.kind == rmq_chaos::FaultKind::Pause) {
            paused_at = f.time_us;
        } else if (f.kind == rmq_chaos::FaultKind::Resume) {
            resumed_at = f.time_us;
        }
    }
    const auto queue = [](const rmq_chaos::Handled& h) {
        return fmt::format("{}:{}", h.broker, h.queue_id);
    };
    std::set<std::string> held;
    std::set<std::string> taken;
    for (const auto& h : input.handled) {
        if (h.member == "m2.1" && h.time_us < paused_at) {
            held.insert(queue(h));
        }
    }
    for (const auto& h : input.handled) {
        if (h.member != "m2.1" && h.time_us > paused_at && h.time_us < resumed_at &&
            held.contains(queue(h))) {
            taken.insert(queue(h));
        }
    }
    INFO(rmq_chaos::to_markdown(report, "Orderly (short chaos run)", true));
    INFO("logs: " << run.dir.string() << "; m2's queues before the pause: " << held.size()
                  << ", consumed by another member during it: " << taken.size());
    CHECK(drained);
    CHECK(report.sent > 1000);
    CHECK(report.lost == 0);
    CHECK(report.by(rmq_chaos::Cause::Unexplained) == 0);
    CHECK(report.order_violations() == 0);
    CHECK(report.faults.at("kill") == 1);
    CHECK(report.faults.at("pause") == 1);
    CHECK(report.shutdowns.size() == 3);
    CHECK(!taken.empty());
    WARN(rmq_chaos::to_markdown(report, "Orderly (short chaos run)", true));
}
