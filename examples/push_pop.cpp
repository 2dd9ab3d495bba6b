// The push consumer in POP mode (RocketMQ 5.x) on the embedded broker: ConsumerConfig::message_request_mode
// Pop (an rmq extension; a Java consumer gets POP mode from its broker's assignment) makes rmq::Consumer pop
// its subscriptions instead of pulling rebalanced queues. The listener is the usual concurrent one; a
// success acks the message at the broker, RECONSUME_LATER makes it invisible for Java's POP delay (10 s the
// first time) after which the broker redelivers it with reconsume times + 1. The broker runs on a
// ManualClock, so "10 seconds later" takes no time. See docs/pop.md.

#include <atomic>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <thread>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

/// Polls `done` for up to 30 s (the consumer works on its own threads).
template <class F>
bool wait_for(F done) {
    for (int i = 0; i < 3000 && !done(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
}

}  // namespace

int main() {
    using namespace std::chrono_literals;
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::BrokerConfig broker_config;
    broker_config.clock = clock;
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("Orders", 2);

    rmq::ConsumerConfig config{.consumer_group = "order_handlers"};
    config.message_request_mode = rmq::MessageRequestMode::Pop;
    config.pop_invisible_time = 30000;
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>
        consumer(broker.connect(), config);
    consumer.subscribe("Orders", "New");
    std::atomic<int> consumed{0};
    std::atomic<int> redelivered{0};
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        for (const auto& msg : msgs) {
            fmt::print("consumed {} (reconsume times {})\n", msg.body(), msg.reconsume_times());
            if (msg.body() == "order-3" && msg.reconsume_times() == 0) {
                return rmq::ConsumeConcurrentlyStatus::ReconsumeLater;  // its handler is not ready yet
            }
            redelivered += msg.reconsume_times() > 0 ? 1 : 0;
            ++consumed;
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();

    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "order_producer"});
    producer.start();
    for (int i = 0; i < 5; ++i) {
        (void)producer.send(rmq::Message("Orders", "New", fmt::format("order-{}", i)));
    }
    producer.shutdown();

    // Four acked, order-3 invisible for 10 s.
    const bool first = wait_for([&] { return consumed == 4 && broker.pop_in_flight("order_handlers") == 1; });
    clock->advance(10s);
    const bool second =
        wait_for([&] { return consumed == 5 && broker.pop_in_flight("order_handlers") == 0; });
    consumer.shutdown();
    fmt::print("push consumer in POP mode: {} messages consumed, {} redelivered after RECONSUME_LATER, {}\n",
               consumed.load(),
               redelivered.load(),
               first && second ? "all acked" : "NOT all acked");
    return first && second ? 0 : 1;
}
