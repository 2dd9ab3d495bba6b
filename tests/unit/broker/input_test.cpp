// Bad input to the embedded broker gets a clear error and changes nothing.

#include <future>
#include <string>

#include "broker_test_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/transport/in_process.hpp>

using broker_test::Fixture;

namespace {

template <class F>
int broker_error_code(F&& f) {
    try {
        f();
    } catch (const rmq::BrokerError& e) {
        return e.code();
    }
    return -1;
}

}  // namespace

TEST_CASE("broker: sends to unknown topics auto-create them unless disabled") {
    Fixture f;
    const auto r = f.transport->send(rmq::Message("NewTopic", "body"), f.mq(3, "NewTopic"));
    CHECK(r.queue_offset == 0);
    CHECK(f.transport->topic_route("NewTopic").write_queues.size() == 4);

    rmq::BrokerConfig config;
    config.auto_create_topic_enable = false;
    Fixture g(config);
    CHECK(broker_error_code([&] {
              g.transport->send(rmq::Message("NewTopic", "body"), g.mq(0, "NewTopic"));
          }) == rmq::response_code::topic_not_exist);
    CHECK_FALSE(g.broker->has_topic("NewTopic"));
    CHECK_FALSE(g.broker->has_topic("TBW102"));
}

TEST_CASE("broker: oversized messages are MESSAGE_ILLEGAL") {
    rmq::BrokerConfig config;
    config.max_message_size = 1024;
    Fixture f(config);
    CHECK(broker_error_code([&] { f.send(0, "TagA", std::string(1025, 'x')); }) ==
          rmq::response_code::message_illegal);
    CHECK(f.broker->max_offset(f.mq(0)) == 0);
    f.send(0, "TagA", std::string(1024, 'x'));
    CHECK(f.broker->max_offset(f.mq(0)) == 1);

    Fixture d;
    CHECK(d.broker->config().max_message_size == 4 * 1024 * 1024);
    CHECK(broker_error_code([&] { d.send(0, "TagA", std::string(4 * 1024 * 1024 + 1, 'x')); }) ==
          rmq::response_code::message_illegal);
}

TEST_CASE("broker: bad topic names, forbidden topics, foreign or illegal queues") {
    Fixture f;
    CHECK(broker_error_code([&] {
              f.transport->send(rmq::Message("bad topic", "b"), f.mq(0, "bad topic"));
          }) == rmq::response_code::system_error);
    CHECK_FALSE(f.broker->has_topic("bad topic"));
    CHECK(broker_error_code([&] { f.transport->send(rmq::Message("TBW102", "b"), f.mq(0, "TBW102")); }) ==
          rmq::response_code::no_permission);
    CHECK(broker_error_code([&] { f.send(4, "TagA"); }) == rmq::response_code::system_error);
    CHECK(broker_error_code([&] { f.send(-1, "TagA"); }) == rmq::response_code::system_error);
    CHECK_THROWS_AS(
        f.transport->send(rmq::Message("TopicTest", "b"), rmq::MessageQueue{"TopicTest", "broker-b", 0}),
        rmq::InvalidArgument);
    CHECK_THROWS_AS(f.transport->send(rmq::Message("Other", "b"), f.mq(0)), rmq::InvalidArgument);
    CHECK_THROWS_AS(f.transport->max_offset(rmq::MessageQueue{"TopicTest", "broker-b", 0}),
                    rmq::InvalidArgument);
    CHECK(f.broker->max_offset(f.mq(0)) == 0);
    CHECK_THROWS_AS(f.broker->create_topic("bad topic", 1), rmq::InvalidArgument);
    CHECK_THROWS_AS(f.broker->create_topic("T", 0), rmq::InvalidArgument);
    CHECK_THROWS_AS(f.transport->update_consumer_offset("bad group", f.mq(0), 1), rmq::InvalidArgument);
    CHECK_THROWS_AS(f.transport->lock_batch("", "c1", {f.mq(0)}), rmq::InvalidArgument);

    rmq::HeartbeatData hb;
    hb.client_id = "c1";
    rmq::ConsumerData cd;
    cd.group_name = "bad group";
    hb.consumer_data_set.push_back(cd);
    CHECK_THROWS_AS(f.transport->heartbeat(hb), rmq::InvalidArgument);
    CHECK(f.broker->group_members("bad group").empty());
    hb.client_id.clear();
    CHECK_THROWS_AS(f.transport->heartbeat(hb), rmq::InvalidArgument);
}

