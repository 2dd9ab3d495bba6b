// Where a group with no committed offset starts: ConsumeFromWhere::LastOffset and ::Timestamp end to end on
// the embedded broker (FirstOffset is what every other consumer test uses).
//
// The embedded broker answers QUERY_CONSUMER_OFFSET for an unknown group with 0 while the queue's first
// message is still stored (5.x's checkInMemByConsumeOffset rule), so these tests delete the queue's head
// first to reach the client's computePullFromWhere.

#include <memory>
#include <set>
#include <string>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::pull_loops_ran;
using consumer_test::PushConsumer;
using consumer_test::Recorder;

namespace {

struct Bodies {
    Recorder rec;
    std::set<std::string> seen;

    void listen(PushConsumer& consumer) {
        consumer.register_listener(
            [this](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                rec.update([&] {
                    for (const auto& m : msgs) {
                        seen.insert(m.body());
                    }
                });
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
    }

    std::set<std::string> snapshot() {
        return rec.read([&] { return seen; });
    }
};

std::set<std::string> names(const std::string& prefix, int from, int to) {
    std::set<std::string> out;
    for (int i = from; i < to; ++i) {
        out.insert(prefix + std::to_string(i));
    }
    return out;
}

}  // namespace

TEST_CASE("ConsumeFromWhere::LastOffset: a new group skips the backlog and gets what is sent after it starts",
          "[consumer][consume_from]") {
    rmq::InProcessBroker broker;
    broker.create_topic("FromLast", 1);
    produce(broker, "FromLast", 1, 20, "old");
    broker.delete_messages_before(broker.queue("FromLast", 0), 5);

    auto config = fast_config("cg_from_last");
    config.consume_from_where = rmq::ConsumeFromWhere::LastOffset;
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe("FromLast", "*");
    Bodies bodies;
    bodies.listen(consumer);
    consumer.start();
    REQUIRE(consumer_test::eventually([&] { return !consumer.assigned_queues().empty(); }));
    REQUIRE(pull_loops_ran(consumer, "FromLast", 2));  // started at the end before the new messages exist

    produce(broker, "FromLast", 1, 5, "new");
    REQUIRE(bodies.rec.wait([&] { return bodies.seen.size() >= 5; }));
    REQUIRE(pull_loops_ran(consumer, "FromLast", 2));
    CHECK(bodies.snapshot() == names("new", 0, 5));
    consumer.shutdown();
    CHECK(broker.consumer_offset("cg_from_last", broker.queue("FromLast", 0)) == 25);
}

TEST_CASE("ConsumeFromWhere::LastOffset: with the queue's first message still stored a new group starts at 0",
          "[consumer][consume_from]") {
    rmq::InProcessBroker broker;
    broker.create_topic("FromLastHead", 1);
    produce(broker, "FromLastHead", 1, 10, "old");

    auto config = fast_config("cg_from_last_head");
    config.consume_from_where = rmq::ConsumeFromWhere::LastOffset;
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe("FromLastHead", "*");
    Bodies bodies;
    bodies.listen(consumer);
    consumer.start();
    REQUIRE(bodies.rec.wait([&] { return bodies.seen.size() >= 10; }));
    CHECK(bodies.snapshot() == names("old", 0, 10));
    consumer.shutdown();
}

TEST_CASE("ConsumeFromWhere::Timestamp: a new group starts at the first message stored at or after the time",
          "[consumer][consume_from]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::BrokerConfig broker_config;
    broker_config.clock = clock;
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("FromTime", 1);
    produce(broker, "FromTime", 1, 10, "early");
    const std::int64_t early = clock->wall_millis();
    clock->advance(std::chrono::hours(1));
    produce(broker, "FromTime", 1, 10, "late");
    broker.delete_messages_before(broker.queue("FromTime", 0), 1);

    auto config = fast_config("cg_from_time");
    config.consume_from_where = rmq::ConsumeFromWhere::Timestamp;
    config.consume_timestamp = rmq::detail::format_yyyymmddhhmmss(early + 30 * 60 * 1000);
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe("FromTime", "*");
    Bodies bodies;
    bodies.listen(consumer);
    consumer.start();
    REQUIRE(bodies.rec.wait([&] { return bodies.seen.size() >= 10; }));
    // No pull_loops_ran here: its stamps come from the manual clock. The committed offset shows nothing else
    // was delivered: every consumed message is committed, and the early ones sit below offset 10.
    REQUIRE(consumer_test::eventually(
        [&] { return broker.consumer_offset("cg_from_time", broker.queue("FromTime", 0)) == 20; }));
    CHECK(bodies.snapshot() == names("late", 0, 10));
    consumer.shutdown();
}
