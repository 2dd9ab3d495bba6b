// Asynchronous and oneway sends (Java's AsyncProducer / OnewayProducer samples) on the embedded broker: 100
// messages sent with a callback, 10 with a std::future, 10 oneway. Callbacks run on the producer's own
// threads; at most back_pressure_for_async_send_num sends are in flight.

#include <atomic>
#include <cstdint>
#include <exception>
#include <future>
#include <latch>
#include <vector>

#include <fmt/format.h>

#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicTest", 4);
    rmq::Producer<rmq::InProcessTransport> producer(
        broker.connect(),
        rmq::ProducerConfig{.producer_group = "please_rename_unique_group_name",
                            .back_pressure_for_async_send_num = 64});
    producer.start();

    std::atomic<int> ok{0};
    std::atomic<int> failed{0};
    std::latch done(100);
    for (int i = 0; i < 100; ++i) {
        producer.send_async(
            rmq::Message("TopicTest", "TagA", fmt::format("OrderID{}", i), "Hello world"),
            [&](const rmq::SendResult&) {
                ++ok;
                done.count_down();
            },
            [&](const std::exception_ptr&) {
                ++failed;
                done.count_down();
            });
    }
    done.wait();

    std::vector<std::future<rmq::SendResult>> futures;
    for (int i = 0; i < 10; ++i) {
        futures.push_back(producer.send_async(rmq::Message("TopicTest", "TagB", "", "with a future")));
    }
    for (auto& f : futures) {
        if (f.get().status == rmq::SendStatus::SendOk) {
            ++ok;
        }
    }

    for (int i = 0; i < 10; ++i) {
        producer.send_oneway(rmq::Message("TopicTest", "TagC", "", "oneway"));
    }
    producer.shutdown();  // finishes the oneway sends

    std::int64_t stored = 0;
    for (int q = 0; q < 4; ++q) {
        stored += broker.max_offset(broker.queue("TopicTest", q));
    }
    fmt::print("{} async sends ok, {} failed, {} messages stored\n", ok.load(), failed.load(), stored);
    return ok == 110 && stored == 120 ? 0 : 1;
}
