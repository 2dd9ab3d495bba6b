// Scheduled delivery through rmq::Producer on the embedded broker: delay levels and 5.x timers.

#include <memory>
#include <string>

#include "producer_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace scheduled_test {

namespace {

struct Env {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.clock = clock}};
    rmq::Producer<rmq::InProcessTransport> producer{broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "PG"}};

    Env() {
        broker.create_topic("T", 1);
        producer.start();
    }

    std::int64_t visible() const { return broker.max_offset(broker.queue("T", 0)); }
};

}  // namespace

TEST_CASE("producer scheduled: a delay level delivers after the level's time") {
    Env e;
    rmq::Message m("T", "later");
    m.set_delay_time_level(2);  // 5 s
    CHECK(e.producer.send(m).status == rmq::SendStatus::SendOk);
    CHECK(e.visible() == 0);
    e.clock->advance(rmq::Millis(4999));
    CHECK(e.visible() == 0);
    e.clock->advance(rmq::Millis(1));
    CHECK(e.visible() == 1);
}

TEST_CASE("producer scheduled: timer messages sync, async and oneway are delivered on the broker's clock") {
    Env e;
    rmq::Message at("T", "at");
    at.set_deliver_time_ms(e.clock->wall_millis() + 3000);
    rmq::Message sec("T", "sec");
    sec.set_delay_time_sec(3);
    rmq::Message ms("T", "ms");
    ms.set_delay_time_ms(3000);
    e.producer.send(at);
    CHECK(e.producer.send_async(sec).get().status == rmq::SendStatus::SendOk);
    e.producer.send_oneway(ms);
    e.producer.shutdown();  // the oneway send is done
    CHECK(e.visible() == 0);
    CHECK(e.broker.scheduled_count() == 3);
    e.clock->advance(rmq::Millis(2999));
    CHECK(e.visible() == 0);
    e.clock->advance(rmq::Millis(1));
    CHECK(e.visible() == 3);
}

TEST_CASE("producer scheduled: a timer beyond the broker's limit is TimerRejected and not retried") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    auto shared = std::make_shared<producer_test::TwoBrokers::Shared>();
    rmq::Producer<producer_test::TwoBrokers> p(producer_test::TwoBrokers(broker.connect(), shared),
                                               rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    rmq::Message m("T", "x");
    m.set_delay_time_sec(4 * 24 * 3600);
    CHECK_THROWS_AS(p.send(m), rmq::TimerRejected);
    CHECK(shared->attempts.size() == 1);
    auto f = p.send_async(m);
    CHECK_THROWS_AS(f.get(), rmq::TimerRejected);
}

}  // namespace scheduled_test
