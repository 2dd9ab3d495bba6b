// rmq::forward_to_dead_letter_queue and rmq::dead_letter_if_exhausted on the embedded broker with a
// ManualClock: a message redelivered max_reconsume_times times goes to %DLQ%<group> from the client, is acked
// (no further redelivery), and the broker's own retry limit (set high here) plays no part.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/pop_dead_letter.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/in_process.hpp>

namespace pop_dead_letter_test {

namespace {

using namespace std::chrono_literals;
using Consumer = rmq::SimpleConsumer<rmq::InProcessTransport>;

struct Fixture {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{[this] {
        rmq::BrokerConfig c;
        c.clock = clock;
        c.retry_max_times = 100;  // the broker would redeliver far longer than the client allows
        return c;
    }()};
    Consumer consumer{broker.connect(), rmq::SimpleConsumerConfig{.consumer_group = "g"}};

    Fixture() {
        broker.create_topic("T", 2);
        auto producer = broker.connect();
        producer.send(rmq::Message("T", "A", "poison"), broker.queue("T", 0));
        producer.send(rmq::Message("T", "A", "fine"), broker.queue("T", 1));
        consumer.subscribe("T");
    }
};

}  // namespace

TEST_CASE("dead_letter_if_exhausted moves a message to the DLQ after max_reconsume_times redeliveries",
          "[pop]") {
    Fixture f;
    std::vector<int> seen;  // reconsume times of each delivery of "poison"
    int dead = 0;
    for (int round = 0; round < 6; ++round) {
        for (const auto& m : f.consumer.receive(32, 1s)) {
            if (m.body() == "fine") {
                CHECK_FALSE(rmq::dead_letter_if_exhausted(f.consumer, m, 2));
                f.consumer.ack(m);
                continue;
            }
            seen.push_back(m.reconsume_times());
            if (rmq::dead_letter_if_exhausted(f.consumer, m, 2)) {
                ++dead;
            }  // else: the handler fails, no ack; it comes back after 1 s
        }
        f.clock->advance(1s);
    }
    // Delivered with reconsume times 0, 1, 2; at 2 it went to the DLQ and was acked: never seen again.
    CHECK(seen == std::vector<int>{0, 1, 2});
    CHECK(dead == 1);
    const auto dlq = f.broker.messages(rmq::dlq_topic("g"), 0);
    REQUIRE(dlq.size() == 1);
    CHECK(dlq[0].body() == "poison");
    CHECK(f.broker.pop_in_flight("g") == 0);
}

TEST_CASE("forward_to_dead_letter_queue refuses a message without receipt and bad limits", "[pop]") {
    Fixture f;
    const rmq::MessageExt plain;
    CHECK_THROWS_AS(rmq::forward_to_dead_letter_queue(f.consumer, plain), rmq::InvalidArgument);
    CHECK(f.broker.messages(rmq::dlq_topic("g"), 0).empty());
    const auto got = f.consumer.receive(32, 1s);
    REQUIRE_FALSE(got.empty());
    CHECK_THROWS_AS(rmq::dead_letter_if_exhausted(f.consumer, got[0], -1), rmq::InvalidArgument);
    // At once, whatever its reconsume times: a first delivery too.
    rmq::forward_to_dead_letter_queue(f.consumer, got[0]);
    CHECK(f.broker.messages(rmq::dlq_topic("g"), 0).size() == 1);
}

}  // namespace pop_dead_letter_test
