// Many threads on one ProcessQueue (runs under TSan in CI): exact counters and min-offset answers at the end.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "process_queue_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>
#include <rmq/message.hpp>
#include <rmq/process_queue.hpp>

using pq_test::make_msg;
using pq_test::make_msgs;
using Offsets = std::vector<std::int64_t>;

namespace {

constexpr int putters = 4;
constexpr std::int64_t per_putter = 1500;
constexpr std::int64_t batch = 10;
constexpr std::int64_t sentinel_high = 1'000'000;

// Putter p owns offsets [1 + p * per_putter, 1 + (p + 1) * per_putter); offset 0 and sentinel_high are cached
// before the threads start and never removed by them.
constexpr std::int64_t first_offset(int p) {
    return 1 + p * per_putter;
}

}  // namespace

TEST_CASE("4 putters and 2 removers: every removal answers the cached minimum, counters end exact",
          "[process_queue][concurrency]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    REQUIRE(pq.put_messages({make_msg(0), make_msg(sentinel_high)}));

    std::atomic<int> dispatches{0};
    std::atomic<bool> stop_reader{false};
    std::vector<std::thread> threads;
    for (int p = 0; p < putters; ++p) {
        threads.emplace_back([&pq, &dispatches, p] {
            for (std::int64_t o = first_offset(p); o < first_offset(p + 1); o += batch) {
                if (pq.put_messages(make_msgs(o, batch))) {
                    dispatches.fetch_add(1);
                }
            }
        });
    }
    // Remover r removes the offsets of its parity, each once it is cached; it owns them, so nobody else can
    // remove one between the check and the removal.
    std::vector<std::vector<std::int64_t>> answers(2);
    for (int r = 0; r < 2; ++r) {
        threads.emplace_back([&pq, &answers, r] {
            const std::int64_t end = first_offset(putters);
            for (std::int64_t o = 1; o < end; ++o) {
                if (o % 2 != r) {
                    continue;
                }
                while (!pq.contains_message(o)) {
                    std::this_thread::yield();
                }
                answers[static_cast<std::size_t>(r)].push_back(pq.remove_messages(Offsets{o}));
            }
        });
    }
    // A reader exercising every read path at the same time.
    std::int64_t reads = 0;
    std::thread reader([&] {
        while (!stop_reader.load()) {
            reads += pq.max_span() + pq.msg_count() + pq.msg_size() + pq.min_offset_in_cache() +
                     pq.max_offset_in_cache() + pq.queue_offset_max() + pq.info().cached_msg_count +
                     (pq.has_temp_message() ? 1 : 0) + (pq.consuming() ? 1 : 0);
            pq.clean_expired_msg(1'000'000'000, [](const rmq::MessageExt&) { return true; });
            std::this_thread::yield();
        }
    });
    for (auto& t : threads) {
        t.join();
    }
    stop_reader.store(true);
    reader.join();

    const std::int64_t removed_total = per_putter * putters;
    CHECK(static_cast<std::int64_t>(answers[0].size() + answers[1].size()) == removed_total);
    // Offset 0 stayed cached the whole time, so it was the only right answer.
    for (const auto& list : answers) {
        CHECK(std::all_of(list.begin(), list.end(), [](std::int64_t a) { return a == 0; }));
    }
    CHECK(dispatches.load() == 0);  // the first put already dispatched and nobody took
    CHECK(pq.msg_count() == 2);
    CHECK(pq.msg_size() == 2 * 123);
    CHECK(pq.max_span() == sentinel_high);
    CHECK(pq.remove_messages(Offsets{0}) == sentinel_high);
    const std::int64_t last_put = pq.queue_offset_max();
    CHECK(last_put >= first_offset(0) + batch - 1);
    CHECK(pq.remove_messages(Offsets{sentinel_high}) == last_put + 1);
    CHECK(pq.msg_count() == 0);
    CHECK(pq.msg_size() == 0);
    CHECK(pq.remove_messages(Offsets{sentinel_high}) == -1);
    CHECK(reads > 0);
}

TEST_CASE("2 putters and an orderly taker: each offset is taken and committed exactly once",
          "[process_queue][concurrency]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    constexpr std::int64_t each = 2000;
    std::atomic<int> putters_done{0};
    std::vector<std::thread> threads;
    for (int p = 0; p < 2; ++p) {
        threads.emplace_back([&, p] {
            for (std::int64_t o = p * each; o < (p + 1) * each; o += batch) {
                pq.put_messages(make_msgs(o, batch));
            }
            putters_done.fetch_add(1);
        });
    }
    std::vector<std::int64_t> taken;
    std::int64_t commits_checked_ok = 0;
    std::int64_t commits = 0;
    std::thread taker([&] {
        while (true) {
            const bool last_round = putters_done.load() == 2;
            const auto msgs = pq.take_messages(7);
            if (msgs.empty()) {
                if (last_round) {
                    break;
                }
                std::this_thread::yield();
                continue;
            }
            for (const auto& m : msgs) {
                taken.push_back(m.queue_offset());
            }
            ++commits;
            if (pq.commit() == msgs.back().queue_offset() + 1) {
                ++commits_checked_ok;
            }
        }
    });
    for (auto& t : threads) {
        t.join();
    }
    taker.join();

    CHECK(commits_checked_ok == commits);
    std::sort(taken.begin(), taken.end());
    CHECK(static_cast<std::int64_t>(taken.size()) == 2 * each);
    CHECK(std::adjacent_find(taken.begin(), taken.end()) == taken.end());
    CHECK(taken.front() == 0);
    CHECK(taken.back() == 2 * each - 1);
    CHECK(pq.msg_count() == 0);
    CHECK(pq.msg_size() == 0);
    CHECK_FALSE(pq.consuming());
}

TEST_CASE("requests stamping shared slices while the expiry sweep runs: each offset ends once, no race",
          "[process_queue][concurrency]") {
    // The concurrent service's shape: one pulled vector shared by the cache and by requests of one message,
    // each on its own thread; begin_consume changes its messages outside the lock while a sweep copies and
    // sends back started heads. Every started message is old enough to expire, so both paths race for it.
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::ProcessQueue pq(clock);
    constexpr std::int64_t count = 400;
    auto shared = std::make_shared<std::vector<rmq::MessageExt>>(make_msgs(0, count));
    REQUIRE(pq.put_messages_shared(shared));
    const std::int64_t long_ago = clock->wall_millis() - 60 * 60 * 1000;

    std::atomic<std::int64_t> next{0};
    std::atomic<int> workers_done{0};
    std::atomic<int> bad_reads{0};
    std::vector<std::int64_t> swept;
    std::vector<std::string> swept_starts;
    std::vector<std::thread> threads;
    for (int w = 0; w < 3; ++w) {
        threads.emplace_back([&] {
            for (std::int64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
                const auto slice =
                    std::span<rmq::MessageExt>(*shared).subspan(static_cast<std::size_t>(i), 1);
                // A request starts a little after it was cached: the sweep meanwhile looks at the unstarted
                // head.
                std::this_thread::sleep_for(std::chrono::microseconds(50));
                pq.begin_consume(slice, long_ago, [](std::span<rmq::MessageExt> msgs) {
                    for (auto& m : msgs) {
                        m.set_property("BEGUN", "1");
                    }
                });
                // The listener reads its message while the sweep may copy it, then the request removes it.
                if (slice[0].property_view("BEGUN") != "1") {
                    bad_reads.fetch_add(1);
                }
                const std::int64_t offset = i;
                pq.remove_messages(std::span<const std::int64_t>(&offset, 1));
            }
            workers_done.fetch_add(1);
        });
    }
    std::thread sweeper([&] {
        while (workers_done.load() < 3) {
            pq.clean_expired_msg(15 * 60 * 1000, [&](const rmq::MessageExt& m) {
                swept_starts.emplace_back(m.property_view(rmq::property::consume_start_timestamp));
                swept.push_back(m.queue_offset());
                return true;
            });
            std::this_thread::yield();
        }
    });
    for (auto& t : threads) {
        t.join();
    }
    sweeper.join();
    CHECK(bad_reads.load() == 0);
    CHECK(pq.msg_count() == 0);
    CHECK(pq.msg_size() == 0);
    for (const auto& start : swept_starts) {
        CHECK(start == std::to_string(long_ago));  // a swept copy carries its complete start stamp
    }
    std::sort(swept.begin(), swept.end());
    CHECK(std::adjacent_find(swept.begin(), swept.end()) == swept.end());
}
