// Group membership, notifications and orderly locks of the embedded broker (docs/embedded-broker.md).

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "broker_test_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/transport/in_process.hpp>

using broker_test::Fixture;

namespace {

/// Records the groups of the notifications one connection receives.
struct Notifications {
    std::shared_ptr<std::mutex> mutex = std::make_shared<std::mutex>();
    std::shared_ptr<std::vector<std::string>> groups = std::make_shared<std::vector<std::string>>();

    rmq::NotificationHandler handler() {
        return [m = mutex, g = groups](const rmq::ConsumerIdsChanged& e) {
            const std::lock_guard lock(*m);
            g->push_back(e.consumer_group);
        };
    }

    std::vector<std::string> take() {
        const std::lock_guard lock(*mutex);
        auto out = *groups;
        groups->clear();
        return out;
    }
};

rmq::HeartbeatData
heartbeat(const std::string& client, const std::string& group, std::vector<rmq::SubscriptionData> subs) {
    rmq::HeartbeatData hb;
    hb.client_id = client;
    rmq::ConsumerData cd;
    cd.group_name = group;
    cd.subscription_data_set = std::move(subs);
    hb.consumer_data_set.push_back(cd);
    return hb;
}

rmq::SubscriptionData sub(const std::string& topic, const std::string& expr, std::int64_t version) {
    auto s = rmq::parse_subscription(topic, expr);
    s.sub_version = version;
    return s;
}

}  // namespace

TEST_CASE("broker: heartbeats register members, consumer ids and the retry topic") {
    Fixture f;
    auto t1 = f.broker->connect();
    auto t2 = f.broker->connect();
    Notifications n1;
    Notifications n2;
    t1.set_notification_handler(n1.handler());
    t2.set_notification_handler(n2.handler());

    CHECK_THROWS_AS(t1.consumer_id_list("TopicTest", "G"), rmq::BrokerError);
    t1.heartbeat(heartbeat("c1", "G", {sub("TopicTest", "*", 1)}));
    f.broker->drain();
    CHECK(n1.take() == std::vector<std::string>{"G"});  // a new channel is a change
    CHECK(t1.consumer_id_list("TopicTest", "G") == std::vector<std::string>{"c1"});
    CHECK(f.broker->has_topic("%RETRY%G"));
    CHECK(t1.topic_route("%RETRY%G").read_queues.size() == 1);

    t2.heartbeat(heartbeat("c2", "G", {sub("TopicTest", "*", 1)}));
    f.broker->drain();
    CHECK(n1.take() == std::vector<std::string>{"G"});
    CHECK(n2.take() == std::vector<std::string>{"G"});
    CHECK(t2.consumer_id_list("TopicTest", "G") == std::vector<std::string>{"c1", "c2"});

    // A repeated heartbeat with nothing new notifies nobody.
    t1.heartbeat(heartbeat("c1", "G", {sub("TopicTest", "*", 1)}));
    f.broker->drain();
    CHECK(n1.take().empty());
    CHECK(n2.take().empty());

    const auto members = f.broker->group_members("G");
    REQUIRE(members.size() == 2);
    CHECK(members[0].client_id == "c1");
    CHECK(members[0].consumer_data.group_name == "G");
    REQUIRE(members[0].consumer_data.subscription_data_set.size() == 1);

    t2.unregister_client("c2", "", "G");
    f.broker->drain();
    CHECK(n1.take() == std::vector<std::string>{"G"});
    CHECK(n2.take().empty());
    CHECK(t1.consumer_id_list("TopicTest", "G") == std::vector<std::string>{"c1"});
    t1.unregister_client("c1", "", "G");
    CHECK(f.broker->group_members("G").empty());
    CHECK_THROWS_AS(t1.consumer_id_list("TopicTest", "G"), rmq::BrokerError);
}

TEST_CASE("broker: one subscription per (group, topic) - the newest sub_version wins") {
    Fixture f;
    auto t1 = f.broker->connect();
    auto t2 = f.broker->connect();
    Notifications n1;
    t1.set_notification_handler(n1.handler());
    t1.heartbeat(heartbeat("c1", "G", {sub("TopicTest", "TagA", 100)}));
    t2.heartbeat(heartbeat("c2", "G", {sub("TopicTest", "TagB", 200)}));
    CHECK(f.broker->subscription("G", "TopicTest")->sub_string == "TagB");
    t1.heartbeat(heartbeat("c1", "G", {sub("TopicTest", "TagA", 150)}));  // older: ignored
    CHECK(f.broker->subscription("G", "TopicTest")->sub_string == "TagB");
    // Seed 004's pitfall: c1's queues are filtered with c2's TagB.
    f.send(0, "TagA");
    f.send(0, "TagB");
    const auto r = f.pull(f.args(0, 0));
    REQUIRE(r.ok());
    REQUIRE(r.value().msg_found_list.size() == 1);
    CHECK(r.value().msg_found_list[0].tags() == "TagB");
    CHECK(r.value().next_begin_offset == 2);

    f.broker->drain();
    n1.take();
    // A heartbeat without the topic removes it (and is a change).
    f.broker->create_topic("Other", 1);
    t2.heartbeat(heartbeat("c2", "G", {sub("Other", "*", 300)}));
    f.broker->drain();
    CHECK_FALSE(f.broker->subscription("G", "TopicTest").has_value());
    CHECK(f.broker->subscription("G", "Other").has_value());
    CHECK(n1.take() == std::vector<std::string>{"G"});
    CHECK(f.pull(f.args(0, 0)).code() == rmq::response_code::subscription_not_exist);
}

