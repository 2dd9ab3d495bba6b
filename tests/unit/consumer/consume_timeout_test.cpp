// The consume-timeout sweep end to end: a listener call running longer than consume_timeout has its messages
// sent back (delay level 3, like Java's cleanExpireMsg) and removed from the process queue, so the queue's
// offset moves on while the call is still running; the message comes back from the retry topic.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::PushConsumer;
using consumer_test::Recorder;

namespace {

struct Delivery {
    std::string body;
    int reconsume_times = 0;
};

}  // namespace

TEST_CASE("consume timeout: a stuck listener's message is sent back and the queue moves on",
          "[consumer][consume_timeout]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::BrokerConfig broker_config = consumer_test::fast_broker_config();
    broker_config.clock = clock;
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("Stuck", 1);
    produce(broker, "Stuck", 1, 1, "stuck");
    const auto mq = broker.queue("Stuck", 0);

    auto config = fast_config("cg_consume_timeout");
    config.consume_timeout = 1;  // minutes
    config.await_termination_millis_when_shutdown = 0;
    // Declared before the consumer to outlive it: its destructor waits for the listener that reads them.
    Recorder rec;
    std::vector<Delivery> deliveries;
    bool released = false;
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe("Stuck", "*");

    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        bool first = false;
        rec.update([&] {
            for (const auto& m : msgs) {
                deliveries.push_back({m.body(), m.reconsume_times()});
            }
            first = deliveries.size() == 1;
        });
        if (first) {  // the first call hangs until the test lets it go
            rec.wait([&] { return released; });
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return deliveries.size() == 1; }));
    CHECK(broker.consumer_offset("cg_consume_timeout", mq).value_or(0) == 0);

    // Just past consume_timeout (the sweep runs every second). The two advances stay under the broker's
    // channel_expired_timeout (120 s): past it, a member whose heartbeat did not land in between expires, and
    // the rebalance that follows may redeliver the first message too (at-least-once), which the exact counts
    // below do not expect.
    clock->advance(std::chrono::seconds(61));
    // Sent back with delay level 3: it waits in the broker's schedule for the clock to move.
    REQUIRE(eventually([&] { return broker.scheduled_count() == 1; }));
    clock->advance(std::chrono::seconds(5));  // the retry's delay (1 s on this broker) passes
    REQUIRE(rec.wait([&] { return deliveries.size() == 2; }));
    const auto second = rec.read([&] { return deliveries[1]; });
    CHECK(second.body == "stuck0");
    CHECK(second.reconsume_times == 1);

    // The swept message left the process queue, so the queue's offset moves past it with the next message
    // consumed (Java's cleanExpireMsg: the offset follows the next completion), though its first call still
    // runs.
    produce(broker, "Stuck", 1, 1, "next");
    REQUIRE(rec.wait([&] { return deliveries.size() == 3; }));
    REQUIRE(eventually([&] { return broker.consumer_offset("cg_consume_timeout", mq).value_or(0) == 2; }));

    rec.update([&] { released = true; });
    consumer.shutdown();
    CHECK(rec.read([&] { return deliveries.size(); }) == 3);
}
