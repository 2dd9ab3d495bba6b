// detail::BatchedHandoff, which carries the answers of asynchronous sends from the io thread to the
// producer's threads: every item handled once, in order, on a pool thread; one posted drain for a burst;
// nothing lost when pushes race the end of a drain; a stopped pool handled on the pushing thread.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/detail/producer/async_sender.hpp>
#include <rmq/detail/producer/handoff.hpp>

namespace answer_handoff_test {

namespace {

struct Item {
    int n = 0;
};

bool wait_until(const std::function<bool()>& done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done()) {
        if (std::chrono::steady_clock::now() > until) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace

TEST_CASE("the answer handoff takes a burst with one posted drain, in order, on a pool thread",
          "[remoting_transport][async_send]") {
    constexpr int n = 100;
    rmq::detail::AsyncSender pool(2, 1);
    std::atomic<int> posts{0};
    std::promise<void> burst_pushed;
    std::shared_future<void> released = burst_pushed.get_future().share();
    std::mutex m;
    std::vector<int> handled;
    std::vector<std::thread::id> threads;
    std::vector<Item> items(n);
    rmq::detail::BatchedHandoff<Item> handoff(
        [&](std::function<void()> task) {
            ++posts;
            pool.post(std::move(task));
        },
        [&](Item* item) {
            if (item->n == 0) {
                released.wait();  // the drain is busy while the rest of the burst arrives
            }
            const std::lock_guard lock(m);
            handled.push_back(item->n);
            threads.push_back(std::this_thread::get_id());
        });
    for (int i = 0; i < n; ++i) {
        items[static_cast<std::size_t>(i)].n = i;
        handoff.push(&items[static_cast<std::size_t>(i)]);
    }
    burst_pushed.set_value();
    REQUIRE(wait_until([&] {
        const std::lock_guard lock(m);
        return handled.size() == n;
    }));
    CHECK(posts.load() == 1);
    const std::lock_guard lock(m);
    for (int i = 0; i < n; ++i) {
        CHECK(handled[static_cast<std::size_t>(i)] == i);
        CHECK(threads[static_cast<std::size_t>(i)] != std::this_thread::get_id());
    }
    pool.stop();
}

TEST_CASE("the answer handoff loses nothing when pushes race the end of a drain",
          "[remoting_transport][async_send]") {
    constexpr int per_thread = 20000;
    rmq::detail::AsyncSender pool(2, 1);
    std::atomic<int> handled{0};
    std::vector<Item> items(2 * per_thread);
    rmq::detail::BatchedHandoff<Item> handoff([&](std::function<void()> task) { pool.post(std::move(task)); },
                                              [&](Item* item) {
                                                  item->n = 1;
                                                  ++handled;
                                              });
    std::vector<std::thread> pushers;
    for (int t = 0; t < 2; ++t) {
        pushers.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                handoff.push(&items[static_cast<std::size_t>(t * per_thread + i)]);
                if (i % 64 == 0) {
                    std::this_thread::yield();  // let drains end between pushes
                }
            }
        });
    }
    for (auto& p : pushers) {
        p.join();
    }
    REQUIRE(wait_until([&] { return handled.load() == 2 * per_thread; }));
    for (const auto& item : items) {
        CHECK(item.n == 1);
    }
    pool.stop();
}

TEST_CASE("the answer handoff runs the drain on the pushing thread once the pool is stopped",
          "[remoting_transport][async_send]") {
    std::vector<std::thread::id> threads;
    rmq::detail::BatchedHandoff<Item> handoff(
        [](const std::function<void()>&) { throw std::runtime_error("stopped"); },
        [&](Item*) { threads.push_back(std::this_thread::get_id()); });
    Item a;
    Item b;
    handoff.push(&a);
    handoff.push(&b);
    REQUIRE(threads.size() == 2);
    CHECK(threads[0] == std::this_thread::get_id());
    CHECK(threads[1] == std::this_thread::get_id());
}

}  // namespace answer_handoff_test