TEST_CASE("broker: clients expire after channel_expired_timeout without heartbeat") {
    Fixture f;
    auto t1 = f.broker->connect();
    auto t2 = f.broker->connect();
    Notifications n1;
    t1.set_notification_handler(n1.handler());
    t1.heartbeat(heartbeat("c1", "G", {sub("TopicTest", "*", 1)}));
    t2.heartbeat(heartbeat("c2", "G", {sub("TopicTest", "*", 1)}));
    f.broker->drain();
    n1.take();
    f.clock->advance(rmq::Millis(60000));
    t1.heartbeat(heartbeat("c1", "G", {sub("TopicTest", "*", 1)}));
    f.clock->advance(rmq::Millis(60000));
    f.broker->drain();
    CHECK(t1.consumer_id_list("TopicTest", "G").size() == 2);  // 120000 is not yet "older than"
    CHECK(n1.take().empty());
    f.clock->advance(rmq::Millis(1));
    f.broker->drain();
    CHECK(t1.consumer_id_list("TopicTest", "G") == std::vector<std::string>{"c1"});
    CHECK(n1.take() == std::vector<std::string>{"G"});
    f.clock->advance(rmq::Millis(60000));
    f.broker->drain();
    CHECK(f.broker->group_members("G").empty());
}

TEST_CASE("broker: closing a connection removes its clients and notifies the others") {
    Fixture f;
    auto t1 = f.broker->connect();
    Notifications n1;
    t1.set_notification_handler(n1.handler());
    t1.heartbeat(heartbeat("c1", "G", {sub("TopicTest", "*", 1)}));
    {
        auto t2 = f.broker->connect();
        t2.heartbeat(heartbeat("c2", "G", {sub("TopicTest", "*", 1)}));
        auto copy = t2;  // copies share the connection
        f.broker->drain();
        n1.take();
    }
    f.broker->drain();
    CHECK(t1.consumer_id_list("TopicTest", "G") == std::vector<std::string>{"c1"});
    CHECK(n1.take() == std::vector<std::string>{"G"});
}

TEST_CASE("broker: notifications can be turned off") {
    rmq::BrokerConfig config;
    config.notify_consumer_ids_changed_enable = false;
    Fixture f(config);
    Notifications n;
    f.transport->set_notification_handler(n.handler());
    f.transport->heartbeat(heartbeat("c1", "G", {sub("TopicTest", "*", 1)}));
    f.broker->drain();
    CHECK(n.take().empty());
}

TEST_CASE("broker: orderly locks are granted, denied, renewed and expire") {
    Fixture f;
    auto& t = *f.transport;
    const std::vector<rmq::MessageQueue> q01{f.mq(0), f.mq(1)};
    CHECK(t.lock_batch("G", "c1", q01) == q01);
    CHECK(f.broker->lock_owner("G", f.mq(0)) == "c1");
    CHECK(t.lock_batch("G", "c2", q01).empty());
    CHECK(t.lock_batch("G", "c2", {f.mq(1), f.mq(2)}) == std::vector<rmq::MessageQueue>{f.mq(2)});
    CHECK(t.lock_batch("H", "c2", q01) == q01);  // locks are per group
    CHECK(t.lock_batch("G", "c1", q01) == q01);  // renewal by the holder

    f.clock->advance(rmq::Millis(40000));
    CHECK(t.lock_batch("G", "c1", {f.mq(0)}) == std::vector<rmq::MessageQueue>{f.mq(0)});  // renews q0 only
    f.clock->advance(rmq::Millis(20000));
    CHECK(t.lock_batch("G", "c2", {f.mq(1)}).empty());  // 60000 is not yet expired
    f.clock->advance(rmq::Millis(1));
    CHECK(t.lock_batch("G", "c2", q01) == std::vector<rmq::MessageQueue>{f.mq(1)});  // q1 taken over
    CHECK(f.broker->lock_owner("G", f.mq(1)) == "c2");

    t.unlock_batch("G", "c2", {f.mq(0)});  // not c2's: stays
    CHECK(f.broker->lock_owner("G", f.mq(0)) == "c1");
    t.unlock_batch("G", "c1", {f.mq(0)});
    CHECK_FALSE(f.broker->lock_owner("G", f.mq(0)).has_value());
    CHECK(t.lock_batch("G", "c2", {f.mq(0)}) == std::vector<rmq::MessageQueue>{f.mq(0)});
    CHECK(f.broker->lock_requests("G") == 8);  // granted or not, renewals included; per group
    CHECK(f.broker->lock_requests("H") == 1);
    CHECK(f.broker->lock_requests("none") == 0);
}

TEST_CASE("broker: topic routes list read and write queues of this broker") {
    Fixture f;
    const auto route = f.transport->topic_route("TopicTest");
    REQUIRE(route.read_queues.size() == 4);
    REQUIRE(route.write_queues.size() == 4);
    CHECK(route.write_queues[3] == f.mq(3));
    CHECK_THROWS_AS(f.transport->topic_route("Nope"), rmq::BrokerError);
    try {
        f.transport->topic_route("Nope");
    } catch (const rmq::BrokerError& e) {
        CHECK(e.code() == rmq::response_code::topic_not_exist);
    }
    CHECK(f.transport->topic_route("TBW102").write_queues.size() == 4);
    CHECK(f.transport->clock() == f.clock);
}
