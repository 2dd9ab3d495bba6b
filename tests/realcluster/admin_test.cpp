// Apache RocketMQ's mqadmin (5.3.3, or 4.9.7 with RMQ_VERSION=4.9.7) against running rmq consumers:
// consumerStatus (GET_CONSUMER_RUNNING_INFO), resetOffsetByTime (RESET_CONSUMER_CLIENT_OFFSET, Concurrently
// and Orderly) and queryMsgById -d (CONSUME_MESSAGE_DIRECTLY).

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cluster.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Transport = rmq::RemotingTransport;

/// `tools/rocketmq.sh mqadmin ARGS` (the cluster of RMQ_CLUSTER_DIR): its standard output.
std::string mqadmin(const std::string& args) {
    return rmq_rc::mqadmin_output(args);
}

std::int64_t wall_millis() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::vector<rmq::SendResult> produce(Transport transport, const std::string& topic, int n) {
    rmq::Producer<Transport> producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
    producer.start();
    std::vector<rmq::SendResult> out;
    for (int i = 0; i < n; ++i) {
        auto r = producer.send(rmq::Message(topic, "TagA", fmt::format("m{}", i)));
        REQUIRE(r.status == rmq::SendStatus::SendOk);
        out.push_back(r);
    }
    producer.shutdown();
    return out;
}

/// Deliveries per body.
struct Deliveries {
    rmq_rc::Waiter waiter;
    std::map<std::string, int> count;
    int total = 0;

    void add(std::span<const rmq::MessageExt> msgs) {
        {
            const std::lock_guard lock(waiter.mutex);
            for (const auto& m : msgs) {
                ++count[m.body()];
                ++total;
            }
        }
        waiter.cv.notify_all();
    }

    bool wait_total(int n) {
        return waiter.wait([&] { return total >= n; }, std::chrono::seconds(120));
    }
};

template <class Order>
using RcConsumer = rmq::Consumer<Order, rmq::AllocateAveragely, rmq::RemoteOffsetStore, Transport>;

rmq::ConsumerConfig consumer_config(const std::string& group) {
    return rmq::ConsumerConfig{.consumer_group = group,
                               .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
}

template <class Order, class Listener>
void check_reset_by_time(const std::string& tag, Listener&& listener) {
    const auto topic = rmq_rc::unique("adm_reset_" + tag);
    const auto group = rmq_rc::unique("adm_reset_g_" + tag);
    rmq_rc::create_topic(topic, 2);
    Transport transport{rmq_rc::config()};
    constexpr int n = 40;
    const auto before = wall_millis() - 1000;
    const auto sent = produce(transport, topic, n);
    Deliveries got;
    RcConsumer<Order> consumer{transport, consumer_config(group)};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, typename Order::Context&) {
        got.add(msgs);
        return listener();
    });
    consumer.start();
    REQUIRE(got.wait_total(n));
    // A 4.x broker resets only when every queue of the topic has an offset committed by the group ("consumer
    // group not exist" otherwise); the consumer commits every persist_consumer_offset_interval (5 s).
    std::map<rmq::MessageQueue, std::int64_t> ends;
    for (const auto& r : sent) {
        ends[r.message_queue] = std::max(ends[r.message_queue], r.queue_offset + 1);
    }
    REQUIRE(rmq_rc::wait_until(
        [&] {
            return std::ranges::all_of(ends, [&](const auto& e) {
                return transport.query_consumer_offset(group, e.first) == e.second;
            });
        },
        std::chrono::seconds(60)));
    const auto out = mqadmin(fmt::format("resetOffsetByTime -g {} -t {} -s {}", group, topic, before));
    INFO(out);
    // The running consumer drops its caches and consumes everything again from the reset point.
    REQUIRE(got.wait_total(2 * n));
    const std::lock_guard lock(got.waiter.mutex);
    CHECK(got.count.size() == static_cast<std::size_t>(n));
    for (const auto& [body, times] : got.count) {
        CHECK(times == 2);
    }
}

}  // namespace

