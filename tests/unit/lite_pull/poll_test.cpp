// poll() with subscribe (rebalance through the allocation policy) and assign.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lite_pull_support.hpp"

#include <catch2/catch.hpp>

using lite_pull_test::eventually;
using lite_pull_test::fast_config;
using lite_pull_test::LitePull;
using lite_pull_test::offsets_by_queue;
using lite_pull_test::poll_count;
using lite_pull_test::produce;

TEST_CASE("lite pull: poll returns every message once, in offset order per queue, in batches of at most "
          "pull_batch_size",
          "[lite_pull][poll]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpOrder", 4);
    produce(broker, "LpOrder", 4, 200);
    auto config = fast_config("cg_lp_order");
    config.pull_batch_size = 7;
    LitePull consumer{broker.connect(), config};
    consumer.subscribe("LpOrder");
    consumer.start();
    std::vector<rmq::MessageExt> all;
    std::size_t largest = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (all.size() < 200 && std::chrono::steady_clock::now() < deadline) {
        auto batch = consumer.poll(std::chrono::milliseconds(200));
        largest = std::max(largest, batch.size());
        if (!batch.empty()) {
            CHECK(std::all_of(batch.begin(), batch.end(), [&](const rmq::MessageExt& m) {
                return m.queue_id() == batch.front().queue_id();
            }));
        }
        all.insert(all.end(), batch.begin(), batch.end());
    }
    REQUIRE(all.size() == 200);
    CHECK(largest <= 7);
    for (const auto& [qid, offsets] : offsets_by_queue(all)) {
        std::vector<std::int64_t> expected(50);
        for (std::size_t i = 0; i < expected.size(); ++i) {
            expected[i] = static_cast<std::int64_t>(i);
        }
        CHECK(offsets == expected);
    }
    CHECK(consumer.poll(std::chrono::milliseconds(300)).empty());
    // Nothing retried: no retry topic for a lite pull consumer, neither pulled nor announced; and the
    // broker sees a pull consumer (Java's CONSUME_ACTIVELY).
    for (const auto& mq : consumer.assignment()) {
        CHECK(mq.topic == "LpOrder");
    }
    const auto members = broker.group_members("cg_lp_order");
    REQUIRE(members.size() == 1);
    CHECK(members.front().consumer_data.consume_type == rmq::ConsumeType::ConsumeActively);
    for (const auto& sub : members.front().consumer_data.subscription_data_set) {
        CHECK(sub.topic == "LpOrder");
    }
}

TEST_CASE("lite pull: two members share the queues with no loss and no queue polled by both",
          "[lite_pull][rebalance]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpShare", 4);
    std::vector<std::pair<std::string, std::string>> owners;  // (queue, member)
    std::mutex mutex;
    std::vector<std::string> moves;
    auto listener = [&](const std::string& who) {
        return [&, who](const rmq::MessageQueue& mq, bool owned) {
            const std::lock_guard lock(mutex);
            moves.push_back(fmt::format("{} {} {}", who, owned ? "+" : "-", mq.queue_id));
        };
    };
    LitePull a{broker.connect(), fast_config("cg_lp_share")};
    LitePull b{broker.connect(), fast_config("cg_lp_share")};
    a.subscribe("LpShare");
    b.subscribe("LpShare");
    a.set_queue_listener(listener("a"));
    b.set_queue_listener(listener("b"));
    a.start();
    b.start();
    REQUIRE(eventually([&] { return a.assignment().size() == 2 && b.assignment().size() == 2; }));
    auto qa = a.assignment();
    auto qb = b.assignment();
    std::set<rmq::MessageQueue> both(qa.begin(), qa.end());
    both.insert(qb.begin(), qb.end());
    CHECK(both.size() == 4);

    produce(broker, "LpShare", 4, 400);
    std::vector<rmq::MessageExt> got_a;
    std::vector<rmq::MessageExt> got_b;
    std::atomic<bool> done{false};
    std::atomic<std::size_t> count_b{0};
    std::thread tb([&] {
        while (!done.load()) {
            for (auto& m : b.poll(std::chrono::milliseconds(50))) {
                got_b.push_back(std::move(m));
                ++count_b;
            }
        }
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
        for (auto& m : a.poll(std::chrono::milliseconds(50))) {
            got_a.push_back(std::move(m));
        }
        if (got_a.size() >= 200) {
            break;
        }
    }
    const bool all_came = eventually([&] { return got_a.size() + count_b.load() >= 400; });
    done.store(true);
    tb.join();
    REQUIRE(all_came);
    CHECK(got_a.size() + got_b.size() == 400);
    std::set<int> queues_a;
    std::set<int> queues_b;
    std::set<std::string> bodies;
    for (const auto& m : got_a) {
        queues_a.insert(m.queue_id());
        bodies.insert(std::string(m.body()));
    }
    for (const auto& m : got_b) {
        queues_b.insert(m.queue_id());
        bodies.insert(std::string(m.body()));
    }
    CHECK(bodies.size() == 400);
    std::vector<int> common;
    std::set_intersection(
        queues_a.begin(), queues_a.end(), queues_b.begin(), queues_b.end(), std::back_inserter(common));
    CHECK(common.empty());
    {
        const std::lock_guard lock(mutex);
        CHECK(std::count_if(moves.begin(), moves.end(), [](const std::string& m) { return m[2] == '+'; }) >=
              4);
    }

    // b leaves: a takes every queue, and polls what is sent after from all four.
    b.shutdown();
    REQUIRE(eventually([&] { return a.assignment().size() == 4; }));
    produce(broker, "LpShare", 4, 40, "late");
    const auto late = poll_count(a, 40);
    CHECK(late.size() == 40);
    CHECK(offsets_by_queue(late).size() == 4);
}

TEST_CASE("lite pull: assign takes exactly the given queues, whatever the group", "[lite_pull][assign]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpAssign", 4);
    produce(broker, "LpAssign", 4, 40);
    LitePull a{broker.connect(), fast_config("cg_lp_assign")};
    LitePull b{broker.connect(), fast_config("cg_lp_assign")};
    a.assign({broker.queue("LpAssign", 0), broker.queue("LpAssign", 1)});
    b.assign({broker.queue("LpAssign", 1),
              broker.queue("LpAssign", 2)});  // queue 1 twice: assign ignores the group
    a.start();
    b.start();
    const auto got_a = poll_count(a, 20);
    const auto got_b = poll_count(b, 20);
    CHECK(got_a.size() == 20);
    CHECK(got_b.size() == 20);
    const auto by_a = offsets_by_queue(got_a);
    const auto by_b = offsets_by_queue(got_b);
    CHECK(by_a.size() == 2);
    CHECK(by_a.contains(0));
    CHECK(by_a.contains(1));
    CHECK(by_b.contains(1));
    CHECK(by_b.contains(2));
    CHECK(a.fetch_message_queues("LpAssign").size() == 4);

    // A new assignment replaces the old one.
    a.assign({broker.queue("LpAssign", 3)});
    REQUIRE(eventually([&] {
        const auto q = a.assignment();
        return q.size() == 1 && q.front().queue_id == 3;
    }));
    const auto got_3 = poll_count(a, 10);
    CHECK(offsets_by_queue(got_3).size() == 1);
    CHECK(offsets_by_queue(got_3).contains(3));
}
