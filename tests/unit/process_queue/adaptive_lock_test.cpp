// detail::AdaptiveSharedMutex, the ProcessQueue's lock: exclusion between writers, sharing among readers.

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/detail/util/adaptive_shared_mutex.hpp>

using rmq::detail::AdaptiveSharedMutex;

TEST_CASE("writers exclude each other and readers, readers see whole updates", "[process_queue][lock]") {
    AdaptiveSharedMutex m;
    // Two plain fields changed together under the write lock: a reader that ever saw them differ, or a lost
    // increment, would mean the lock let two parties in.
    long a = 0;
    long b = 0;
    std::atomic<long> torn{0};
    std::atomic<bool> stop{false};
    constexpr int writers = 3;
    constexpr int rounds = 20'000;
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&] {
            for (int i = 0; i < rounds; ++i) {
                const std::unique_lock lock(m);
                ++a;
                ++b;
            }
        });
    }
    std::thread reader([&] {
        while (!stop.load()) {
            const std::shared_lock lock(m);
            if (a != b) {
                torn.fetch_add(1);
            }
        }
    });
    for (auto& t : threads) {
        t.join();
    }
    stop.store(true);
    reader.join();
    CHECK(torn.load() == 0);
    CHECK(a == static_cast<long>(writers) * rounds);
    CHECK(b == a);
}

TEST_CASE("try_lock fails while a reader holds the lock, readers share it", "[process_queue][lock]") {
    AdaptiveSharedMutex m;
    m.lock_shared();
    CHECK(m.try_lock_shared());  // a second reader gets in
    CHECK_FALSE(m.try_lock());
    m.unlock_shared();
    m.unlock_shared();
    CHECK(m.try_lock());
    std::thread other([&] { CHECK_FALSE(m.try_lock_shared()); });  // one assertion, main thread waits
    other.join();
    m.unlock();
}
