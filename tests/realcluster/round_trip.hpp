#pragma once
// Produce, then consume everything back: the round trip the [tls] and [acl] tests make over a secured
// cluster.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cluster.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace rmq_rc {

/// A consumer of a fresh group from the first offset, with the timers shortened for tests.
inline rmq::ConsumerConfig consumer_config() {
    rmq::ConsumerConfig cfg;
    cfg.consumer_group = unique("cg");
    cfg.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    cfg.rebalance_interval = 200;
    cfg.heartbeat_broker_interval = 200;
    cfg.poll_name_server_interval = 200;
    cfg.pull_time_delay_mills_when_exception = 200;
    return cfg;
}

/// Messages stored in `topic` (the sum of its write queues' max offsets).
inline std::int64_t stored(rmq::RemotingTransport& t, const std::string& topic) {
    std::int64_t n = 0;
    for (const auto& mq : t.topic_route(topic).write_queues) {
        n += t.max_offset(mq);
    }
    return n;
}

/// Sends `n` messages (keys k-0.., bodies "<label> 0"..) with a producer of `group`; returns their ids.
inline std::set<std::string> produce(rmq::RemotingTransport transport,
                                     const std::string& topic,
                                     int n,
                                     const std::string& group,
                                     std::string_view label) {
    rmq::Producer<rmq::RemotingTransport> producer(transport, rmq::ProducerConfig{.producer_group = group});
    producer.start();
    std::set<std::string> ids;
    for (int i = 0; i < n; ++i) {
        const auto r = producer.send(
            rmq::Message(topic, "TagA", fmt::format("k-{}", i), fmt::format("{} {}", label, i)));
        REQUIRE(r.status == rmq::SendStatus::SendOk);
        ids.insert(r.msg_id);
    }
    producer.shutdown();
    return ids;
}

/// What a listener received, recorded for the test thread to assert on.
struct Got {
    std::mutex mutex;
    std::set<std::string> ids;
    std::map<std::string, std::vector<std::int64_t>>
        by_queue;  // "broker/queue id": offsets in delivery order

    void add(std::span<const rmq::MessageExt> msgs) {
        const std::lock_guard lock(mutex);
        for (const auto& m : msgs) {
            ids.insert(m.msg_id());
            by_queue[fmt::format("{}/{}", m.broker_name(), m.queue_id())].push_back(m.queue_offset());
        }
    }

    std::size_t size() {
        const std::lock_guard lock(mutex);
        return ids.size();
    }
};

/// Consumes `topic` with a consumer of `cfg` (Orderly: rmq::OrderlyConsumer, else rmq::PushConsumer) until
/// all of `sent` arrived or 120 s passed; checks the ids, and for Orderly that every queue was delivered in
/// offset order.
template <bool Orderly>
void consume_all(rmq::RemotingTransport transport,
                 const rmq::ConsumerConfig& cfg,
                 const std::string& topic,
                 const std::set<std::string>& sent) {
    using Consumer = std::conditional_t<Orderly,
                                        rmq::OrderlyConsumer<rmq::RemotingTransport>,
                                        rmq::PushConsumer<rmq::RemotingTransport>>;
    Got got;
    Waiter waiter;
    Consumer consumer{transport, cfg};
    consumer.subscribe(topic, "*");
    if constexpr (Orderly) {
        consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
            got.add(msgs);
            waiter.notify();
            return rmq::ConsumeOrderlyStatus::Success;
        });
    } else {
        consumer.register_listener(
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                got.add(msgs);
                waiter.notify();
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
    }
    consumer.start();
    CHECK(waiter.wait([&] { return got.size() >= sent.size(); }, std::chrono::seconds(120)));
    consumer.shutdown();
    const std::lock_guard lock(got.mutex);
    CHECK(got.ids == sent);
    if constexpr (Orderly) {
        for (const auto& [queue, offsets] : got.by_queue) {
            INFO(queue);
            CHECK(std::is_sorted(offsets.begin(), offsets.end()));
        }
    }
}

}  // namespace rmq_rc