TEST_CASE("broker: a bad configuration is rejected") {
    rmq::BrokerConfig c1;
    c1.default_topic_queue_nums = 0;
    CHECK_THROWS_AS(rmq::InProcessBroker(c1), rmq::InvalidArgument);
    rmq::BrokerConfig c2;
    c2.broker_name.clear();
    CHECK_THROWS_AS(rmq::InProcessBroker(c2), rmq::InvalidArgument);
}

TEST_CASE("broker: drain from a callback is refused") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");
    std::promise<bool> refused;
    auto fut = refused.get_future();
    f.transport->pull(f.args(0, 0), [&](rmq::Outcome<rmq::PullResult>) {
        try {
            f.broker->drain();
            refused.set_value(false);
        } catch (const rmq::IllegalState&) {
            refused.set_value(true);
        }
    });
    CHECK(fut.get());
}

TEST_CASE("broker: injected failures hit the next requests of one kind, then stop") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");
    f.broker->inject_failure(rmq::BrokerRequest::Pull, rmq::response_code::system_busy, 2);
    CHECK(f.pull(f.args(0, 0)).code() == rmq::response_code::system_busy);
    CHECK(f.pull(f.args(0, 0)).code() == rmq::response_code::system_busy);
    CHECK(f.pull(f.args(0, 0)).ok());

    f.broker->inject_failure(rmq::BrokerRequest::Send, rmq::response_code::system_error);
    CHECK(broker_error_code([&] { f.send(0, "TagA"); }) == rmq::response_code::system_error);
    CHECK(f.broker->max_offset(f.mq(0)) == 0);
    f.send(0, "TagA");
    CHECK(f.broker->max_offset(f.mq(0)) == 1);

    f.broker->inject_failure(rmq::BrokerRequest::LockBatch, rmq::response_code::system_error, 5);
    CHECK(broker_error_code([&] { f.transport->lock_batch("G", "c1", {f.mq(0)}); }) ==
          rmq::response_code::system_error);
    f.broker->inject_failure(rmq::BrokerRequest::LockBatch, 0, 0);  // cleared
    CHECK(f.transport->lock_batch("G", "c1", {f.mq(0)}).size() == 1);

    f.broker->inject_failure(rmq::BrokerRequest::QueryConsumerOffset, rmq::response_code::query_not_found);
    CHECK(broker_error_code([&] { (void)f.transport->query_consumer_offset("G", f.mq(0)); }) ==
          rmq::response_code::query_not_found);
    f.broker->inject_failure(rmq::BrokerRequest::TopicRoute, rmq::response_code::topic_not_exist);
    CHECK(broker_error_code([&] { (void)f.transport->topic_route("TopicTest"); }) ==
          rmq::response_code::topic_not_exist);
    f.broker->inject_failure(rmq::BrokerRequest::ConsumerIdList, rmq::response_code::system_error);
    CHECK(broker_error_code([&] { (void)f.transport->consumer_id_list("TopicTest", "G"); }) ==
          rmq::response_code::system_error);
    CHECK(f.transport->consumer_id_list("TopicTest", "G").size() == 1);
}

TEST_CASE("broker: group members are visible through the transport too") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "TagA");
    const auto members = f.transport->group_members("G");
    REQUIRE(members.size() == 1);
    CHECK(members[0].client_id == "c1");
    REQUIRE(members[0].consumer_data.subscription_data_set.size() == 1);
    CHECK(members[0].consumer_data.subscription_data_set[0].sub_string == "TagA");
}
