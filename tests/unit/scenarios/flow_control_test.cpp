// Flow control with a large backlog: while a slow listener works through a
// 100,000-message backlog, no queue ever caches more than its threshold plus one pull batch, and pulling
// resumes as the cache drains.

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>

#include "scenario_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using scenario::eventually;
using scenario::fast_config;
using scenario::Recorder;

namespace {

constexpr int queue_count = 4;
constexpr int backlog = 100000;

void produce_backlog(rmq::InProcessBroker& broker) {
    auto tr = broker.connect();
    for (int i = 0; i < backlog; ++i) {
        rmq::Message msg("FlowTopic", "TagA", std::to_string(i));
        (void)tr.send(msg, broker.queue("FlowTopic", i % queue_count));
    }
}

/// Samples the per-queue cached counts through stats() while the listener is slow; returns the largest seen.
template <class C>
std::int64_t sample_max_cached(C& consumer, int samples) {
    std::int64_t max_seen = 0;
    for (int i = 0; i < samples; ++i) {
        for (const auto& q : consumer.stats().queues) {
            if (q.mq.topic == "FlowTopic") {
                max_seen = std::max(max_seen, q.cached_msg_count);
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return max_seen;
}

template <class C, class Listener>
void run_flow_scenario(rmq::InProcessBroker& broker,
                       rmq::ConsumerConfig config,
                       std::int64_t per_queue_limit,
                       Listener listener,
                       Recorder& rec,
                       const int& consumed) {
    C consumer{broker.connect(), config};
    consumer.subscribe("FlowTopic", "*");
    consumer.register_listener(listener);
    consumer.start();
    // Wait until the caches filled up (pulls are far faster than the listener).
    REQUIRE(eventually([&] {
        for (const auto& q : consumer.stats().queues) {
            if (q.mq.topic == "FlowTopic" && q.cached_msg_count >= per_queue_limit / 2) {
                return true;
            }
        }
        return false;
    }));
    const std::int64_t max_seen = sample_max_cached(consumer, 300);
    const int consumed_then = rec.read([&] { return consumed; });
    // Pulls continue as the listener drains the cache: consumption goes well past what one fill could hold.
    const int target = consumed_then + static_cast<int>(queue_count * per_queue_limit * 2);
    REQUIRE(rec.wait([&] { return consumed >= target; }));
    const std::int64_t max_seen_later = sample_max_cached(consumer, 100);
    consumer.shutdown();
    INFO(fmt::format("per-queue limit {} + batch {}; max cached seen {} / {}",
                     per_queue_limit,
                     config.pull_batch_size,
                     max_seen,
                     max_seen_later));
    CHECK(max_seen >= per_queue_limit / 2);  // the sampling did see a full cache
    CHECK(max_seen <= per_queue_limit + config.pull_batch_size);
    CHECK(max_seen_later <= per_queue_limit + config.pull_batch_size);
}

}  // namespace

TEST_CASE("flow control: with a 100k backlog the cached count per queue stays within threshold + one batch",
          "[scenario][flow]") {
    rmq::InProcessBroker broker;
    broker.create_topic("FlowTopic", queue_count);
    produce_backlog(broker);

    Recorder rec;
    int consumed = 0;
    auto config = fast_config("flow_group");
    config.pull_batch_size = 32;
    config.pull_threshold_for_queue = 200;
    config.await_termination_millis_when_shutdown = 10000;
    const auto slow = [&](std::size_t n) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        rec.update([&] { consumed += static_cast<int>(n); });
    };

    SECTION("concurrently, pull_threshold_for_queue") {
        using C = rmq::Consumer<rmq::Concurrently,
                                rmq::AllocateAveragely,
                                rmq::RemoteOffsetStore,
                                rmq::InProcessTransport>;
        run_flow_scenario<C>(
            broker,
            config,
            config.pull_threshold_for_queue,
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                slow(msgs.size());
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            },
            rec,
            consumed);
    }
    SECTION("concurrently, pull_threshold_for_topic divided among the owned queues") {
        using C = rmq::Consumer<rmq::Concurrently,
                                rmq::AllocateAveragely,
                                rmq::RemoteOffsetStore,
                                rmq::InProcessTransport>;
        config.pull_threshold_for_queue = 1000;
        config.pull_threshold_for_topic = 400;  // 4 topic queues (+ the retry queue) share it
        run_flow_scenario<C>(
            broker,
            config,
            400 / queue_count,
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                slow(msgs.size());
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            },
            rec,
            consumed);
    }
    SECTION("orderly, pull_threshold_for_queue") {
        using C = rmq::
            Consumer<rmq::Orderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;
        run_flow_scenario<C>(
            broker,
            config,
            config.pull_threshold_for_queue,
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
                slow(msgs.size());
                return rmq::ConsumeOrderlyStatus::Success;
            },
            rec,
            consumed);
    }
}
