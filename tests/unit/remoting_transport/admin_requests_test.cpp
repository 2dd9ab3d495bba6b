// rmq::RemotingTransport answering a broker's admin requests through a registered rmq::AdminHandler:
// GET_CONSUMER_RUNNING_INFO (307), RESET_CONSUMER_CLIENT_OFFSET (220), GET_CONSUMER_STATUS_FROM_CLIENT (221)
// and CONSUME_MESSAGE_DIRECTLY (309), in the JSON Java's admin tools read.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <rmq/admin.hpp>
#include <rmq/remoting/bodies.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;

static_assert(rmq::HasAdminHandler<rmq::RemotingTransport>);

/// A transport heartbeating group "cg" to one fake broker, and that broker's session to send requests on.
struct Fixture {
    rmq_test::FakeServer server;
    rmq::RemotingTransport transport{[this] {
        rmq::RemotingConfig c;
        c.namesrv_addr = server.address();
        return c;
    }()};
    std::shared_ptr<rmq_test::FakeSession> session;
    int next_opaque = 1000;

    Fixture() {
        rmq_test::answer_ok(server);
        rmq::HeartbeatData hb;
        hb.client_id = "cid";
        rmq::ConsumerData cd;
        cd.group_name = "cg";
        cd.subscription_data_set.push_back(rmq::parse_subscription("TopicTest", "*"));
        hb.consumer_data_set.push_back(cd);
        transport.heartbeat(hb);
        REQUIRE(server.wait_session());
        session = server.last_session();
    }

    /// Sends `req` (two-way) and returns the answer.
    Command ask(Command req) {
        req.opaque = ++next_opaque;
        const int opaque = req.opaque;
        session->send(req);
        REQUIRE(server.wait_for([&](const auto& got) {
            return std::any_of(got.begin(), got.end(), [&](const Command& c) {
                return c.is_response() && c.opaque == opaque;
            });
        }));
        for (const auto& c : server.received()) {
            if (c.is_response() && c.opaque == opaque) {
                return c;
            }
        }
        return {};
    }
};

Command request(int code, std::vector<std::pair<std::string, std::string>> fields) {
    Command c;
    c.code = code;
    for (const auto& [k, v] : fields) {
        c.fields().set(k, v);
    }
    return c;
}

const rmq::MessageQueue q0{"TopicTest", "broker-a", 0};
const rmq::MessageQueue q1{"TopicTest", "broker-a", 1};

}  // namespace

TEST_CASE("admin requests: running info has properties, subscriptions, per-queue ProcessQueueInfo and "
          "per-topic ConsumeStatus",
          "[remoting_transport][admin]") {
    Fixture f;
    f.transport.set_admin_handler(
        "cg", rmq::AdminHandler{.running_info = [] {
            rmq::ConsumerRunningInfo info;
            info.properties = {{"PROP_CONSUMEORDERLY", "true"},
                               {"PROP_CONSUMER_START_TIMESTAMP", "1700000000000"}};
            rmq::RunningQueueInfo q{.mq = q1, .commit_offset = 42, .info = {}};
            q.info.cached_msg_count = 3;
            q.info.cached_msg_min_offset = 42;
            q.info.cached_msg_max_offset = 44;
            q.info.locked = true;
            q.info.try_unlock_times = 2;
            q.info.last_pull_timestamp = 1700000000123;
            info.queues.push_back(q);
            info.queues.push_back(rmq::RunningQueueInfo{.mq = q0, .commit_offset = 7, .info = {}});
            info.topics.push_back(
                rmq::TopicStats{.topic = "TopicTest", .pull_tps = 12.5, .consume_failed_msgs = 4});
            return info;
        }});
    const auto resp =
        f.ask(request(rc::get_consumer_running_info, {{"consumerGroup", "cg"}, {"clientId", "cid"}}));
    REQUIRE(resp.code == 0);
    // mqTable has MessageQueue object keys (what fastjson writes for Java's TreeMap<MessageQueue, ...>), in
    // queue order.
    const std::string key0 = R"({"brokerName":"broker-a","queueId":0,"topic":"TopicTest"})";
    const std::string key1 = R"({"brokerName":"broker-a","queueId":1,"topic":"TopicTest"})";
    const auto at0 = resp.body.find(key0 + ":{");
    const auto at1 = resp.body.find(key1 + ":{");
    REQUIRE(at0 != std::string::npos);
    REQUIRE(at1 != std::string::npos);
    CHECK(at0 < at1);
    CHECK(resp.body.find(R"("cachedMsgCount":3,"cachedMsgMaxOffset":44,"cachedMsgMinOffset":42,)"
                         R"("cachedMsgSizeInMiB":0,"commitOffset":42,"droped":false,)") != std::string::npos);
    CHECK(resp.body.find(R"("lastPullTimestamp":1700000000123,"locked":true,)") != std::string::npos);
    CHECK(resp.body.find(R"("tryUnlockTimes":2)") != std::string::npos);
    // Everything but mqTable is standard JSON: cut mqTable out and parse the rest.
    const auto mq_begin = resp.body.find(R"("mqTable":)");
    const auto props = resp.body.find(R"(,"properties":)");
    REQUIRE(mq_begin != std::string::npos);
    REQUIRE(props != std::string::npos);
    const auto rest = nlohmann::json::parse(resp.body.substr(0, mq_begin) + resp.body.substr(props + 1));
    CHECK(rest["properties"]["PROP_CONSUMEORDERLY"] == "true");
    CHECK(rest["properties"]["PROP_CONSUMER_START_TIMESTAMP"] == "1700000000000");  // the consumer's wins
    CHECK(rest["properties"]["PROP_CONSUME_TYPE"] == "CONSUME_PASSIVELY");
    CHECK(rest["properties"].contains("PROP_CLIENT_VERSION"));
    CHECK(rest["properties"]["PROP_NAMESERVER_ADDR"] == f.server.address());
    CHECK(rest["subscriptionSet"][0]["topic"] == "TopicTest");
    CHECK(rest["statusTable"]["TopicTest"]["pullTPS"] == 12.5);
    CHECK(rest["statusTable"]["TopicTest"]["consumeFailedMsgs"] == 4);
    CHECK(rest["statusTable"]["TopicTest"].contains("consumeOKTPS"));
}

