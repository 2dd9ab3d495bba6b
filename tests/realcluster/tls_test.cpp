// TLS against Apache RocketMQ 5.3.3 started with `tools/rocketmq.sh start --tls enforcing|permissive`
// (tools/broker-test.sh with RMQ_TLS_MODE set): producing and consuming (concurrently and orderly) over TLS,
// and the failures that must be clear: a CA that did not sign the cluster's certificates, and, against an
// enforcing cluster, a plaintext client. On a plain cluster these tests only say so (and pass).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cluster.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/error.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Transport = rmq::RemotingTransport;

bool tls_cluster() {
    if (rmq_rc::tls_mode().empty()) {
        WARN("the cluster runs plain TCP: TLS tests not run (RMQ_TLS_MODE=enforcing tools/broker-test.sh)");
        return false;
    }
    return true;
}

/// Sends `n` messages; returns their ids.
std::set<std::string> produce(Transport transport, const std::string& topic, int n) {
    rmq::Producer<Transport> producer(transport,
                                      rmq::ProducerConfig{.producer_group = rmq_rc::unique("tpg")});
    producer.start();
    std::set<std::string> ids;
    for (int i = 0; i < n; ++i) {
        const auto r =
            producer.send(rmq::Message(topic, "TagA", fmt::format("k-{}", i), fmt::format("tls {}", i)));
        REQUIRE(r.status == rmq::SendStatus::SendOk);
        ids.insert(r.msg_id);
    }
    producer.shutdown();
    return ids;
}

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

std::string failure_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no exception)";
}

}  // namespace

TEST_CASE("TLS: produce, consume concurrently and orderly over TLS", "[realcluster][tls]") {
    if (!tls_cluster()) {
        return;
    }
    const std::string topic = rmq_rc::unique("RcTls");
    rmq_rc::create_topic(topic, 4);
    Transport transport{rmq_rc::config()};
    REQUIRE(transport.topic_route(topic).read_queues.size() == 8);
    constexpr int n = 60;
    const auto sent = produce(transport, topic, n);
    REQUIRE(sent.size() == n);

    SECTION("concurrently") {
        Got got;
        rmq_rc::Waiter waiter;
        rmq::ConsumerConfig cfg{.consumer_group = rmq_rc::unique("tcg"),
                                .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
        rmq::PushConsumer<Transport> consumer{transport, cfg};
        consumer.subscribe(topic, "*");
        consumer.register_listener(
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                got.add(msgs);
                waiter.notify();
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        consumer.start();
        CHECK(waiter.wait([&] { return got.size() >= sent.size(); }, std::chrono::seconds(120)));
        consumer.shutdown();
        const std::lock_guard lock(got.mutex);
        CHECK(got.ids == sent);
    }
    SECTION("orderly") {
        Got got;
        rmq_rc::Waiter waiter;
        rmq::ConsumerConfig cfg{.consumer_group = rmq_rc::unique("tog"),
                                .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
        rmq::OrderlyConsumer<Transport> consumer{transport, cfg};
        consumer.subscribe(topic, "*");
        consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
            got.add(msgs);
            waiter.notify();
            return rmq::ConsumeOrderlyStatus::Success;
        });
        consumer.start();
        CHECK(waiter.wait([&] { return got.size() >= sent.size(); }, std::chrono::seconds(120)));
        consumer.shutdown();
        const std::lock_guard lock(got.mutex);
        CHECK(got.ids == sent);
        for (const auto& [queue, offsets] : got.by_queue) {
            INFO(queue);
            CHECK(std::is_sorted(offsets.begin(), offsets.end()));
        }
    }
}

TEST_CASE("TLS: a CA that did not sign the cluster's certificates fails with a verification error",
          "[realcluster][tls]") {
    if (!tls_cluster()) {
        return;
    }
    auto cfg = rmq_rc::config();
    cfg.tls.client_trust_cert_path = rmq_rc::env("RMQ_TLS_OTHER_CA");
    Transport transport{cfg};
    std::string what;
    try {
        (void)transport.topic_route("TBW102");
    } catch (const rmq::TlsError& e) {
        what = e.what();
    }
    INFO(what);
    CHECK(what.find("TLS handshake with " + rmq_rc::namesrv() + " failed") != std::string::npos);
    CHECK(what.find("certificate verify failed") != std::string::npos);
}

TEST_CASE("TLS: a plaintext client fails clearly at an enforcing cluster, works at a permissive one",
          "[realcluster][tls]") {
    if (!tls_cluster()) {
        return;
    }
    auto cfg = rmq_rc::config();
    cfg.tls.enable = false;
    Transport transport{cfg};
    if (rmq_rc::tls_mode() == "permissive") {
        CHECK(!transport.topic_route("TBW102").read_queues.empty());
        return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::string what = failure_of([&] { (void)transport.topic_route("TBW102"); });
    INFO(what);
    CHECK(what != "(no exception)");
    CHECK(what.find("closed by the peer") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));  // no hang
}
