// Orderly POP (a FIFO simple consumer, RocketMQ 5.x) on the embedded broker: with SimpleConsumerConfig::fifo
// every receive is an orderly pop. A queue's messages come in order and no later ones of that queue while a
// batch of it is in flight; a message not acked comes back after its invisible duration together with the
// rest of its batch, still in order, with its consumed count as reconsume times. The broker runs on a
// ManualClock, so "30 seconds later" takes no time. With a real 5.x cluster only the transport changes.

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

    // Customer a's orders in queue 0, customer b's in queue 1: each queue is one customer's sequence.
    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "order_producer"});
    producer.start();
    for (int i = 0; i < 3; ++i) {
        (void)producer.send(rmq::Message("Orders", "New", fmt::format("a-{}", i)), broker.queue("Orders", 0));
        (void)producer.send(rmq::Message("Orders", "New", fmt::format("b-{}", i)), broker.queue("Orders", 1));
    }
    producer.shutdown();

    rmq::SimpleConsumer<rmq::InProcessTransport> consumer(
        broker.connect(), rmq::SimpleConsumerConfig{.consumer_group = "order_handlers", .fifo = true});
    consumer.subscribe("Orders");

    // The handler of a-1 fails the first time: a-1 and what follows it in its batch stay unacked (handling
    // a-2 first would break the customer's order), so queue 0 is blocked until they come back.
    std::map<int, std::vector<std::string>> handled;  // per queue, in handling order
    bool failed_once = false;
    const auto drain = [&] {
        for (auto batch = consumer.receive(16, 30s); !batch.empty(); batch = consumer.receive(16, 30s)) {
            std::map<int, bool> stopped;  // a queue whose handling failed in this batch
            for (auto& msg : batch) {
                if (stopped[msg.queue_id()]) {
                    continue;
                }
                if (msg.body() == "a-1" && !failed_once) {
                    failed_once = true;
                    stopped[msg.queue_id()] = true;
                    fmt::print("{} failed, its queue waits\n", msg.body());
                    continue;
                }
                fmt::print("handled {} (reconsume times {})\n", msg.body(), msg.reconsume_times());
                handled[msg.queue_id()].emplace_back(msg.body());
                consumer.ack(msg);
            }
        }
    };
    drain();
    clock->advance(30s);  // a-1's batch is visible again
    drain();

    const bool in_order = handled[0] == std::vector<std::string>{"a-0", "a-1", "a-2"} &&
                          handled[1] == std::vector<std::string>{"b-0", "b-1", "b-2"};
    fmt::print("fifo simple consumer: queue 0 {}, queue 1 {}, {}\n",
               fmt::join(handled[0], " "),
               fmt::join(handled[1], " "),
               in_order ? "each queue in order" : "NOT in order");
    return in_order ? 0 : 1;
}
