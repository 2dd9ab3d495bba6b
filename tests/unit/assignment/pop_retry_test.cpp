// The POP retry subscription under rmq::AllocateByBroker on the embedded broker (Java 5.x's
// updateMessageQueueAssignment): a topic assigned only in PULL mode adds `%RETRY%<group>_<topic>` to the
// member's subscriptions, so its heartbeat carries it and the queue table pulls what POP left there; a topic
// assigned only in POP mode removes it.

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <consumer_fixture.hpp>

#include <catch2/catch.hpp>

#include <rmq/allocate/by_broker.hpp>
#include <rmq/assignment.hpp>
#include <rmq/consumer.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/pop.hpp>
#include <rmq/transport/in_process.hpp>

namespace assignment_pop_retry_test {

namespace {

constexpr const char* topic = "PopRetryTopic";
constexpr const char* group = "pop_retry_group";
constexpr int queue_count = 4;

using Member =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateByBroker, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

std::unique_ptr<Member> start_member(rmq::InProcessBroker& broker,
                                     consumer_fixture::BasicRecorder<60>& rec,
                                     std::vector<std::string>& seen) {
    auto m = std::make_unique<Member>(broker.connect(), consumer_fixture::fast_config(group, 1000));
    m->subscribe(topic, "*");
    m->register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        rec.update([&] {
            for (const auto& msg : msgs) {
                seen.push_back(msg.body());
            }
        });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    m->start();
    return m;
}

/// Whether the single member's last heartbeat (as the broker keeps it) subscribes `name`.
bool heartbeat_subscribes(rmq::InProcessBroker& broker, const std::string& name) {
    const auto members = broker.group_members(group);
    if (members.size() != 1) {
        return false;
    }
    const auto& subs = members.front().consumer_data.subscription_data_set;
    return std::any_of(
        subs.begin(), subs.end(), [&](const rmq::SubscriptionData& sd) { return sd.topic == name; });
}

void set_mode(rmq::InProcessBroker& broker, rmq::MessageRequestMode mode) {
    broker.connect().set_message_request_mode(rmq::SetMessageRequestModeArgs{
        .topic = topic, .consumer_group = group, .mode = mode, .pop_share_queue_num = 0});
}

bool eventually(const std::function<bool()>& done) {
    return consumer_fixture::eventually(done, std::chrono::seconds(30));
}

}  // namespace

TEST_CASE("a topic assigned in PULL mode subscribes its POP retry topic, in POP mode it does not",
          "[assignment][consumer][pop_retry]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, queue_count);
    consumer_fixture::BasicRecorder<60> rec;
    std::vector<std::string> seen;
    const auto retry = rmq::pop_retry_topic(topic, group);
    REQUIRE(retry == "%RETRY%pop_retry_group_PopRetryTopic");
    auto member = start_member(broker, rec, seen);

    // The broker's default mode is PULL: the heartbeat carries the POP retry topic beside the topic.
    REQUIRE(eventually(
        [&] { return heartbeat_subscribes(broker, topic) && heartbeat_subscribes(broker, retry); }));
    CHECK(broker.subscription(group, retry).has_value());

    set_mode(broker, rmq::MessageRequestMode::Pop);
    REQUIRE(eventually([&] { return !heartbeat_subscribes(broker, retry); }));
    CHECK(heartbeat_subscribes(broker, topic));

    set_mode(broker, rmq::MessageRequestMode::Pull);  // back from POP: subscribed again
    REQUIRE(eventually([&] { return heartbeat_subscribes(broker, retry); }));
    member->shutdown();
}

TEST_CASE("a member assigned in PULL mode consumes what waits in the POP retry topic",
          "[assignment][consumer][pop_retry]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, queue_count);
    const auto retry = rmq::pop_retry_topic(topic, group);
    broker.create_topic(retry, 1);
    (void)broker.connect().send(rmq::Message(retry, "TagA", "left by POP"), broker.queue(retry, 0));
    consumer_fixture::BasicRecorder<60> rec;
    std::vector<std::string> seen;
    auto member = start_member(broker, rec, seen);
    REQUIRE(rec.wait([&] { return !seen.empty(); }));
    member->shutdown();
    CHECK(rec.read([&] { return seen; }) == std::vector<std::string>{"left by POP"});
}

}  // namespace assignment_pop_retry_test
