// The tag-filter pitfall, "subscriptions of one group must be identical". Group dw_tag_test has two
// members on a topic with 4 queues: one subscribes TagA, the other TagB. The producer sends 40 TagA then 40
// TagB messages round robin, so every queue holds both tags.
//
// The broker keeps ONE subscription per (group, topic) and filters every member's pulls with it; each member
// re-filters with its own tags; filtered messages still advance the offsets. The group's committed offsets
// end up at the end of every queue — "all consumed" — while part of the messages never reached any listener.
// RocketMQ's Java client stays silent about it; rmq reports it (subscription_inconsistent(), stats()).

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

constexpr int per_tag = 40;

/// Polls `pred` every 10 ms for up to 10 s.
template <class P>
bool eventually(P&& pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!pred()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

}  // namespace

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("TagTopic", 4);

    std::mutex mutex;
    std::set<std::string> received_a;
    std::set<std::string> received_b;
    auto listener_into = [&](std::set<std::string>& received) {
        return [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
            const std::lock_guard lock(mutex);
            for (const auto& msg : msgs) {
                received.insert(msg.body());
            }
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        };
    };

    // Short rebalance and persistence intervals so the example finishes in a second or two.
    rmq::ConsumerConfig config{.consumer_group = "dw_tag_test",
                               .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    config.rebalance_interval = 200;
    config.persist_consumer_offset_interval = 200;
    config.heartbeat_broker_interval = 200;
    config.broker_suspend_max_time_millis = 500;

    rmq::PushConsumer<> consumer_a{broker.connect(), config};  // 192.168.3.10 in the seed
    rmq::PushConsumer<> consumer_b{broker.connect(), config};  // 192.168.3.11 in the seed
    consumer_a.subscribe("TagTopic", "TagA");
    consumer_b.subscribe("TagTopic", "TagB");
    consumer_a.register_listener(listener_into(received_a));
    consumer_b.register_listener(listener_into(received_b));
    consumer_a.start();
    consumer_b.start();
    const bool split = eventually(
        [&] { return consumer_a.assigned_queues().size() >= 2 && consumer_b.assigned_queues().size() >= 2; });
    const bool reported = eventually(
        [&] { return consumer_a.subscription_inconsistent() && consumer_b.subscription_inconsistent(); });

    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "tag_producer"});
    producer.start();
    for (int i = 0; i < per_tag; ++i) {
        (void)producer.send(rmq::Message("TagTopic", "TagA", fmt::format("A{}", i)));
    }
    for (int i = 0; i < per_tag; ++i) {
        (void)producer.send(rmq::Message("TagTopic", "TagB", fmt::format("B{}", i)));
    }
    producer.shutdown();

    // Wait until the group's committed offsets reach the end of every queue: as far as the broker (and any
    // lag monitor) can tell, everything was consumed.
    const bool caught_up = eventually([&] {
        for (int q = 0; q < 4; ++q) {
            const auto mq = broker.queue("TagTopic", q);
            if (broker.consumer_offset("dw_tag_test", mq).value_or(-1) != broker.max_offset(mq)) {
                return false;
            }
        }
        return true;
    });
    const auto kept = broker.subscription("dw_tag_test", "TagTopic");
    const rmq::ConsumerStats stats = consumer_a.stats();
    consumer_a.shutdown();
    consumer_b.shutdown();

    const std::lock_guard lock(mutex);
    const int delivered = static_cast<int>(received_a.size() + received_b.size());
    const int never_delivered = 2 * per_tag - delivered;
    fmt::print("queues split between the members: {}\n", split ? "yes" : "no");
    fmt::print("the broker filters the whole group with: {}\n", kept ? kept->sub_string : "(none)");
    fmt::print("member subscribing TagA received {} of {} TagA messages\n", received_a.size(), per_tag);
    fmt::print("member subscribing TagB received {} of {} TagB messages\n", received_b.size(), per_tag);
    fmt::print("committed offsets at the end of every queue: {}\n", caught_up ? "yes" : "no");
    fmt::print("inconsistency report: {}\n",
               stats.subscription_inconsistent ? stats.subscription_inconsistent_detail : "(none)");

    if (!split || !reported || !caught_up || never_delivered <= 0 || !stats.subscription_inconsistent) {
        fmt::print("FAILED: expected lost messages and an inconsistency report (split {}, reported {}, "
                   "caught up {}, never delivered {})\n",
                   split,
                   reported,
                   caught_up,
                   never_delivered);
        return 1;
    }
    fmt::print(
        "{} of {} messages were never delivered; the inconsistency was reported. Fix: give every member "
        "of a group the same subscription\n",
        never_delivered,
        2 * per_tag);
    return 0;
}
