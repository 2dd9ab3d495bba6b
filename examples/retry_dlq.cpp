// Retries and the dead-letter queue. Five messages, two of which ("bad") always
// fail.
//
// * Concurrently: a failed message is sent back to the broker, returns through `%RETRY%<group>` after its
//   delay level, and once it has been reconsumed max_reconsume_times times it goes to `%DLQ%<group>`.
// * Orderly: a failed message is retried in place (the queue waits, keeping the order), and past
//   max_reconsume_times it also goes to `%DLQ%<group>` — unlike rocketmq-client-cpp, which retries forever.
//
// The broker's delay table (messageDelayLevel) is shortened to one second per level so the example finishes
// in a few seconds. Like Java's broker it understands the units s, m, h and d (no milliseconds).

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/topic.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

constexpr int max_reconsume_times = 2;
constexpr int good_count = 3;
constexpr int bad_count = 2;

/// Deliveries per message body, shared with the listener.
struct Tally {
    std::mutex mutex;
    std::condition_variable cv;
    std::map<std::string, int> deliveries;
};

void produce(rmq::InProcessBroker& broker, const std::string& topic) {
    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "retry_producer"});
    producer.start();
    for (int i = 0; i < good_count + bad_count; ++i) {
        const bool bad = i % 2 == 1 && i / 2 < bad_count;
        (void)producer.send(
            rmq::Message(topic, bad ? "Bad" : "Good", fmt::format("{} {}", bad ? "bad" : "good", i)),
            broker.queue(topic, 0));
    }
    producer.shutdown();
}

/// Messages now in `%DLQ%<group>` (every queue of it).
std::map<std::string, int> dlq_contents(rmq::InProcessBroker& broker, const std::string& group) {
    std::map<std::string, int> out;
    const std::string dlq = rmq::dlq_topic(group);
    if (!broker.has_topic(dlq)) {
        return out;
    }
    auto tr = broker.connect();
    for (const auto& mq : tr.topic_route(dlq).read_queues) {
        for (const auto& msg : broker.messages(dlq, mq.queue_id)) {
            out[msg.body()] = msg.reconsume_times();
        }
    }
    return out;
}

/// Waits until both bad messages are in the DLQ and every good one was delivered.
bool wait_for_dlq(rmq::InProcessBroker& broker, const std::string& group, Tally& tally) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        if (static_cast<int>(dlq_contents(broker, group).size()) == bad_count) {
            const std::lock_guard lock(tally.mutex);
            if (static_cast<int>(tally.deliveries.size()) == good_count + bad_count) {
                return true;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

/// Prints the outcome of one consumer; true when it is what RocketMQ does.
bool report(rmq::InProcessBroker& broker, const std::string& group, Tally& tally, bool complete) {
    const auto dlq = dlq_contents(broker, group);
    const std::lock_guard lock(tally.mutex);
    bool ok = complete && static_cast<int>(dlq.size()) == bad_count;
    for (const auto& [body, n] : tally.deliveries) {
        const bool bad = body.starts_with("bad");
        const bool in_dlq = dlq.contains(body);
        fmt::print(
            "  {:<7} delivered {} time(s){}\n", body, n, in_dlq ? ", now in " + rmq::dlq_topic(group) : "");
        ok = ok && (bad ? n == max_reconsume_times + 1 && in_dlq : n == 1 && !in_dlq);
    }
    fmt::print("  {}: {} message(s)\n", rmq::dlq_topic(group), dlq.size());
    return ok;
}

}  // namespace

int main() {
    rmq::BrokerConfig broker_config;
    broker_config.message_delay_level = "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s";
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("RetryTopic", 1);
    broker.create_topic("OrderedRetryTopic", 1);

    // Concurrently: ReconsumeLater → %RETRY%retry_group (delay level 3, 4, ...) → %DLQ%retry_group.
    produce(broker, "RetryTopic");
    Tally concurrent;
    rmq::ConsumerConfig config{.consumer_group = "retry_group",
                               .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    config.max_reconsume_times = max_reconsume_times;
    config.rebalance_interval = 200;
    config.broker_suspend_max_time_millis = 500;
    bool concurrent_done = false;
    {
        rmq::PushConsumer<> consumer{broker.connect(), config};
        consumer.subscribe("RetryTopic", "*");
        consumer.register_listener(
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                const std::lock_guard lock(concurrent.mutex);
                bool failed = false;
                for (const auto& msg : msgs) {
                    ++concurrent.deliveries[msg.body()];
                    failed = failed || msg.tags() == "Bad";
                }
                return failed ? rmq::ConsumeConcurrentlyStatus::ReconsumeLater
                              : rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        consumer.start();
        concurrent_done = wait_for_dlq(broker, "retry_group", concurrent);
        consumer.shutdown();
    }
    fmt::print("concurrently (max_reconsume_times = {}):\n", max_reconsume_times);
    const bool concurrent_ok = report(broker, "retry_group", concurrent, concurrent_done);

    // Orderly: SuspendCurrentQueueAMoment retries in place; past max_reconsume_times →
    // %DLQ%orderly_retry_group.
    produce(broker, "OrderedRetryTopic");
    Tally orderly;
    rmq::ConsumerConfig orderly_config{.consumer_group = "orderly_retry_group",
                                       .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    orderly_config.max_reconsume_times = max_reconsume_times;
    orderly_config.suspend_current_queue_time_millis = 100;
    orderly_config.rebalance_interval = 200;
    orderly_config.broker_suspend_max_time_millis = 500;
    bool orderly_done = false;
    {
        rmq::OrderlyConsumer<> consumer{broker.connect(), orderly_config};
        consumer.subscribe("OrderedRetryTopic", "*");
        consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
            const std::lock_guard lock(orderly.mutex);
            bool failed = false;
            for (const auto& msg : msgs) {
                ++orderly.deliveries[msg.body()];
                failed = failed || msg.tags() == "Bad";
            }
            return failed ? rmq::ConsumeOrderlyStatus::SuspendCurrentQueueAMoment
                          : rmq::ConsumeOrderlyStatus::Success;
        });
        consumer.start();
        orderly_done = wait_for_dlq(broker, "orderly_retry_group", orderly);
        consumer.shutdown();
    }
    fmt::print("orderly (max_reconsume_times = {}):\n", max_reconsume_times);
    const bool orderly_ok = report(broker, "orderly_retry_group", orderly, orderly_done);

    if (!concurrent_ok || !orderly_ok) {
        fmt::print("FAILED: expected each bad message to be delivered {} times and then moved to the DLQ\n",
                   max_reconsume_times + 1);
        return 1;
    }
    fmt::print(
        "both policies: {} good messages consumed once, {} bad messages delivered {} times each and moved "
        "to %DLQ%<group>\n",
        good_count,
        bad_count,
        max_reconsume_times + 1);
    return 0;
}
