// A TU that only uses rmq (declarations only under RMQ_SEPARATE_COMPILATION): embedded broker, producer and a
// Concurrently consumer; the definitions come from source.cpp.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <span>

#include <fmt/format.h>

#include <rmq/rmq.hpp>

#if !defined(RMQ_SEPARATE_COMPILATION) || RMQ_INCLUDE_IMPL
#    error "this TU must be compiled with RMQ_SEPARATE_COMPILATION and without RMQ_SOURCE"
#endif

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("SeparateTopic", 2);
    rmq::Producer<rmq::InProcessTransport> producer(
        broker.connect(), rmq::ProducerConfig{.producer_group = "separate_producer"});
    producer.start();
    for (int i = 0; i < 10; ++i) {
        (void)producer.send(rmq::Message("SeparateTopic", "TagA", fmt::format("message {}", i)));
    }
    producer.shutdown();

    std::mutex mutex;
    std::condition_variable cv;
    int consumed = 0;
    rmq::ConsumerConfig config{.consumer_group = "separate_group",
                               .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    rmq::PushConsumer<rmq::InProcessTransport> consumer{broker.connect(), config};
    consumer.subscribe("SeparateTopic", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        const std::lock_guard lock(mutex);
        consumed += static_cast<int>(msgs.size());
        cv.notify_all();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    bool complete = false;
    {
        std::unique_lock lock(mutex);
        complete = cv.wait_for(lock, std::chrono::seconds(30), [&] { return consumed >= 10; });
    }
    consumer.shutdown();
    if (!complete) {
        fmt::print("FAILED: {} of 10 messages consumed\n", consumed);
        return 1;
    }
    fmt::print("separate compilation OK: {} messages consumed\n", consumed);
    return 0;
}
