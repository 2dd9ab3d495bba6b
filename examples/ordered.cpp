// The main demo (RocketMQ's ordered-message example): an ordered producer sends 100 messages of 10 orders
// (tags TagA..TagE, every message of order id i % 10 to queue order_id % 8), and an orderly consumer on the
// embedded broker checks that each order's messages arrive in the sequence they were sent.
//
// Java's sample juggles ConsumeOrderlyStatus values with auto-commit off; every status × auto-commit
// combination is exercised by tests/unit/order/orderly_test.cpp. Here the listener simply succeeds.

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

constexpr int message_count = 100;
constexpr int order_count = 10;

}  // namespace

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicTest", 8);

    // OrderedProducer: the same order id always selects the same queue.
    rmq::Producer<rmq::InProcessTransport> producer(
        broker.connect(), rmq::ProducerConfig{.producer_group = "example_group_name"});
    producer.start();
    constexpr std::array<std::string_view, 5> tags{"TagA", "TagB", "TagC", "TagD", "TagE"};
    auto by_order_id = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int order_id) {
        return mqs[static_cast<std::size_t>(order_id) % mqs.size()];
    };
    for (int i = 0; i < message_count; ++i) {
        const int order_id = i % order_count;
        rmq::Message msg("TopicTest",
                         tags[static_cast<std::size_t>(i) % tags.size()],
                         fmt::format("KEY{}", i),
                         fmt::format("Hello RocketMQ {}", i));
        (void)producer.send(msg, by_order_id, order_id);
    }
    producer.shutdown();

    // OrderedConsumer: an orderly listener; each queue is consumed by one thread at a time, in queue order.
    std::mutex mutex;
    std::condition_variable cv;
    std::map<int, std::vector<int>> sequences;  // order id → message numbers in arrival order
    int received = 0;

    rmq::Consumer<rmq::Orderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>
        consumer{broker.connect(),
                 rmq::ConsumerConfig{.consumer_group = "example_group_name",
                                     .consume_from_where = rmq::ConsumeFromWhere::FirstOffset}};
    consumer.subscribe("TopicTest", "TagA || TagB || TagC || TagD || TagE");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        {
            const std::lock_guard lock(mutex);
            for (const auto& msg : msgs) {
                const int n = std::stoi(std::string(msg.keys().substr(3)));  // "KEY<n>"
                sequences[n % order_count].push_back(n);
                ++received;
            }
        }
        cv.notify_all();
        return rmq::ConsumeOrderlyStatus::Success;
    });
    consumer.start();
    fmt::print("Consumer Started.\n");

    bool complete = false;
    {
        std::unique_lock lock(mutex);
        complete = cv.wait_for(lock, std::chrono::seconds(30), [&] { return received >= message_count; });
    }
    consumer.shutdown();

    const std::lock_guard lock(mutex);
    int in_sequence = 0;
    for (int order = 0; order < order_count; ++order) {
        const auto& seq = sequences[order];
        std::vector<int> expected;
        for (int n = order; n < message_count; n += order_count) {
            expected.push_back(n);
        }
        const bool ok = seq == expected;
        in_sequence += ok ? 1 : 0;
        fmt::print("order {} (queue {}): {} {}\n",
                   order,
                   order % 8,
                   fmt::join(seq, " -> "),
                   ok ? "OK" : "OUT OF SEQUENCE");
    }
    if (!complete || in_sequence != order_count || received != message_count) {
        fmt::print("FAILED: {} of {} messages received, {} of {} orders in sequence\n",
                   received,
                   message_count,
                   in_sequence,
                   order_count);
        return 1;
    }
    fmt::print("all {} orders consumed in sequence\n", order_count);
    return 0;
}
