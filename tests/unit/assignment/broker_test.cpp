// The embedded broker answers QUERY_ASSIGNMENT and SET_MESSAGE_REQUEST_MODE as a 5.3.3 broker's
// QueryAssignmentProcessor does: its two strategies over the group's live members, POP sharing, retry
// topics always PULL, no answer for what it does not know.

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/averagely_by_circle.hpp>
#include <rmq/assignment.hpp>
#include <rmq/error.hpp>
#include <rmq/transport/in_process.hpp>

namespace assignment_broker_test {

namespace {

constexpr const char* topic = "AssignTopic";
constexpr const char* group = "assign_group";
const std::vector<std::string> cids{"c1", "c2", "c3"};

/// Three members of `group`, each through its own connection (kept open: closing one removes its member).
std::vector<rmq::InProcessTransport> join(rmq::InProcessBroker& broker) {
    std::vector<rmq::InProcessTransport> out;
    for (const auto& cid : cids) {
        out.push_back(broker.connect());
        rmq::ConsumerData cd;
        cd.group_name = group;
        out.back().heartbeat(
            rmq::HeartbeatData{.client_id = cid, .consumer_data_set = {cd}, .producer_groups = {}});
    }
    return out;
}

std::optional<std::vector<rmq::MessageQueueAssignment>> query(rmq::InProcessTransport& tr,
                                                              const std::string& cid,
                                                              const std::string& strategy = "AVG",
                                                              const std::string& t = topic) {
    return tr.query_assignment(rmq::QueryAssignmentArgs{.topic = t,
                                                        .consumer_group = group,
                                                        .client_id = cid,
                                                        .strategy_name = strategy,
                                                        .message_model = rmq::MessageModel::Clustering});
}

std::vector<rmq::MessageQueue> queues_of(const std::vector<rmq::MessageQueueAssignment>& as,
                                         rmq::MessageRequestMode mode) {
    std::vector<rmq::MessageQueue> out;
    for (const auto& a : as) {
        CHECK(a.mode == mode);
        out.push_back(a.message_queue);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<rmq::MessageQueue> all_queues(rmq::InProcessBroker& broker, int n) {
    std::vector<rmq::MessageQueue> out;
    for (int i = 0; i < n; ++i) {
        out.push_back(broker.queue(topic, i));
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("QUERY_ASSIGNMENT splits the queues among the live members with the named strategy",
          "[assignment][broker]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, 8);
    auto members = join(broker);
    const auto mq_all = all_queues(broker, 8);
    for (const std::string strategy : {"AVG", "AVG_BY_CIRCLE"}) {
        INFO(strategy);
        std::set<rmq::MessageQueue> seen;
        for (const auto& cid : cids) {
            const auto got = query(members[0], cid, strategy);
            REQUIRE(got.has_value());
            const auto mine = queues_of(*got, rmq::MessageRequestMode::Pull);
            auto expected = strategy == "AVG"
                                ? rmq::AllocateAveragely{}.allocate(group, cid, mq_all, cids)
                                : rmq::AllocateAveragelyByCircle{}.allocate(group, cid, mq_all, cids);
            std::sort(expected.begin(), expected.end());
            CHECK(mine == expected);
            for (const auto& mq : mine) {
                CHECK(seen.insert(mq).second);  // no queue twice
            }
        }
        CHECK(seen.size() == mq_all.size());  // no queue left out
    }
}

TEST_CASE("QUERY_ASSIGNMENT has no answer for an unknown strategy, topic or group", "[assignment][broker]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, 4);
    auto members = join(broker);
    CHECK_FALSE(query(members[0], "c1", "CONSISTENT_HASH").has_value());
    CHECK_FALSE(query(members[0], "c1", "AVG", "NoSuchTopic").has_value());
    CHECK_FALSE(
        members[0]
            .query_assignment(rmq::QueryAssignmentArgs{.topic = topic,
                                                       .consumer_group = "nobody",
                                                       .client_id = "c1",
                                                       .strategy_name = "AVG",
                                                       .message_model = rmq::MessageModel::Clustering})
            .has_value());
    // A client id outside the group gets nothing (an empty answer, not "no answer").
    const auto stranger = query(members[0], "c9");
    REQUIRE(stranger.has_value());
    CHECK(stranger->empty());
}

TEST_CASE("QUERY_ASSIGNMENT for broadcasting gives every queue", "[assignment][broker]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, 4);
    auto members = join(broker);
    const auto got = members[1].query_assignment(
        rmq::QueryAssignmentArgs{.topic = topic,
                                 .consumer_group = group,
                                 .client_id = "c2",
                                 .strategy_name = "AVG",
                                 .message_model = rmq::MessageModel::Broadcasting});
    REQUIRE(got.has_value());
    CHECK(queues_of(*got, rmq::MessageRequestMode::Pull) == all_queues(broker, 4));
}

TEST_CASE("SET_MESSAGE_REQUEST_MODE makes QUERY_ASSIGNMENT answer POP, shared as popShareQueueNum says",
          "[assignment][broker]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, 6);
    auto members = join(broker);
    const auto mq_all = all_queues(broker, 6);
    members[0].set_message_request_mode(rmq::SetMessageRequestModeArgs{.topic = topic,
                                                                       .consumer_group = group,
                                                                       .mode = rmq::MessageRequestMode::Pop,
                                                                       .pop_share_queue_num = 1});
    // c1 pops its own queues (0,1) and those of the member after it (c2: 2,3).
    const auto shared = query(members[0], "c1");
    REQUIRE(shared.has_value());
    CHECK(queues_of(*shared, rmq::MessageRequestMode::Pop) ==
          std::vector<rmq::MessageQueue>(mq_all.begin(), mq_all.begin() + 4));

    members[0].set_message_request_mode(rmq::SetMessageRequestModeArgs{.topic = topic,
                                                                       .consumer_group = group,
                                                                       .mode = rmq::MessageRequestMode::Pop,
                                                                       .pop_share_queue_num = 0});
    const auto everything = query(members[2], "c3");
    REQUIRE(everything.has_value());
    CHECK(queues_of(*everything, rmq::MessageRequestMode::Pop) ==
          std::vector<rmq::MessageQueue>{rmq::MessageQueue{topic, broker.queue(topic, 0).broker_name, -1}});

    members[0].set_message_request_mode(rmq::SetMessageRequestModeArgs{.topic = topic,
                                                                       .consumer_group = group,
                                                                       .mode = rmq::MessageRequestMode::Pull,
                                                                       .pop_share_queue_num = 0});
    const auto back = query(members[0], "c1");
    REQUIRE(back.has_value());
    CHECK(queues_of(*back, rmq::MessageRequestMode::Pull).size() == 2);
}

TEST_CASE("a retry topic is always PULL and refuses SET_MESSAGE_REQUEST_MODE", "[assignment][broker]") {
    rmq::BrokerConfig config;
    config.default_message_request_mode = rmq::MessageRequestMode::Pop;
    rmq::InProcessBroker broker(config);
    broker.create_topic(topic, 2);
    const std::string retry = std::string("%RETRY%") + group;
    broker.create_topic(retry, 1);
    auto members = join(broker);
    const auto normal = query(members[0], "c1");
    REQUIRE(normal.has_value());
    CHECK(queues_of(*normal, rmq::MessageRequestMode::Pop).size() == 1);  // default POP, share -1: all
    const auto got = query(members[0], "c1", "AVG", retry);
    REQUIRE(got.has_value());
    CHECK(queues_of(*got, rmq::MessageRequestMode::Pull).size() == 1);
    CHECK_THROWS_AS(members[0].set_message_request_mode(rmq::SetMessageRequestModeArgs{
                        .topic = retry, .consumer_group = group, .mode = rmq::MessageRequestMode::Pop}),
                    rmq::AccessDenied);
    try {
        members[0].set_message_request_mode(
            rmq::SetMessageRequestModeArgs{.topic = "NoSuchTopic", .consumer_group = group});
        FAIL("no error for an unknown topic");
    } catch (const rmq::BrokerError& e) {
        CHECK(e.code() == rmq::response_code::topic_not_exist);
    }
}

TEST_CASE("QUERY_ASSIGNMENT fails as injected", "[assignment][broker]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, 2);
    auto members = join(broker);
    broker.inject_failure(rmq::BrokerRequest::QueryAssignment, rmq::response_code::system_error);
    CHECK_THROWS_AS(query(members[0], "c1"), rmq::BrokerError);
    CHECK(query(members[0], "c1").has_value());
}

}  // namespace assignment_broker_test
