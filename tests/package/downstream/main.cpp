// A small consumer on the embedded broker, using rmq through the umbrella header only, as a user of the
// single header would: a producer sends three messages, a Concurrently push consumer receives them. Built the
// same way by every packaging route (tests/package), some of them with strict warnings (-Wshadow -Wconversion
// -Werror).
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>
#include <span>
#include <string>

#include <fmt/format.h>

#include <rmq/rmq.hpp>
#ifdef RMQ_DOWNSTREAM_REMOTING  // the TCP transport's umbrella too (Boost.Asio), e.g. for the libc++ build
#    include <rmq/remoting.hpp>
#endif

#ifndef RMQ_DOWNSTREAM_MODE
#    define RMQ_DOWNSTREAM_MODE "single_header"
#endif

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("DownstreamTopic", 2);

    rmq::Producer<rmq::InProcessTransport> producer(
        broker.connect(), rmq::ProducerConfig{.producer_group = "downstream_producer"});
    producer.start();
    const std::set<std::string> sent{"one", "two", "three"};
    for (const auto& body : sent) {
        (void)producer.send(rmq::Message("DownstreamTopic", "TagA", body));
    }
    producer.shutdown();

    std::mutex mutex;
    std::condition_variable cv;
    std::set<std::string> received;
    rmq::PushConsumer<rmq::InProcessTransport> consumer{
        broker.connect(),
        rmq::ConsumerConfig{.consumer_group = "downstream_group",
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset}};
    consumer.subscribe("DownstreamTopic", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        const std::lock_guard lock(mutex);
        for (const auto& msg : msgs) {
            received.insert(msg.body());
        }
        cv.notify_all();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    bool complete = false;
    {
        std::unique_lock lock(mutex);
        complete = cv.wait_for(lock, std::chrono::seconds(30), [&] { return received == sent; });
    }
    consumer.shutdown();
    if (!complete) {
        std::fprintf(stderr, "rmq_downstream: received %zu of %zu messages\n", received.size(), sent.size());
        return 1;
    }
    fmt::print("rmq_downstream OK ({}) rmq {}.{}.{}: {} messages consumed\n",
               RMQ_DOWNSTREAM_MODE,
               RMQ_VERSION_MAJOR,
               RMQ_VERSION_MINOR,
               RMQ_VERSION_PATCH,
               received.size());
    return 0;
}
