// Scheduled delivery (Java's ScheduledMessageProducer and 5.x TimerMessageProducer samples) on the embedded
// broker, on a manual clock so that the program does not wait: a delay-level message (level 3 = 10 s) and
// three 5.x timer messages (deliver at a time, after 20 s, after 20 000 ms) stay invisible until the clock
// reaches their time.

#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

int main() {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.clock = clock}};
    broker.create_topic("TestTopic", 1);
    rmq::Producer<rmq::InProcessTransport> producer(
        broker.connect(), rmq::ProducerConfig{.producer_group = "ExampleProducerGroup"});
    producer.start();
    const auto visible = [&] {
        return broker.max_offset(broker.queue("TestTopic", 0));
    };

    rmq::Message level("TestTopic", "delay level 3");
    level.set_delay_time_level(3);
    producer.send(level);

    rmq::Message at("TestTopic", "deliver at a time");
    at.set_deliver_time_ms(clock->wall_millis() + 20000);
    rmq::Message sec("TestTopic", "after 20 s");
    sec.set_delay_time_sec(20);
    rmq::Message ms("TestTopic", "after 20000 ms");
    ms.set_delay_time_ms(20000);
    for (const auto* m : {&at, &sec, &ms}) {
        producer.send(*m);
    }

    const std::int64_t at_start = visible();
    clock->advance(rmq::Millis(10000));
    const std::int64_t at_10s = visible();
    clock->advance(rmq::Millis(10000));
    const std::int64_t at_20s = visible();
    producer.shutdown();
    fmt::print("visible: {} at 0 s, {} at 10 s, {} at 20 s\n", at_start, at_10s, at_20s);
    return at_start == 0 && at_10s == 1 && at_20s == 4 ? 0 : 1;
}
