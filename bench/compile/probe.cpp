// Compile-cost probe (tools/bench.sh --compile): one translation unit that includes the umbrella header and
// uses the embedded broker, a producer and a Concurrently consumer, the way an application TU would. Its
// compile CPU and peak memory are reported as ratios to yardstick.cpp. The test suite also builds it as the
// using TU of the separate-compilation check (tests/separate/) and runs it. With RMQ_PROBE_REMOTING it
// includes <rmq/remoting.hpp> instead (all of rmq, the TCP transport too), as a TU of a program that also
// talks to a real cluster would.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <span>

#include <fmt/format.h>

#if defined(RMQ_PROBE_REMOTING)
#    include <rmq/remoting.hpp>
#else
#    include <rmq/rmq.hpp>
#endif

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("ProbeTopic", 2);

    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "probe_producer"});
    producer.start();
    for (int i = 0; i < 10; ++i) {
        (void)producer.send(rmq::Message("ProbeTopic", "TagA", fmt::format("message {}", i)));
    }
    producer.shutdown();

    std::mutex mutex;
    std::condition_variable cv;
    int consumed = 0;
    rmq::ConsumerConfig config{.consumer_group = "probe_group",
                               .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    rmq::PushConsumer<rmq::InProcessTransport> consumer{broker.connect(), config};
    consumer.subscribe("ProbeTopic", "*");
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
    fmt::print("{} of 10 messages consumed\n", consumed);
    return complete ? 0 : 1;
}
