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
#include "round_trip.hpp"

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
    const auto sent = rmq_rc::produce(transport, topic, n, rmq_rc::unique("tpg"), "tls");
    REQUIRE(sent.size() == n);

    SECTION("concurrently") {
        rmq_rc::consume_all<false>(transport,
                                   {.consumer_group = rmq_rc::unique("tcg"),
                                    .consume_from_where = rmq::ConsumeFromWhere::FirstOffset},
                                   topic,
                                   sent);
    }
    SECTION("orderly") {
        rmq_rc::consume_all<true>(transport,
                                  {.consumer_group = rmq_rc::unique("tog"),
                                   .consume_from_where = rmq::ConsumeFromWhere::FirstOffset},
                                  topic,
                                  sent);
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
