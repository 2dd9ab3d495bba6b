// POP consumption (RocketMQ 5.x) with rmq::SimpleConsumer on the embedded broker: the application asks for
// messages when it wants them, acks each one it handled, and a message it does not ack comes back after its
// invisible duration (reconsume times + 1). The broker runs on a ManualClock, so "30 seconds later" takes no
// time. With a real 5.x cluster only the transport changes: rmq::SimpleConsumer<rmq::RemotingTransport>.

#include <chrono>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <rmq/producer.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/in_process.hpp>

int main() {
    using namespace std::chrono_literals;
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::BrokerConfig broker_config;
    broker_config.clock = clock;
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("Orders", 2);

    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "order_producer"});
    producer.start();
    for (int i = 0; i < 5; ++i) {
        (void)producer.send(rmq::Message("Orders", "New", fmt::format("order-{}", i)));
    }
    producer.shutdown();

    rmq::SimpleConsumer<rmq::InProcessTransport> consumer(
        broker.connect(), rmq::SimpleConsumerConfig{.consumer_group = "order_handlers"});
    consumer.subscribe("Orders", rmq::MessageSelector::by_tag("New"));

    // First round: every order but order-3 is handled and acked; order-3's handler "crashes".
    int received = 0;
    for (auto batch = consumer.receive(16, 30s); !batch.empty(); batch = consumer.receive(16, 30s)) {
        for (auto& msg : batch) {
            ++received;
            fmt::print("received {} (reconsume times {})\n", msg.body(), msg.reconsume_times());
            if (msg.body() != "order-3") {
                consumer.ack(msg);
            }
        }
    }

    // 30 seconds later order-3 is visible again; this time the handler needs longer, so it extends the
    // invisible duration before acking (the new receipt is stored in the message).
    clock->advance(30s);
    int redelivered = 0;
    for (auto& msg : consumer.receive(16, 30s)) {
        ++redelivered;
        fmt::print("redelivered {} (reconsume times {})\n", msg.body(), msg.reconsume_times());
        consumer.change_invisible_duration(msg, 60s);
        consumer.ack(msg);
    }
    clock->advance(120s);
    const bool quiet = consumer.receive(16, 30s).empty();
    fmt::print("simple consumer: {} messages received, {} redelivered after its invisible duration, {}\n",
               received,
               redelivered,
               quiet && broker.pop_in_flight("order_handlers") == 0 ? "all acked" : "NOT all acked");
    return received == 5 && redelivered == 1 && quiet ? 0 : 1;
}
