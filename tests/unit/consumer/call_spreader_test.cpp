// detail::CallSpreader: the calls of OrderHost::submit_each, one task each while they are slow, sharing
// tasks while they are cheap, and never held back for long behind a stalled call.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/detail/consumer/call_spreader.hpp>
#include <rmq/detail/consumer/consume_pool.hpp>
#include <rmq/detail/consumer/scheduler.hpp>

using rmq::detail::CallSpreader;

namespace {

// Tasks and loop posts kept for the test thread to run: every step happens where the test can see it.
struct SpreaderRecorder {
    std::vector<std::function<void()>> tasks;
    std::vector<std::function<void()>> posts;

    CallSpreader::Hooks hooks() {
        return {[this](std::function<void()> t) { tasks.push_back(std::move(t)); },
                [this](std::int64_t /*delay*/, std::function<void()> f) {
                    posts.push_back(std::move(f));
                }};
    }

    // Runs the queued tasks (and those they queue) on this thread; how many ran.
    std::size_t run_tasks() {
        std::size_t ran = 0;
        while (!tasks.empty()) {
            auto batch = std::move(tasks);
            tasks.clear();
            for (auto& t : batch) {
                t();
                ++ran;
            }
        }
        return ran;
    }
};

}  // namespace

TEST_CASE("submit_each: calls of unknown cost get a task each, cheap ones then share a task",
          "[call_spreader]") {
    SpreaderRecorder rec;
    CallSpreader spreader(rec.hooks());
    std::vector<int> calls(32, 0);
    const auto count_call = [&](std::size_t i) {
        ++calls[i];
    };

    spreader.run(calls.size(), count_call, 20, true);
    CHECK(rec.tasks.size() == 32);  // nothing measured yet: Java's one task per batch
    rec.run_tasks();
    for (int round = 0; round < 40; ++round) {  // the cost estimate follows the measured calls down
        spreader.run(calls.size(), count_call, 20, true);
        rec.run_tasks();
    }
    REQUIRE(spreader.call_cost_ns() < CallSpreader::task_budget_ns / 32);

    spreader.run(calls.size(), count_call, 20, true);
    CHECK(rec.tasks.size() == 1);
    CHECK(rec.run_tasks() == 1);
    int wrong = 0;
    for (const int c : calls) {
        wrong += c == 42 ? 0 : 1;  // every call exactly once per run
    }
    CHECK(wrong == 0);
}

TEST_CASE("submit_each: slow calls keep a task each", "[call_spreader]") {
    SpreaderRecorder rec;
    CallSpreader spreader(rec.hooks());
    const auto slow = [](std::size_t) {
        std::this_thread::sleep_for(std::chrono::microseconds(300));
    };
    for (int round = 0; round < 3; ++round) {
        spreader.run(8, slow, 20, true);
        CHECK(rec.tasks.size() == 8);
        rec.run_tasks();
    }
    CHECK(spreader.call_cost_ns() >= CallSpreader::task_budget_ns);
}

TEST_CASE("submit_each: a driven consumer gets one task per call whatever the cost", "[call_spreader]") {
    SpreaderRecorder rec;
    CallSpreader spreader(rec.hooks());
    for (int round = 0; round < 40; ++round) {
        spreader.run(
            16, [](std::size_t) {}, 20, false);
        CHECK(rec.run_tasks() == 16);
    }
    CHECK(rec.posts.empty());
}

TEST_CASE("submit_each: calls that share a task are not held back by one that blocks", "[call_spreader]") {
    rmq::detail::ConsumePool pool(8, 1000);
    pool.start();
    rmq::detail::Scheduler loop;
    loop.start();
    std::atomic<int> refused{0};  // counted, asserted below on the test thread
    CallSpreader spreader({[&](std::function<void()> t) {
                               if (!pool.try_submit(std::move(t))) {
                                   refused.fetch_add(1);
                               }
                           },
                           [&](std::int64_t delay, std::function<void()> f) {
                               loop.post_after(delay, std::move(f));
                           }});
    // Cheap calls until the estimate says one task for the next run (a preempted task can raise it for a
    // while on a loaded machine: rounds until it is low, not a fixed number).
    for (int round = 0; round < 10'000 && spreader.call_cost_ns() >= CallSpreader::task_budget_ns / 4;
         ++round) {
        spreader.run(
            4, [](std::size_t) {}, 8, true);
        REQUIRE(pool.wait_idle(30'000));
    }
    REQUIRE(spreader.call_cost_ns() < CallSpreader::task_budget_ns / 4);

    // Each call waits until all four are inside at once: only possible when the watchdog gave the calls
    // behind the first one tasks of their own.
    std::mutex m;
    std::condition_variable cv;
    int inside = 0;
    std::atomic<int> met{0};
    std::vector<int> runs(4, 0);  // under m
    spreader.run(
        4,
        [&](std::size_t i) {
            std::unique_lock lock(m);
            ++runs[i];
            ++inside;
            cv.notify_all();
            if (cv.wait_for(lock, std::chrono::seconds(20), [&] { return inside == 4; })) {
                met.fetch_add(1);
            }
        },
        8,
        true);
    REQUIRE(pool.wait_idle(60'000));
    CHECK(met.load() == 4);
    CHECK(runs == std::vector<int>{1, 1, 1, 1});  // helpers claim from the same cursor: no call twice
    CHECK(refused.load() == 0);
    loop.stop();
    pool.close();
    pool.join();
}
