// Flow control with a large backlog: while the listeners hold their batches no queue caches more than its
// threshold plus one pull batch, pulling resumes as a slow listener works through the 100,000-message
// backlog, and the bound holds again when the listeners stop once more.

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>

#include "scenario_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace flow_control_test {

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

/// The largest per-queue cached count of FlowTopic in stats().
template <class C>
std::int64_t max_cached(C& consumer) {
    std::int64_t max_seen = 0;
    for (const auto& q : consumer.stats().queues) {
        if (q.mq.topic == "FlowTopic") {
            max_seen = std::max(max_seen, q.cached_msg_count);
        }
    }
    return max_seen;
}

/// While the gate is shut the listeners hold their batches, so the caches only grow: once every queue's pull
/// loop has come round three times, any pull flow control let through would show (one batch each).
template <class C>
std::int64_t cached_with_gate_shut(C& consumer, std::int64_t per_queue_limit) {
    REQUIRE(eventually([&] { return max_cached(consumer) >= per_queue_limit / 2; }));
    REQUIRE(scenario::pull_loops_ran(consumer, "FlowTopic", 3));
    return max_cached(consumer);
}

template <class C, class Listener>
void run_flow_scenario(rmq::InProcessBroker& broker,
                       rmq::ConsumerConfig config,
                       std::int64_t per_queue_limit,
                       Listener listener,
                       Recorder& rec,
                       const int& consumed,
                       bool& gate_open) {
    C consumer{broker.connect(), config};
    consumer.subscribe("FlowTopic", "*");
    consumer.register_listener(listener);
    consumer.start();
    const std::int64_t max_seen = cached_with_gate_shut(consumer, per_queue_limit);
    rec.update([&] { gate_open = true; });
    // Pulls continue as the listener drains the cache: consumption goes well past what one fill could hold.
    const int target = static_cast<int>(queue_count * per_queue_limit * 3);
    REQUIRE(rec.wait([&] { return consumed >= target; }));
    rec.update([&] { gate_open = false; });
    const std::int64_t max_seen_later = cached_with_gate_shut(consumer, per_queue_limit);
    rec.update([&] { gate_open = true; });
    consumer.shutdown();
    INFO(fmt::format("per-queue limit {} + batch {}; max cached seen {} / {}",
                     per_queue_limit,
                     config.pull_batch_size,
                     max_seen,
                     max_seen_later));
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
    bool gate_open = false;
    const auto slow = [&](std::size_t n) {
        (void)rec.wait([&] { return gate_open; });
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
            consumed,
            gate_open);
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
            consumed,
            gate_open);
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
            consumed,
            gate_open);
    }
}

}  // namespace flow_control_test
