#pragma once

// Helpers of the lite pull tests: a fast configuration, a producer shortcut, polling until a count arrived.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <consumer_fixture.hpp>

#include <rmq/lite_pull_consumer.hpp>
#include <rmq/transport/in_process.hpp>

namespace lite_pull_test {

using LitePull = rmq::LitePullConsumer<>;

/// Rebalances, heartbeats and long polls shortened to milliseconds; from the first offset.
inline rmq::LitePullConfig fast_config(std::string group) {
    rmq::LitePullConfig c;
    c.consumer_group = std::move(group);
    c.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    c.rebalance_interval = 100;
    c.heartbeat_broker_interval = 200;
    c.broker_suspend_max_time_millis = 200;
    c.consumer_timeout_millis_when_suspend = 3000;
    c.pull_time_delay_mills_when_exception = 50;
    c.pull_time_delay_mills_when_pause = 50;
    c.persist_consumer_offset_interval = 100;
    return c;
}

template <class P>
bool eventually(P&& pred, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    return consumer_fixture::eventually(std::forward<P>(pred), timeout);
}

/// Sends `count` messages "<prefix><i>" round-robin over `queues` queues of `topic`.
inline void produce(rmq::InProcessBroker& broker,
                    const std::string& topic,
                    int queues,
                    int count,
                    const std::string& prefix = "m") {
    auto tr = broker.connect();
    for (int i = 0; i < count; ++i) {
        rmq::Message msg(topic, "TagA", prefix + std::to_string(i));
        (void)tr.send(msg, broker.queue(topic, i % queues));
    }
}

/// Polls until `count` messages came (or a minute passed); returns what came.
template <class C>
std::vector<rmq::MessageExt> poll_count(C& consumer, std::size_t count) {
    std::vector<rmq::MessageExt> out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
        for (auto& msg : consumer.poll(std::chrono::milliseconds(200))) {
            out.push_back(std::move(msg));
        }
    }
    return out;
}

/// Polls for `window`, returning everything that came.
template <class C>
std::vector<rmq::MessageExt> poll_for(C& consumer, std::chrono::milliseconds window) {
    std::vector<rmq::MessageExt> out;
    const auto deadline = std::chrono::steady_clock::now() + window;
    while (std::chrono::steady_clock::now() < deadline) {
        for (auto& msg : consumer.poll(std::chrono::milliseconds(50))) {
            out.push_back(std::move(msg));
        }
    }
    return out;
}

/// queue id -> offsets, in the order polled.
inline std::map<int, std::vector<std::int64_t>> offsets_by_queue(const std::vector<rmq::MessageExt>& msgs) {
    std::map<int, std::vector<std::int64_t>> out;
    for (const auto& m : msgs) {
        out[m.queue_id()].push_back(m.queue_offset());
    }
    return out;
}

}  // namespace lite_pull_test
