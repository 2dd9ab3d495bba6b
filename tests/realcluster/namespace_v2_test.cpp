// Namespace v2 (RemotingConfig::namespace_v2): requests carry `nsd` and `ns`; a broker accepts them, and on
// an
// --acl cluster (the broker-secure stage) its authentication verifies signatures that cover them.

#include <string>

#include "cluster.hpp"
#include "round_trip.hpp"

#include <catch2/catch.hpp>

#include <rmq/transport/remoting.hpp>

TEST_CASE("namespace v2: produce and consume with nsd and ns on every request (signed on an ACL cluster)",
          "[realcluster][namespace_v2][acl]") {
    const std::string topic = rmq_rc::unique("RcNsV2");
    rmq_rc::create_topic(topic, 2);
    auto config = rmq_rc::config();
    config.namespace_v2 = "rmq-tenant";
    rmq::RemotingTransport transport{config};
    constexpr int n = 20;
    const auto sent = rmq_rc::produce(transport, topic, n, rmq_rc::unique("nspg"), "ns-v2");
    REQUIRE(sent.size() == n);
    rmq_rc::consume_all<false>(transport, rmq_rc::consumer_config(), topic, sent);
}
