// A queue a member lets go and takes back soon (a broker restart: members drop its queues while it is down
// and take them again when it returns) continues from where this member had consumed it when the broker's
// committed offset is older (the commits failed while the broker was down), instead of consuming it again
// from there: an rmq deviation. An offset reset in between wins (admin_test.cpp checks resets).

#include <future>
#include <map>
#include <string>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::pull_loops_ran;
using consumer_test::PushConsumer;
using consumer_test::Recorder;

namespace {

/// Counts each body consumed; waits for `go` first (so the test decides when consumption happens).
auto counting_listener(Recorder& rec, std::map<std::string, int>& times, std::shared_future<void> go) {
    return [&rec, &times, go](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        go.wait();
        rec.update([&] {
            for (const auto& m : msgs) {
                ++times[m.body()];
            }
        });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    };
}

/// How many queues of "Retake" the consumer holds (its retry topic's queue aside).
std::size_t held(const PushConsumer& consumer) {
    std::size_t n = 0;
    for (const auto& mq : consumer.assigned_queues()) {
        n += mq.topic == "Retake" ? 1 : 0;
    }
    return n;
}

std::int64_t pulled(const PushConsumer& consumer) {
    for (const auto& t : consumer.stats().topics) {
        if (t.topic == "Retake") {
            return t.pulled_msgs_total;
        }
    }
    return 0;
}

}  // namespace

TEST_CASE(
    "a queue taken back soon continues from where this member consumed it when the broker's offset is older",
    "[consumer][group][retake]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Retake", 4);
    produce(broker, "Retake", 4, 40);
    auto config = fast_config("cg_retake");
    config.persist_consumer_offset_interval = 600000;  // no periodic commits: only pulls and drops commit

    Recorder rec;
    std::map<std::string, int> by_a;
    std::promise<void> release_a;
    PushConsumer a{broker.connect(), config};
    a.subscribe("Retake", "*");
    a.register_listener(counting_listener(rec, by_a, release_a.get_future().share()));
    a.start();
    REQUIRE(eventually([&] { return pulled(a) == 40; }));

    // The broker goes away: pulls and offset commits fail, so it never learns what a consumes now.
    broker.inject_failure(rmq::BrokerRequest::Pull, rmq::response_code::system_busy, 1000000);
    broker.inject_failure(
        rmq::BrokerRequest::UpdateConsumerOffset, rmq::response_code::system_error, 1000000);
    release_a.set_value();
    REQUIRE(rec.wait([&] { return by_a.size() == 40; }));

    // Meanwhile a member comes and goes: a drops two queues and takes them back.
    {
        std::map<std::string, int> by_b;
        std::promise<void> release_b;
        release_b.set_value();
        PushConsumer b{broker.connect(), config};
        b.subscribe("Retake", "*");
        b.register_listener(counting_listener(rec, by_b, release_b.get_future().share()));
        b.start();
        REQUIRE(eventually([&] { return held(a) == 2 && held(b) == 2; }));
        b.shutdown();
    }
    REQUIRE(eventually([&] { return held(a) == 4; }));
    for (int q = 0; q < 4; ++q) {
        REQUIRE_FALSE(broker.consumer_offset("cg_retake", broker.queue("Retake", q)).value_or(0) > 0);
    }

    // The broker is back.
    broker.inject_failure(rmq::BrokerRequest::Pull, 0, 0);
    broker.inject_failure(rmq::BrokerRequest::UpdateConsumerOffset, 0, 0);
    produce(broker, "Retake", 4, 4, "n");
    REQUIRE(rec.wait([&] { return by_a.size() == 44; }));
    REQUIRE(pull_loops_ran(a, "Retake", 2));
    rec.read([&] {
        for (const auto& [body, times] : by_a) {
            INFO(body);
            CHECK(times == 1);  // a consumed nothing twice
        }
        return 0;
    });
    a.shutdown();
}
