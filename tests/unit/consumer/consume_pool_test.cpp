// detail::ConsumePool: the bounded hand-over from the consumer's loop to the listener threads.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/detail/consumer/consume_pool.hpp>

using rmq::detail::ConsumePool;

namespace {

// Deadlock guard for waits that must end: generous, never a speed assertion.
constexpr auto guard = std::chrono::seconds(30);

}  // namespace

TEST_CASE("every submitted task runs exactly once, from several submitting threads", "[consume_pool]") {
    ConsumePool pool(4, 100'000);
    pool.start();
    constexpr int per_producer = 5'000;
    std::vector<std::atomic<int>> runs(4 * per_producer);
    std::vector<std::thread> producers;
    for (int p = 0; p < 4; ++p) {
        producers.emplace_back([&, p] {
            for (int i = 0; i < per_producer; ++i) {
                const int id = p * per_producer + i;
                std::function<void()> task = [&runs, id] {
                    runs[static_cast<std::size_t>(id)].fetch_add(1);
                };
                while (!pool.try_submit(std::move(task))) {
                    std::this_thread::yield();
                }
            }
        });
    }
    for (auto& t : producers) {
        t.join();
    }
    REQUIRE(pool.wait_idle(30'000));
    int wrong = 0;
    for (auto& r : runs) {
        wrong += r.load() == 1 ? 0 : 1;
    }
    CHECK(wrong == 0);
    CHECK(pool.queued() == 0);
}

TEST_CASE("a full queue refuses the task and leaves it with the caller", "[consume_pool]") {
    ConsumePool pool(1, 2);  // not started: nothing is taken off the queue
    std::atomic<int> ran{0};
    CHECK(pool.try_submit([&] { ++ran; }));
    CHECK(pool.try_submit([&] { ++ran; }));
    CHECK(pool.full());
    std::function<void()> third = [&] {
        ran += 10;
    };
    CHECK_FALSE(pool.try_submit(std::move(third)));
    REQUIRE(third);  // not moved from: the consumer retries it later
    third();
    CHECK(ran == 10);
    pool.start();
    REQUIRE(pool.wait_idle(30'000));
    CHECK(ran == 12);
    CHECK_FALSE(pool.full());
}

TEST_CASE("close discards queued tasks, refuses new ones and lets the running one finish", "[consume_pool]") {
    ConsumePool pool(1, 10);
    std::mutex m;
    std::condition_variable cv;
    bool started = false;
    bool release = false;
    std::atomic<int> ran{0};
    pool.start();
    REQUIRE(pool.try_submit([&] {
        std::unique_lock lock(m);
        started = true;
        cv.notify_all();
        cv.wait_for(lock, guard, [&] { return release; });
        ++ran;
    }));
    {
        std::unique_lock lock(m);
        REQUIRE(cv.wait_for(lock, guard, [&] { return started; }));
    }
    REQUIRE(pool.try_submit([&] { ran += 100; }));
    REQUIRE(pool.try_submit([&] { ran += 100; }));
    CHECK(pool.close() == 2);
    CHECK_FALSE(pool.try_submit([&] { ran += 1000; }));
    CHECK_FALSE(pool.wait_idle(0));  // the first task still runs
    {
        const std::lock_guard lock(m);
        release = true;
    }
    cv.notify_all();
    CHECK(pool.wait_idle(30'000));
    pool.join();
    CHECK(ran == 1);
}

TEST_CASE("a burst of blocking tasks wakes every worker (no task waits behind a busy one)",
          "[consume_pool]") {
    // Each task waits until all `threads` tasks run at the same time: this completes only when the pool woke
    // all of its workers for the burst, even though one awake worker could have taken them one by one.
    constexpr std::size_t threads = 8;
    ConsumePool pool(threads, 64);
    pool.start();
    std::mutex m;
    std::condition_variable cv;
    std::size_t inside = 0;
    std::atomic<std::size_t> met{0};
    std::set<std::thread::id> ids;
    for (std::size_t i = 0; i < threads; ++i) {
        REQUIRE(pool.try_submit([&] {
            std::unique_lock lock(m);
            ids.insert(std::this_thread::get_id());
            ++inside;
            cv.notify_all();
            if (cv.wait_for(lock, guard, [&] { return inside == threads; })) {
                met.fetch_add(1);
            }
        }));
    }
    REQUIRE(pool.wait_idle(60'000));
    CHECK(met.load() == threads);
    CHECK(ids.size() == threads);
}

TEST_CASE("on_worker tells the pool's threads from others, a throwing task does not kill its worker",
          "[consume_pool]") {
    ConsumePool pool(1, 8);
    pool.start();
    std::atomic<bool> inside{false};
    std::atomic<int> after{0};
    CHECK_FALSE(pool.on_worker());
    REQUIRE(pool.try_submit([&] { inside = pool.on_worker(); }));
    REQUIRE(pool.try_submit([] { throw std::runtime_error("listener bug"); }));
    REQUIRE(pool.try_submit([&] { ++after; }));
    REQUIRE(pool.wait_idle(30'000));
    CHECK(inside.load());
    CHECK(after.load() == 1);
}