TEST_CASE("mqadmin consumerStatus shows an rmq consumer's properties, subscriptions and queues",
          "[realcluster][admin]") {
    const auto topic = rmq_rc::unique("adm_status");
    const auto group = rmq_rc::unique("adm_status_g");
    rmq_rc::create_topic(topic, 2);
    Transport transport{rmq_rc::config()};
    produce(transport, topic, 20);
    Deliveries got;
    RcConsumer<rmq::Orderly> consumer{transport, consumer_config(group)};
    consumer.subscribe(topic, "TagA || TagB");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        got.add(msgs);
        return rmq::ConsumeOrderlyStatus::Success;
    });
    consumer.start();
    REQUIRE(got.wait_total(20));
    // Its 4 queues of the topic (2 brokers x 2) and the retry topic's.
    const auto topic_queues = [&] {
        const auto qs = consumer.assigned_queues();
        return std::count_if(qs.begin(), qs.end(), [&](const auto& q) { return q.topic == topic; });
    };
    REQUIRE(rmq_rc::wait_until([&] { return topic_queues() == 4; }, std::chrono::seconds(60)));
    const auto out = mqadmin(fmt::format("consumerStatus -g {} -i {}", group, consumer.client_id()));
    INFO(out);
    CHECK(out.find("#Consumer Properties#") != std::string::npos);
    CHECK(out.find("PROP_CONSUMEORDERLY") != std::string::npos);
    CHECK(out.find("CONSUME_PASSIVELY") != std::string::npos);
    CHECK(out.find("#Consumer Subscription#") != std::string::npos);
    CHECK(out.find("TagA || TagB") != std::string::npos);
    CHECK(out.find("#Consumer Offset#") != std::string::npos);
    // One ProcessQueueInfo line per owned queue of the topic, locked (orderly).
    int queues = 0;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with(topic) && line.find("ProcessQueueInfo [") != std::string::npos) {
            ++queues;
            CHECK(line.find("locked=true") != std::string::npos);
        }
    }
    CHECK(queues == 4);
    CHECK(out.find("#Consumer RT&TPS#") != std::string::npos);
    // Without -i: the group analysis (same subscription, rebalance) reads every member's running info.
    const auto group_out = mqadmin(fmt::format("consumerStatus -g {}", group));
    INFO(group_out);
    CHECK(group_out.find("Same subscription in the same group of consumer") != std::string::npos);
    CHECK(group_out.find("Rebalance OK") != std::string::npos);
}

TEST_CASE("mqadmin resetOffsetByTime: a running Concurrently consumer consumes again from the reset point",
          "[realcluster][admin]") {
    check_reset_by_time<rmq::Concurrently>("c",
                                           [] { return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess; });
}

TEST_CASE("mqadmin resetOffsetByTime: a running Orderly consumer consumes again from the reset point",
          "[realcluster][admin]") {
    check_reset_by_time<rmq::Orderly>("o", [] { return rmq::ConsumeOrderlyStatus::Success; });
}

TEST_CASE("mqadmin queryMsgById -d: the listener consumes the message directly (CONSUME_MESSAGE_DIRECTLY)",
          "[realcluster][admin]") {
    const auto topic = rmq_rc::unique("adm_direct");
    const auto group = rmq_rc::unique("adm_direct_g");
    rmq_rc::create_topic(topic, 2);
    Transport transport{rmq_rc::config()};
    const auto sent = produce(transport, topic, 4);
    Deliveries got;
    RcConsumer<rmq::Concurrently> consumer{transport, consumer_config(group)};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        got.add(msgs);
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(got.wait_total(4));
    // 4.x's queryMsgById has no -t: the offset message id alone names broker and commit log position
    const auto topic_arg = rmq_rc::rocketmq_4x() ? std::string() : fmt::format("-t {} ", topic);
    const auto out = mqadmin(fmt::format(
        "queryMsgById {}-i {} -g {} -d {}", topic_arg, sent[2].offset_msg_id, group, consumer.client_id()));
    INFO(out);
    CHECK(out.find("consumeResult=CR_SUCCESS") != std::string::npos);
    CHECK(out.find("order=false") != std::string::npos);
    REQUIRE(got.wait_total(5));
    const std::lock_guard lock(got.waiter.mutex);
    CHECK(got.count["m2"] == 2);
}
