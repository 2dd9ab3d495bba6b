// SQL92 subscription on the embedded broker: the broker (with enable_property_filter, Java's
// enablePropertyFilter=true) delivers only the orders whose properties match the expression; a bad
// expression is refused at subscribe. See docs/subscriptions.md.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <rmq/consumer.hpp>
#include <rmq/error.hpp>
#include <rmq/message_selector.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

int main() {
    rmq::InProcessBroker broker{rmq::BrokerConfig{.enable_property_filter = true}};
    broker.create_topic("Orders", 2);

    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "order_producer"});
    producer.start();
    const char* regions[] = {"eu", "us", "uk"};
    for (int i = 0; i < 10; ++i) {
        rmq::Message m("Orders", "TagA", fmt::format("order-{}", i));
        m.set_property("amount", std::to_string(i * 100));  // property values are strings
        m.set_property("region", regions[i % 3]);
        (void)producer.send(m);
    }
    producer.shutdown();

    std::mutex mutex;
    std::condition_variable cv;
    std::vector<std::string> got;
    rmq::PushConsumer<rmq::InProcessTransport> consumer{
        broker.connect(),
        rmq::ConsumerConfig{.consumer_group = "sql_group",
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset}};
    try {
        consumer.subscribe("Orders", rmq::MessageSelector::by_sql("amount > 'big'"));
    } catch (const rmq::InvalidArgument& e) {
        fmt::print("refused: {}\n", e.what());
    }
    consumer.subscribe("Orders",
                       rmq::MessageSelector::by_sql("amount BETWEEN 200 AND 800 AND region IN ('eu', 'uk')"));
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        const std::lock_guard lock(mutex);
        for (const auto& m : msgs) {
            got.emplace_back(m.body());
        }
        cv.notify_all();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    std::vector<std::string> result;
    {
        std::unique_lock lock(mutex);
        cv.wait_for(lock, std::chrono::seconds(60), [&] { return got.size() >= 5; });
        result = got;
    }
    consumer.shutdown();
    std::sort(result.begin(), result.end());
    fmt::print("consumed {} of 10 orders: {}\n", result.size(), fmt::join(result, ", "));
    return result.size() == 5 ? 0 : 1;
}