TEST_CASE("admin requests: RESET_CONSUMER_CLIENT_OFFSET hands the decoded offsets to the group's handler",
          "[remoting_transport][admin]") {
    Fixture f;
    std::promise<std::pair<std::string, rmq::QueueOffsets>> got;
    f.transport.set_admin_handler(
        "cg",
        rmq::AdminHandler{.running_info = [] { return rmq::ConsumerRunningInfo{}; },
                          .reset_offset =
                              [&](const std::string& topic, rmq::QueueOffsets offsets) {
                                  got.set_value({topic, std::move(offsets)});
                              }});
    auto req = request(
        rc::reset_consumer_client_offset,
        {{"topic", "TopicTest"}, {"group", "cg"}, {"timestamp", "1700000000000"}, {"isForce", "true"}});
    req.flag = rmq::remoting::command_flag::oneway;
    const rmq::QueueOffsets offsets{{q0, 5}, {q1, 9}};
    req.body = rmq::remoting::encode_reset_offset_body(offsets);
    f.session->send(req);
    auto fut = got.get_future();
    REQUIRE(fut.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    const auto [topic, table] = fut.get();
    CHECK(topic == "TopicTest");
    CHECK(table == offsets);
}

TEST_CASE("admin requests: GET_CONSUMER_STATUS_FROM_CLIENT answers the group's offset table",
          "[remoting_transport][admin]") {
    Fixture f;
    f.transport.set_admin_handler(
        "cg",
        rmq::AdminHandler{
            .running_info = [] { return rmq::ConsumerRunningInfo{}; },
            .offset_table =
                [](const std::string& topic) {
                    return topic == "TopicTest" ? rmq::QueueOffsets{{q1, 9}, {q0, 5}} : rmq::QueueOffsets{};
                }});
    const auto resp =
        f.ask(request(rc::get_consumer_status_from_client, {{"topic", "TopicTest"}, {"group", "cg"}}));
    REQUIRE(resp.code == 0);
    CHECK(resp.body == R"({"consumerTable":{},"messageQueueTable":{)"
                       R"({"brokerName":"broker-a","queueId":0,"topic":"TopicTest"}:5,)"
                       R"({"brokerName":"broker-a","queueId":1,"topic":"TopicTest"}:9}})");
    const auto other =
        f.ask(request(rc::get_consumer_status_from_client, {{"topic", "TopicTest"}, {"group", "x"}}));
    CHECK(other.code == 0);
    CHECK(other.body == R"({"consumerTable":{},"messageQueueTable":{}})");
}

TEST_CASE("admin requests: CONSUME_MESSAGE_DIRECTLY decodes the record, calls the handler and answers "
          "ConsumeMessageDirectlyResult",
          "[remoting_transport][admin]") {
    Fixture f;
    std::mutex mutex;
    std::vector<std::pair<std::string, std::string>> calls;  // body, broker name
    f.transport.set_admin_handler(
        "cg",
        rmq::AdminHandler{.running_info = [] { return rmq::ConsumerRunningInfo{}; },
                          .consume_directly =
                              [&](rmq::MessageExt msg,
                                  const std::string& broker,
                                  std::function<void(rmq::ConsumeDirectlyResult)> done) {
                                  const std::lock_guard lock(mutex);
                                  calls.emplace_back(msg.body(), broker);
                                  rmq::ConsumeDirectlyResult r;
                                  r.order = true;
                                  r.auto_commit = false;
                                  r.status = msg.body() == "bad" ? rmq::ConsumeDirectlyStatus::ThrowException
                                                                 : rmq::ConsumeDirectlyStatus::Commit;
                                  r.remark = msg.body() == "bad" ? "boom" : "";
                                  r.spent_time_millis = 17;
                                  done(r);
                              }});
    auto direct = [&](const std::string& body, const std::string& group) {
        rmq::MessageExt m;
        m.set_topic("TopicTest");
        m.set_body(body);
        m.set_born_host("127.0.0.1:1234");
        m.set_store_host("127.0.0.1:10911");
        auto req = request(rc::consume_message_directly,
                           {{"consumerGroup", group}, {"clientId", "cid"}, {"brokerName", "broker-a"}});
        req.body = rmq::remoting::encode_message(m);
        return f.ask(req);
    };
    const auto ok = direct("hello", "cg");
    REQUIRE(ok.code == 0);
    CHECK(ok.body == R"({"autoCommit":false,"consumeResult":"CR_COMMIT","order":true,"spentTimeMills":17})");
    const auto bad = direct("bad", "cg");
    CHECK(
        bad.body ==
        R"({"autoCommit":false,"consumeResult":"CR_THROW_EXCEPTION","order":true,"remark":"boom","spentTimeMills":17})");
    const auto unknown = direct("hello", "other");
    CHECK(unknown.code == rmq::response_code::system_error);
    CHECK(unknown.remark == "The Consumer Group <other> not exist in this consumer");
    const std::lock_guard lock(mutex);
    CHECK(calls ==
          std::vector<std::pair<std::string, std::string>>{{"hello", "broker-a"}, {"bad", "broker-a"}});
}

TEST_CASE("admin requests: CONSUME_MESSAGE_DIRECTLY is answered when the handler is done, the io thread is "
          "free meanwhile",
          "[remoting_transport][admin]") {
    Fixture f;
    std::mutex mutex;
    std::function<void(rmq::ConsumeDirectlyResult)> held;
    f.transport.set_admin_handler("cg",
                                  rmq::AdminHandler{.running_info = [] { return rmq::ConsumerRunningInfo{}; },
                                                    .offset_table =
                                                        [](const std::string&) {
                                                            return rmq::QueueOffsets{{q0, 5}};
                                                        },
                                                    .consume_directly =
                                                        [&](rmq::MessageExt, const std::string&, auto done) {
                                                            const std::lock_guard lock(mutex);
                                                            held = std::move(
                                                                done);  // a slow listener: answered later
                                                        }});
    rmq::MessageExt m;
    m.set_topic("TopicTest");
    m.set_body("slow");
    m.set_born_host("127.0.0.1:1234");
    m.set_store_host("127.0.0.1:10911");
    auto req = request(rc::consume_message_directly,
                       {{"consumerGroup", "cg"}, {"clientId", "cid"}, {"brokerName", "broker-a"}});
    req.body = rmq::remoting::encode_message(m);
    req.opaque = 555;
    f.session->send(req);
    // another request is answered while the first waits for its listener
    const auto status = f.ask(request(rc::get_consumer_status_from_client,
                                      {{"group", "cg"}, {"topic", "TopicTest"}, {"clientAddr", "cid"}}));
    CHECK(status.code == 0);
    {
        const std::lock_guard lock(mutex);
        REQUIRE(held);
        rmq::ConsumeDirectlyResult r;
        r.spent_time_millis = 3;
        held(r);
    }
    REQUIRE(f.server.wait_for([](const auto& got) {
        return std::any_of(
            got.begin(), got.end(), [](const Command& c) { return c.is_response() && c.opaque == 555; });
    }));
    for (const auto& c : f.server.received()) {
        if (c.is_response() && c.opaque == 555) {
            CHECK(c.code == 0);
            CHECK(c.body ==
                  R"({"autoCommit":true,"consumeResult":"CR_SUCCESS","order":false,"spentTimeMills":3})");
        }
    }
}

TEST_CASE("admin requests: an empty handler unregisters the group", "[remoting_transport][admin]") {
    Fixture f;
    f.transport.set_admin_handler("cg", rmq::AdminHandler{.running_info = [] {
                                      rmq::ConsumerRunningInfo info;
                                      info.properties = {{"PROP_CONSUMEORDERLY", "true"}};
                                      return info;
                                  }});
    f.transport.set_admin_handler("cg", rmq::AdminHandler{});
    const auto resp =
        f.ask(request(rc::get_consumer_running_info, {{"consumerGroup", "cg"}, {"clientId", "cid"}}));
    REQUIRE(resp.code == 0);
    CHECK(resp.body.find("PROP_CONSUMEORDERLY") == std::string::npos);
}
