// The flow-control settings the count-based scenario does not cover: size thresholds per queue and per topic
// (MiB of cached bodies), consume_concurrently_max_span (pulls pause while the cached offsets span more than
// the limit) and pull_interval.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "scenario_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using scenario::fast_config;
using scenario::pull_loops_ran;
using scenario::Recorder;

namespace {

using PushConsumer =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

constexpr std::int64_t mib = 1024 * 1024;

void produce(rmq::InProcessBroker& broker, const std::string& topic, int count, std::size_t body_bytes) {
    auto tr = broker.connect();
    for (int i = 0; i < count; ++i) {
        std::string body = fmt::format("{:06}", i);
        body.resize(body_bytes, 'x');
        rmq::Message msg(topic, "TagA", body);
        (void)tr.send(msg, broker.queue(topic, 0));
    }
}

std::int64_t cached_bytes(const PushConsumer& consumer, const std::string& topic) {
    std::int64_t max_seen = 0;
    for (const auto& q : consumer.stats().queues) {
        if (q.mq.topic == topic) {
            max_seen = std::max(max_seen, q.cached_msg_bytes);
        }
    }
    return max_seen;
}

std::int64_t max_cached_offset(const PushConsumer& consumer, const std::string& topic) {
    std::int64_t max_seen = 0;
    for (const auto& q : consumer.stats().queues) {
        if (q.mq.topic == topic && q.cached_msg_count > 0) {
            max_seen = std::max(max_seen, q.cached_msg_max_offset);
        }
    }
    return max_seen;
}

/// Starts a consumer whose listener waits for the gate, lets its pull loop come round three times with the
/// gate shut (any pull the size limit let through would be cached by then), and returns the cached bytes;
/// then opens the gate and checks that pulling resumes until all `count` messages are consumed.
std::int64_t cached_bytes_with_gate_shut(rmq::InProcessBroker& broker,
                                         const rmq::ConsumerConfig& config,
                                         const std::string& topic,
                                         int count) {
    Recorder rec;
    bool gate_open = false;
    int consumed = 0;
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        (void)rec.wait([&] { return gate_open; });
        rec.update([&] { consumed += static_cast<int>(msgs.size()); });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(scenario::eventually([&] { return cached_bytes(consumer, topic) > 0; }));
    REQUIRE(pull_loops_ran(consumer, topic, 3));
    const std::int64_t seen = cached_bytes(consumer, topic);
    rec.update([&] { gate_open = true; });
    REQUIRE(rec.wait([&] { return consumed >= count; }));
    consumer.shutdown();
    return seen;
}

}  // namespace

TEST_CASE("flow control: cached bodies per queue stay within pull_threshold_size_for_queue + one batch",
          "[scenario][flow]") {
    rmq::InProcessBroker broker;
    broker.create_topic("SizeQueue", 1);
    constexpr std::size_t body = 64 * 1024;
    produce(broker, "SizeQueue", 100, body);  // 6.25 MiB

    auto config = fast_config("flow_size_queue");
    config.pull_batch_size = 4;
    config.pull_threshold_size_for_queue = 1;  // MiB
    const std::int64_t seen = cached_bytes_with_gate_shut(broker, config, "SizeQueue", 100);
    INFO("cached bytes with the gate shut: " << seen);
    // Java compares whole MiB (cached bytes / 1 MiB > threshold), so pulls go on below 2 MiB.
    CHECK(seen < 2 * mib + config.pull_batch_size * static_cast<std::int64_t>(body));
}

TEST_CASE("flow control: pull_threshold_size_for_topic is divided among the owned queues",
          "[scenario][flow]") {
    rmq::InProcessBroker broker;
    broker.create_topic("SizeTopic", 1);
    constexpr std::size_t body = 64 * 1024;
    produce(broker, "SizeTopic", 100, body);

    auto config = fast_config("flow_size_topic");
    config.pull_batch_size = 4;
    config.pull_threshold_size_for_topic = 4;  // MiB, shared by SizeTopic's queue and the group's retry queue
    const std::int64_t seen = cached_bytes_with_gate_shut(broker, config, "SizeTopic", 100);
    INFO("cached bytes with the gate shut: " << seen);
    // 4 MiB over 2 queues: 2 MiB each, compared in whole MiB as above.
    CHECK(seen < 3 * mib + config.pull_batch_size * static_cast<std::int64_t>(body));
}

TEST_CASE("flow control: pulls pause while the cached offsets span more than consume_concurrently_max_span",
          "[scenario][flow]") {
    rmq::InProcessBroker broker;
    broker.create_topic("SpanTopic", 1);
    produce(broker, "SpanTopic", 1000, 16);

    auto config = fast_config("flow_span");
    config.pull_batch_size = 32;
    config.consume_concurrently_max_span = 100;  // the count limit (1000) would let the whole backlog in
    Recorder rec;
    bool gate_open = false;
    int consumed = 0;
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe("SpanTopic", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        (void)rec.wait([&] { return gate_open; });
        rec.update([&] { consumed += static_cast<int>(msgs.size()); });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(scenario::eventually([&] { return max_cached_offset(consumer, "SpanTopic") > 0; }));
    REQUIRE(pull_loops_ran(consumer, "SpanTopic", 3));
    const std::int64_t held_max = max_cached_offset(consumer, "SpanTopic");
    INFO("highest cached offset with the listeners held: " << held_max);
    // A pull is let through while max − min <= 100 (min is 0 here): the last one starts at most at offset
    // 100.
    CHECK(held_max <= 100 + config.pull_batch_size);
    rec.update([&] { gate_open = true; });
    REQUIRE(rec.wait([&] { return consumed == 1000; }));
    consumer.shutdown();
}

TEST_CASE("pull_interval: a queue is pulled no more often than the interval", "[scenario][flow]") {
    rmq::InProcessBroker broker;
    broker.create_topic("IntervalTopic", 1);
    produce(broker, "IntervalTopic", 5, 16);

    auto config = fast_config("flow_interval");
    config.pull_batch_size = 1;
    config.pull_interval = 300;
    Recorder rec;
    int consumed = 0;
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe("IntervalTopic", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        rec.update([&] { consumed += static_cast<int>(msgs.size()); });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    const auto started = std::chrono::steady_clock::now();
    consumer.start();
    REQUIRE(rec.wait([&] { return consumed == 5; }));
    const auto took = std::chrono::steady_clock::now() - started;
    consumer.shutdown();
    // One message per pull, and each pull waits the interval after the previous one's answer: the fifth
    // message cannot arrive before four intervals have passed (a lower bound, so a slow machine cannot fail
    // it).
    CHECK(took >= std::chrono::milliseconds(4 * config.pull_interval));
}
