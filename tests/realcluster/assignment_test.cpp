// rmq::AllocateByBroker over Apache RocketMQ 5.3.3 (2 brokers x 4 queues): two members that ask the broker
// (QUERY_ASSIGNMENT, strategy AVG) own disjoint queue sets covering the topic and consume it without loss or
// overlap, and subscribe the topic's POP retry topic while the broker assigns PULL (the broker's group sees
// it, mqadmin consumerConnection), not once it assigns POP; mqadmin setConsumeMode and rmq's
// SET_MESSAGE_REQUEST_MODE change what QUERY_ASSIGNMENT answers.
// Against 4.9.7 (RMQ_VERSION=4.9.7) the 5.x tests only warn, and the broker's refusal is checked to surface
// as rmq::AssignmentUnsupported.

#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cluster.hpp"
#include "round_trip.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/allocate/by_broker.hpp>
#include <rmq/assignment.hpp>
#include <rmq/consumer.hpp>
#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using namespace std::chrono_literals;
using Member =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateByBroker, rmq::RemoteOffsetStore, rmq::RemotingTransport>;

/// True on a 5.x cluster; on 4.x says loudly that the test did not run.
bool assignment_cluster() {
    if (rmq_rc::rocketmq_4x()) {
        WARN("Apache RocketMQ "
             << rmq_rc::env("RMQ_VERSION")
             << " has no broker-side assignment: this 5.x test did NOT run (the [assignment] "
                "refusal test covers 4.x)");
        return false;
    }
    return true;
}

struct Received {
    std::mutex mutex;
    std::multiset<std::string> ids;

    std::size_t distinct() {
        const std::lock_guard lock(mutex);
        return std::set<std::string>(ids.begin(), ids.end()).size();
    }
};

