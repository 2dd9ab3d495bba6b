// Consumer::unsubscribe on a running consumer (Java's unsubscribe: the topic leaves the subscription table,
// the next rebalance drops its queues, heartbeats stop announcing it).

#include <algorithm>
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

bool announces(const rmq::InProcessBroker& broker, const std::string& group, const std::string& topic) {
    for (const auto& member : broker.group_members(group)) {
        for (const auto& sub : member.consumer_data.subscription_data_set) {
            if (sub.topic == topic) {
                return true;
            }
        }
    }
    return false;
}

bool owns_queue_of(const PushConsumer& consumer, const std::string& topic) {
    const auto queues = consumer.assigned_queues();
    return std::any_of(
        queues.begin(), queues.end(), [&](const rmq::MessageQueue& mq) { return mq.topic == topic; });
}

std::int64_t offsets_in_memory(const PushConsumer& consumer, const std::string& topic) {
    std::int64_t sum = 0;
    for (const auto& q : consumer.stats().queues) {
        if (q.mq.topic == topic && q.commit_offset > 0) {
            sum += q.commit_offset;
        }
    }
    return sum;
}

}  // namespace

TEST_CASE("unsubscribe on a running consumer stops the topic and keeps the others",
          "[consumer][unsubscribe]") {
    rmq::InProcessBroker broker;
    broker.create_topic("UnsubA", 2);
    broker.create_topic("UnsubB", 2);
    produce(broker, "UnsubA", 2, 10, "a");
    produce(broker, "UnsubB", 2, 10, "b");

    Recorder rec;
    std::map<std::string, int> per_topic;
    auto config = fast_config("cg_unsubscribe");
    config.persist_consumer_offset_interval = 600000;  // only the drop itself may commit UnsubB's offsets
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe("UnsubA", "*");
    consumer.subscribe("UnsubB", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        rec.update([&] {
            for (const auto& m : msgs) {
                ++per_topic[m.topic()];
            }
        });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return per_topic["UnsubA"] == 10 && per_topic["UnsubB"] == 10; }));
    REQUIRE(announces(broker, "cg_unsubscribe", "UnsubB"));
    REQUIRE(eventually([&] { return offsets_in_memory(consumer, "UnsubB") == 10; }));

    consumer.unsubscribe("UnsubB");
    REQUIRE(eventually([&] { return !owns_queue_of(consumer, "UnsubB"); }));
    REQUIRE(eventually([&] { return !announces(broker, "cg_unsubscribe", "UnsubB"); }));
    CHECK(owns_queue_of(consumer, "UnsubA"));

    produce(broker, "UnsubA", 2, 10, "a2-");
    produce(broker, "UnsubB", 2, 10, "b2-");
    REQUIRE(rec.wait([&] { return per_topic["UnsubA"] == 20; }));
    REQUIRE(pull_loops_ran(consumer, "UnsubA", 2));
    CHECK(rec.read([&] { return per_topic["UnsubB"]; }) == 10);
    // The dropped queues' offsets were committed when they were let go (an rmq deviation: Java drops them
    // unpersisted), so a later subscriber of the group resumes after them.
    std::int64_t committed_b = 0;
    for (int q = 0; q < 2; ++q) {
        committed_b += broker.consumer_offset("cg_unsubscribe", broker.queue("UnsubB", q)).value_or(0);
    }
    CHECK(committed_b == 10);
    consumer.shutdown();
}
