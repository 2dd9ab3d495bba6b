// rmq::SimpleConsumer<RemotingTransport> (5.x POP) against Apache RocketMQ 5.3.3: every produced message
// received and acked once; a message not acked comes back after its invisible time (from the pop retry
// topic, reconsume times 1); a changed invisible time postpones it; messages acked by BATCH_ACK_MESSAGE
// (ack(span)) do not come back. Against 4.9.7 (RMQ_VERSION=4.9.7) the
// 5.x tests only warn, and the broker's refusal is checked to surface as rmq::PopUnsupported.

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "cluster.hpp"
#include "round_trip.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using namespace std::chrono_literals;
using Consumer = rmq::SimpleConsumer<rmq::RemotingTransport>;

/// True on a 5.x cluster; on 4.x says loudly that the test did not run.
bool pop_cluster() {
    if (rmq_rc::rocketmq_4x()) {
        WARN("Apache RocketMQ "
             << rmq_rc::env("RMQ_VERSION")
             << " has no POP: this 5.x test did NOT run (the [pop] refusal test covers 4.x)");
        return false;
    }
    return true;
}

rmq::SimpleConsumerConfig pop_config() {
    // A short await: each receive visits both brokers, and an empty one should not hold the test up long.
    return rmq::SimpleConsumerConfig{.consumer_group = rmq_rc::unique("popg"), .await_duration = 1000};
}

/// Receives until `pred` holds for a received message (acking the others when `ack_others`); the message.
std::optional<rmq::MessageExt> receive_until(Consumer& c,
                                             std::chrono::milliseconds invisible,
                                             std::chrono::seconds timeout,
                                             const std::function<bool(const rmq::MessageExt&)>& pred) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        for (auto& m : c.receive(32, invisible)) {
            if (pred(m)) {
                return m;
            }
        }
    }
    return std::nullopt;
}

}  // namespace

TEST_CASE("pop: every produced message is received and acked once", "[realcluster][pop]") {
    if (!pop_cluster()) {
        return;
    }
    const std::string topic = rmq_rc::unique("RcPop");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    constexpr int n = 40;
    (void)rmq_rc::produce(transport, topic, n, rmq_rc::unique("pg"), "pop");
    Consumer c(transport, pop_config());
    c.subscribe(topic);
    std::multiset<std::string> bodies;
    const bool all = rmq_rc::wait_until(
        [&] {
            for (const auto& m : c.receive(32, 10s)) {
                CHECK(m.topic() == topic);
                CHECK(m.reconsume_times() == 0);
                bodies.insert(m.body());
                c.ack(m);
            }
            return bodies.size() >= n;
        },
        90s);
    INFO("received " << bodies.size() << " of " << n);
    CHECK(all);
    CHECK(bodies.size() == n);
    CHECK(std::set<std::string>(bodies.begin(), bodies.end()).size() == n);
    // Everything acked: nothing comes back, also well past the 10 s invisible time (a 5.x broker revives an
    // unacked message a few seconds after it).
    const bool redelivered = rmq_rc::wait_until([&] { return !c.receive(32, 10s).empty(); }, 25s);
    CHECK_FALSE(redelivered);
}

TEST_CASE("pop: a message not acked comes back after its invisible time", "[realcluster][pop]") {
    if (!pop_cluster()) {
        return;
    }
    const std::string topic = rmq_rc::unique("RcPopRedeliver");
    rmq_rc::create_topic(topic, 2);
    rmq::RemotingTransport transport{rmq_rc::config()};
    (void)rmq_rc::produce(transport, topic, 1, rmq_rc::unique("pg"), "redeliver");
    Consumer c(transport, pop_config());
    c.subscribe(topic);
    const auto first = receive_until(c, 5s, 60s, [](const auto&) { return true; });
    REQUIRE(first);
    const auto popped = std::chrono::steady_clock::now();
    CHECK(first->reconsume_times() == 0);
    const auto again =
        receive_until(c, 30s, 120s, [&](const rmq::MessageExt& m) { return m.body() == first->body(); });
    REQUIRE(again);
    CHECK(std::chrono::steady_clock::now() - popped >= 4s);  // not before its invisible time
    CHECK(again->reconsume_times() == 1);
    CHECK(again->topic() == topic);
    CHECK(rmq::PopReceipt::of(*again).retry);  // served from the pop retry topic
    c.ack(*again);
}