std::unique_ptr<Member>
make_member(const std::string& topic, const std::string& group, const std::string& name, Received& received) {
    auto cfg = rmq_rc::consumer_config();
    cfg.consumer_group = group;
    cfg.instance_name = name;
    auto c = std::make_unique<Member>(rmq::RemotingTransport{rmq_rc::config()}, cfg);
    c->subscribe(topic, "*");
    c->register_listener(
        [&received](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
            const std::lock_guard lock(received.mutex);
            for (const auto& m : msgs) {
                received.ids.insert(m.msg_id());
            }
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    c->start();
    return c;
}

std::set<rmq::MessageQueue> owned(const Member& m, const std::string& topic) {
    std::set<rmq::MessageQueue> out;
    for (const auto& mq : m.assigned_queues()) {
        if (mq.topic == topic) {
            out.insert(mq);
        }
    }
    return out;
}

/// A member of `group` as the brokers see it (a heartbeat of client `cid`), for queries without a consumer.
void register_member(rmq::RemotingTransport& t,
                     const std::string& cid,
                     const std::string& group,
                     const std::string& topic) {
    rmq::ConsumerData cd;
    cd.group_name = group;
    rmq::SubscriptionData sd;
    sd.topic = topic;
    cd.subscription_data_set.push_back(sd);
    (void)t.topic_route(topic);
    t.heartbeat(rmq::HeartbeatData{.client_id = cid, .consumer_data_set = {cd}, .producer_groups = {}});
}

/// The broker's subscription table of `group` as mqadmin consumerConnection prints it.
std::string consumer_connection(const std::string& group) {
    return rmq_rc::mqadmin_output(fmt::format("consumerConnection -g {}", group));
}

/// Whether consumerConnection's output lists `topic` ("%-20s %s": topic, space, expression).
bool lists(const std::string& out, const std::string& topic) {
    return out.find(fmt::format("\n{} ", topic)) != std::string::npos;
}

}  // namespace

TEST_CASE("assignment: two members with broker assignment consume a topic without loss or overlap",
          "[realcluster][assignment]") {
    if (!assignment_cluster()) {
        return;
    }
    const std::string topic = rmq_rc::unique("RcAssign");
    const std::string group = rmq_rc::unique("cg_assign");
    rmq_rc::create_topic(topic, 4);
    Received received;
    auto a = make_member(topic, group, "assign_a", received);
    auto b = make_member(topic, group, "assign_b", received);
    // Both members own queues, none twice, none left out (2 brokers x 4 queues).
    const auto split = [&] {
        const auto qa = owned(*a, topic);
        const auto qb = owned(*b, topic);
        std::set<rmq::MessageQueue> all(qa.begin(), qa.end());
        all.insert(qb.begin(), qb.end());
        return qa.size() == 4 && qb.size() == 4 && all.size() == 8;
    };
    REQUIRE(rmq_rc::wait_until(split, 60s));
    // All queues PULL: both members subscribe %RETRY%<group>_<topic> (Java's updateMessageQueueAssignment).
    const auto pop_retry = rmq::pop_retry_topic(topic, group);
    CHECK(rmq_rc::wait_until([&] { return lists(consumer_connection(group), pop_retry); }, 60s));

    constexpr int n = 400;
    rmq::RemotingTransport producer_transport{rmq_rc::config()};
    const auto sent = rmq_rc::produce(producer_transport, topic, n, rmq_rc::unique("pg_assign"), "assign");
    REQUIRE(rmq_rc::wait_until([&] { return received.distinct() == sent.size(); }, 90s));
    CHECK(split());  // the assignment held through the run
    {
        const std::lock_guard lock(received.mutex);
        CHECK(received.ids.size() == sent.size());  // no message twice
        CHECK(std::set<std::string>(received.ids.begin(), received.ids.end()) == sent);
    }
    // All queues POP: the members drop the POP retry subscription, their heartbeats remove it at the broker.
    // (The switch may deliver again what was pulled but not yet committed: counted above, before it.)
    rmq_rc::mqadmin(fmt::format("setConsumeMode -c DefaultCluster -t {} -g {} -m POP -q 0", topic, group));
    // The topic listed too: an answer, not a failed mqadmin (it may time out on a loaded machine).
    CHECK(rmq_rc::wait_until(
        [&] {
            const auto out = consumer_connection(group);
            return lists(out, topic) && !lists(out, pop_retry);
        },
        60s));
    a->shutdown();
    b->shutdown();
}

TEST_CASE("assignment: setConsumeMode POP (mqadmin) and SET_MESSAGE_REQUEST_MODE PULL change the answer",
          "[realcluster][assignment]") {
    if (!assignment_cluster()) {
        return;
    }
    const std::string topic = rmq_rc::unique("RcAssignMode");
    const std::string group = rmq_rc::unique("cg_mode");
    rmq_rc::create_topic(topic, 2);
    rmq::RemotingTransport t{rmq_rc::config()};
    register_member(t, "127.0.0.1@assign_mode", group, topic);
    const rmq::QueryAssignmentArgs query{.topic = topic,
                                         .consumer_group = group,
                                         .client_id = "127.0.0.1@assign_mode",
                                         .strategy_name = "AVG",
                                         .message_model = rmq::MessageModel::Clustering};
    const auto answer_is = [&](rmq::MessageRequestMode mode, std::size_t count) {
        const auto got = t.query_assignment(query);
        if (!got || got->size() != count) {
            return false;
        }
        for (const auto& a : *got) {
            if (a.mode != mode) {
                return false;
            }
        }
        return true;
    };
    REQUIRE(rmq_rc::wait_until([&] { return answer_is(rmq::MessageRequestMode::Pull, 4); }, 30s));

    rmq_rc::mqadmin(fmt::format("setConsumeMode -c DefaultCluster -t {} -g {} -m POP -q 0", topic, group));
    // popShareQueueNum 0: the member pops every queue of each broker, one entry per broker (queue id -1).
    REQUIRE(rmq_rc::wait_until([&] { return answer_is(rmq::MessageRequestMode::Pop, 2); }, 30s));
    for (const auto& a : *t.query_assignment(query)) {
        CHECK(a.message_queue.queue_id == -1);
    }

    t.set_message_request_mode(rmq::SetMessageRequestModeArgs{.topic = topic,
                                                              .consumer_group = group,
                                                              .mode = rmq::MessageRequestMode::Pull,
                                                              .pop_share_queue_num = 0});
    CHECK(rmq_rc::wait_until([&] { return answer_is(rmq::MessageRequestMode::Pull, 4); }, 30s));
    // A strategy the broker does not know: no answer (the member keeps its queues).
    auto unknown = query;
    unknown.strategy_name = "NO_SUCH_STRATEGY";
    CHECK_FALSE(t.query_assignment(unknown).has_value());
}

TEST_CASE("assignment: a 4.x broker refuses QUERY_ASSIGNMENT with AssignmentUnsupported",
          "[realcluster][assignment]") {
    if (!rmq_rc::rocketmq_4x()) {
        WARN("the cluster runs RocketMQ 5.x, which has broker-side assignment: the 4.x refusal test did NOT "
             "run "
             "(RMQ_VERSION=4.9.7 tools/broker-test.sh \"[assignment]\")");
        return;
    }
    const std::string topic = rmq_rc::unique("RcAssign4x");
    rmq_rc::create_topic(topic, 2);
    rmq::RemotingTransport t{rmq_rc::config()};
    const rmq::QueryAssignmentArgs query{.topic = topic,
                                         .consumer_group = rmq_rc::unique("cg_assign4x"),
                                         .client_id = "127.0.0.1@assign4x",
                                         .strategy_name = "AVG",
                                         .message_model = rmq::MessageModel::Clustering};
    try {
        (void)t.query_assignment(query);
        FAIL("query_assignment did not throw on " << rmq_rc::env("RMQ_VERSION"));
    } catch (const rmq::AssignmentUnsupported& e) {
        INFO(e.what());
        CHECK(e.code() == rmq::response_code::request_code_not_supported);
        CHECK_THAT(e.what(), Catch::Contains("QUERY_ASSIGNMENT") && Catch::Contains("5.x"));
    }
    CHECK_THROWS_AS(t.set_message_request_mode(rmq::SetMessageRequestModeArgs{
                        .topic = topic, .consumer_group = query.consumer_group}),
                    rmq::AssignmentUnsupported);
}
