// pause / resume and flow control: what stops a queue from being pulled.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "lite_pull_support.hpp"

#include <catch2/catch.hpp>

using lite_pull_test::eventually;
using lite_pull_test::fast_config;
using lite_pull_test::LitePull;
using lite_pull_test::offsets_by_queue;
using lite_pull_test::poll_count;
using lite_pull_test::poll_for;
using lite_pull_test::produce;

namespace {

std::int64_t cached(const LitePull& consumer, const rmq::MessageQueue& mq) {
    for (const auto& q : consumer.stats().queues) {
        if (q.mq == mq) {
            return q.cached_msg_count;
        }
    }
    return -1;
}

}  // namespace

TEST_CASE("lite pull: a paused queue is not pulled until resumed", "[lite_pull][pause]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpPause", 2);
    LitePull consumer{broker.connect(), fast_config("cg_lp_pause")};
    const auto q0 = broker.queue("LpPause", 0);
    const auto q1 = broker.queue("LpPause", 1);
    consumer.assign({q0, q1});
    consumer.pause({q0});  // before start: no pull of q0 is under way
    CHECK(consumer.is_paused(q0));
    consumer.start();
    REQUIRE(eventually([&] { return consumer.assignment().size() == 2; }));
    produce(broker, "LpPause", 2, 20);
    const auto while_paused = poll_count(consumer, 10);
    CHECK(offsets_by_queue(while_paused).size() == 1);
    CHECK(offsets_by_queue(while_paused).contains(1));
    CHECK(poll_for(consumer, std::chrono::milliseconds(500)).empty());
    CHECK(cached(consumer, q0) == 0);

    consumer.resume({q0});
    CHECK(!consumer.is_paused(q0));
    const auto resumed = poll_count(consumer, 10);
    CHECK(resumed.size() == 10);
    CHECK(offsets_by_queue(resumed).contains(0));
}

TEST_CASE("lite pull: a queue over pull_threshold_for_queue is not pulled until polled",
          "[lite_pull][flow]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpFlow", 1);
    produce(broker, "LpFlow", 1, 100);
    auto config = fast_config("cg_lp_flow");
    config.pull_threshold_for_queue = 6;
    config.pull_batch_size = 4;
    LitePull consumer{broker.connect(), config};
    const auto mq = broker.queue("LpFlow", 0);
    consumer.assign({mq});
    consumer.start();
    // Pulls go on while 6 or fewer wait: 4, 8, then stop.
    REQUIRE(eventually([&] { return cached(consumer, mq) == 8; }));
    // Still 8 after three more rounds of the queue's pull loop.
    REQUIRE(consumer_fixture::pull_loops_ran(consumer, "LpFlow", 3, std::chrono::seconds(60)));
    CHECK(cached(consumer, mq) == 8);
    const auto got = poll_count(consumer, 100);
    CHECK(got.size() == 100);
}

TEST_CASE("lite pull: pulls of every queue pause while more than pull_threshold_for_all wait",
          "[lite_pull][flow]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpFlowAll", 4);
    produce(broker, "LpFlowAll", 4, 400);
    auto config = fast_config("cg_lp_flow_all");
    config.pull_threshold_for_all = 10;
    config.pull_batch_size = 5;
    LitePull consumer{broker.connect(), config};
    consumer.subscribe("LpFlowAll");
    consumer.start();
    const auto total = [&] {
        std::int64_t n = 0;
        for (const auto& q : consumer.stats().queues) {
            n += q.cached_msg_count;
        }
        return n;
    };
    REQUIRE(eventually([&] { return total() >= 15; }));
    REQUIRE(consumer_fixture::pull_loops_ran(consumer, "LpFlowAll", 3, std::chrono::seconds(60)));
    // 3 batches (15 > 10) stop every queue; pulls already under way may add one batch each.
    CHECK(total() <= 15 + 4 * 5);
    CHECK(poll_count(consumer, 400).size() == 400);
}