TEST_CASE("pop: change_invisible_duration postpones the redelivery", "[realcluster][pop]") {
    if (!pop_cluster()) {
        return;
    }
    const std::string topic = rmq_rc::unique("RcPopChange");
    rmq_rc::create_topic(topic, 2);
    rmq::RemotingTransport transport{rmq_rc::config()};
    (void)rmq_rc::produce(transport, topic, 1, rmq_rc::unique("pg"), "change");
    Consumer c(transport, pop_config());
    c.subscribe(topic);
    auto first = receive_until(c, 5s, 60s, [](const auto&) { return true; });
    REQUIRE(first);
    const auto old_receipt = rmq::PopReceipt::of(*first);
    c.change_invisible_duration(*first, 25s);
    const auto changed = std::chrono::steady_clock::now();
    const auto receipt = rmq::PopReceipt::of(*first);
    CHECK(receipt.invisible_time == 25000);
    CHECK(receipt.pop_time >= old_receipt.pop_time);
    CHECK(receipt.queue_offset == old_receipt.queue_offset);
    const auto again =
        receive_until(c, 30s, 150s, [&](const rmq::MessageExt& m) { return m.body() == first->body(); });
    REQUIRE(again);
    CHECK(std::chrono::steady_clock::now() - changed >= 20s);  // the 5 s of the pop no longer count
    CHECK(again->reconsume_times() == 1);
    c.ack(*again);
}

TEST_CASE("pop: messages batch-acked do not come back past their invisible time", "[realcluster][pop]") {
    if (!pop_cluster()) {
        return;
    }
    const std::string topic = rmq_rc::unique("RcPopBatchAck");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    constexpr int n = 60;
    (void)rmq_rc::produce(transport, topic, n, rmq_rc::unique("pg"), "batch");
    Consumer c(transport, pop_config());
    c.subscribe(topic);
    std::vector<rmq::MessageExt> got;
    const bool all = rmq_rc::wait_until(
        [&] {
            for (auto& m : c.receive(32, 10s)) {
                got.push_back(std::move(m));
            }
            return got.size() >= n;
        },
        60s);
    INFO("received " << got.size() << " of " << n);
    REQUIRE(all);
    std::set<std::string> brokers;
    for (const auto& m : got) {
        brokers.insert(rmq::PopReceipt::of(m).broker_name);
    }
    CHECK(brokers.size() == 2);  // one BATCH_ACK_MESSAGE per broker
    c.ack(got);                  // throws if a broker refused it
    // Acked: nothing comes back, also well past the 10 s invisible time (a 5.x broker revives an unacked
    // message a few seconds after it).
    std::vector<std::string> back;
    (void)rmq_rc::wait_until(
        [&] {
            for (const auto& m : c.receive(32, 10s)) {
                back.push_back(m.body());
            }
            return false;
        },
        25s);
    INFO("came back: " << back.size());
    CHECK(back.empty());
}

TEST_CASE("pop: a 4.x broker refuses BATCH_ACK_MESSAGE with PopUnsupported", "[realcluster][pop]") {
    if (!rmq_rc::rocketmq_4x()) {
        WARN("the cluster runs RocketMQ 5.x, which has BATCH_ACK_MESSAGE: the 4.x refusal test did NOT run "
             "(RMQ_VERSION=4.9.7 tools/broker-test.sh \"[pop]\")");
        return;
    }
    const std::string topic = rmq_rc::unique("RcPopBatch4x");
    rmq_rc::create_topic(topic, 2);
    rmq::RemotingTransport transport{rmq_rc::config()};
    Consumer c(transport, pop_config());
    c.subscribe(topic);
    // 4.x pops nothing: a receipt as a 5.x broker would write it, naming this cluster's broker.
    const auto broker = transport.topic_route(topic).read_queues.at(0).broker_name;
    rmq::MessageExt m;
    m.set_topic(topic);
    m.set_property(rmq::property::pop_ck, fmt::format("0 1700000000000 30000 0 0 {} 0 0", broker));
    const std::vector<rmq::MessageExt> batch{m};
    try {
        c.ack(batch);
        FAIL("ack did not throw on " << rmq_rc::env("RMQ_VERSION"));
    } catch (const rmq::PopUnsupported& e) {
        INFO(e.what());
        CHECK(e.code() == rmq::response_code::request_code_not_supported);
        CHECK_THAT(e.what(), Catch::Contains("BATCH_ACK_MESSAGE"));
    }
}

TEST_CASE("pop: a 4.x broker refuses POP with PopUnsupported", "[realcluster][pop]") {
    if (!rmq_rc::rocketmq_4x()) {
        WARN("the cluster runs RocketMQ 5.x, which has POP: the 4.x refusal test did NOT run "
             "(RMQ_VERSION=4.9.7 tools/broker-test.sh \"[pop]\")");
        return;
    }
    const std::string topic = rmq_rc::unique("RcPop4x");
    rmq_rc::create_topic(topic, 2);
    rmq::RemotingTransport transport{rmq_rc::config()};
    Consumer c(transport, pop_config());
    c.subscribe(topic);
    try {
        (void)c.receive(8, 30s);
        FAIL("receive did not throw on " << rmq_rc::env("RMQ_VERSION"));
    } catch (const rmq::PopUnsupported& e) {
        INFO(e.what());
        CHECK(e.code() == rmq::response_code::request_code_not_supported);
        CHECK_THAT(e.what(), Catch::Contains("does not support POP"));
    }
}
