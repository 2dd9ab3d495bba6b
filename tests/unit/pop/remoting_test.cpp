// rmq::SimpleConsumer over RemotingTransport against a fake broker: POP_MESSAGE, ACK_MESSAGE and
// CHANGE_MESSAGE_INVISIBLETIME go with JSON headers even when the transport is configured for the ROCKETMQ
// binary header, with Java's fields (the asynchronous ack too, its future holding a refusal); a broker that
// answers REQUEST_CODE_NOT_SUPPORTED (4.x) is reported as rmq::PopUnsupported.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/remoting/headers/pop.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/remoting.hpp>

namespace pop_remoting_test {

namespace {

using namespace std::chrono_literals;
using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;
using Consumer = rmq::SimpleConsumer<rmq::RemotingTransport>;

using rmq_test::requests_of;

std::map<std::string, std::string> fields_of(const Command& c) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : *c.ext_fields) {
        out[k] = v.value_or("");
    }
    return out;
}

rmq::RemotingTransport transport_to(rmq_test::FakeServer& server) {
    rmq::RemotingConfig c;
    c.namesrv_addr = server.address();
    c.serialize_type = rmq::remoting::SerializeType::RocketMQ;
    return rmq::RemotingTransport{c};
}

/// A 5.x broker's answer to a pop: one message of queue 2 at offset 40.
void answer_pop(const Command& req, Command& r) {
    if (req.code == rc::pop_message) {
        rmq::remoting::PopMessageResponseHeader h;
        h.pop_time = 1700000000000;
        h.invisible_time = 20000;
        h.revive_qid = 1;
        h.rest_num = 0;
        h.start_offset_info = "0 2 40";
        h.msg_offset_info = "0 2 40";
        r.ext_fields = rmq::remoting::to_ext_fields(h);
        rmq::MessageExt m;
        m.set_topic("T");
        m.set_queue_id(2);
        m.set_queue_offset(40);
        m.set_body("hello");
        m.set_born_host("127.0.0.1:5000");
        m.set_store_host("127.0.0.1:10911");
        r.body = rmq::remoting::encode_message(m);
    } else if (req.code == rc::change_message_invisibletime) {
        r.ext_fields = rmq::remoting::to_ext_fields(
            rmq::remoting::ChangeInvisibleTimeResponseHeader{1700000005000, 60000, 1});
    }
}

}  // namespace

TEST_CASE("pop, ack and change invisible time over remoting go as JSON with Java's fields", "[pop]") {
    rmq_test::FakeServer server;
    rmq_test::answer_ok(server, answer_pop);
    Consumer c(transport_to(server), rmq::SimpleConsumerConfig{.consumer_group = "g", .await_duration = 0});
    c.subscribe("T");
    auto got = c.receive(8, 20s);
    REQUIRE(got.size() == 1);
    CHECK(got[0].body() == "hello");
    CHECK(got[0].property_view(rmq::property::pop_ck) == "40 1700000000000 20000 1 0 broker-a 2 40");
    c.change_invisible_duration(got[0], 60s);
    CHECK(got[0].property_view(rmq::property::pop_ck) == "40 1700000005000 60000 1 0 broker-a 2 40");
    c.ack(got[0]);

    const auto pops = requests_of(server, rc::pop_message);
    REQUIRE(pops.size() == 1);
    CHECK(pops[0].serialize_type == rmq::remoting::SerializeType::Json);
    auto pop_fields = fields_of(pops[0]);
    CHECK(pop_fields.erase("bornTime") == 1);
    CHECK(pop_fields == std::map<std::string, std::string>{{"consumerGroup", "g"},
                                                           {"topic", "T"},
                                                           {"queueId", "-1"},
                                                           {"maxMsgNums", "8"},
                                                           {"invisibleTime", "20000"},
                                                           {"pollTime", "0"},
                                                           {"initMode", "1"},
                                                           {"expType", "TAG"},
                                                           {"exp", "*"},
                                                           {"order", "false"},
                                                           {"bname", "broker-a"}});
    const auto changes = requests_of(server, rc::change_message_invisibletime);
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].serialize_type == rmq::remoting::SerializeType::Json);
    CHECK(fields_of(changes[0]).at("extraInfo") == "40 1700000000000 20000 1 0 broker-a 2 40");
    CHECK(fields_of(changes[0]).at("invisibleTime") == "60000");
    const auto acks = requests_of(server, rc::ack_message);
    REQUIRE(acks.size() == 1);
    CHECK(acks[0].serialize_type == rmq::remoting::SerializeType::Json);
    CHECK(fields_of(acks[0]) ==
          std::map<std::string, std::string>{{"consumerGroup", "g"},
                                             {"topic", "T"},
                                             {"queueId", "2"},
                                             {"extraInfo", "40 1700000005000 60000 1 0 broker-a 2 40"},
                                             {"offset", "40"},
                                             {"bname", "broker-a"}});
    // Other requests keep the configured binary header.
    const auto routes = requests_of(server, rc::get_routeinfo_by_topic);
    REQUIRE_FALSE(routes.empty());
    CHECK(routes[0].serialize_type == rmq::remoting::SerializeType::RocketMQ);
}

TEST_CASE("ack_async over remoting sends the ack's fields and its future holds a refusal", "[pop]") {
    rmq_test::FakeServer server;
    std::atomic<bool> refuse{false};
    rmq_test::answer_ok(server, [&refuse](const Command& req, Command& r) {
        answer_pop(req, r);
        if (req.code == rc::ack_message && refuse.load()) {
            r.code = rmq::response_code::system_error;
            r.remark = "store is busy";
        }
    });
    Consumer c(transport_to(server), rmq::SimpleConsumerConfig{.consumer_group = "g", .await_duration = 0});
    c.subscribe("T");
    auto got = c.receive(8, 20s);
    REQUIRE(got.size() == 1);
    auto ok = c.ack_async(got[0]);
    REQUIRE(ok.wait_for(10s) == std::future_status::ready);
    ok.get();
    const auto acks = requests_of(server, rc::ack_message);
    REQUIRE(acks.size() == 1);
    CHECK(fields_of(acks[0]) ==
          std::map<std::string, std::string>{{"consumerGroup", "g"},
                                             {"topic", "T"},
                                             {"queueId", "2"},
                                             {"extraInfo", "40 1700000000000 20000 1 0 broker-a 2 40"},
                                             {"offset", "40"},
                                             {"bname", "broker-a"}});
    refuse = true;
    auto refused = c.ack_async(got[0]);
    REQUIRE(refused.wait_for(10s) == std::future_status::ready);
    CHECK_THROWS_WITH(refused.get(), Catch::Contains("store is busy"));
}

TEST_CASE("a broker without POP (4.x) is reported as PopUnsupported", "[pop]") {
    rmq_test::FakeServer server;
    rmq_test::answer_ok(server, [](const Command& req, Command& r) {
        if (req.code == rc::pop_message || req.code == rc::ack_message) {
            r.code = rmq::response_code::request_code_not_supported;  // AdminBrokerProcessor's unknown code
            r.remark = fmt::format(" request type {} not supported", req.code);
        }
    });
    Consumer c(transport_to(server), rmq::SimpleConsumerConfig{.consumer_group = "g"});
    c.subscribe("T");
    try {
        (void)c.receive(8, 20s);
        FAIL("receive did not throw");
    } catch (const rmq::PopUnsupported& e) {
        CHECK(e.code() == rmq::response_code::request_code_not_supported);
        CHECK_THAT(e.what(), Catch::Contains("does not support POP") && Catch::Contains("200050"));
    }
}

TEST_CASE("interrupt_pops over remoting ends a held POP's wait and answers later pops until resume_pops",
          "[pop]") {
    rmq_test::FakeServer server;
    std::atomic<bool> hold{true};
    server.set_handler([&server, &hold](rmq_test::FakeSession& s, const Command& req) {
        if (req.is_response() || (req.code == rc::pop_message && hold.load())) {
            return;  // a broker holding the pop for its poll time
        }
        auto r = rmq_test::FakeSession::response_to(req, 0);
        if (req.code == rc::get_routeinfo_by_topic) {
            r.body = rmq_test::route_json(server.address());
        } else {
            answer_pop(req, r);
        }
        s.send(r);
    });
    auto t = transport_to(server);
    (void)t.topic_route("T");
    const rmq::PopArgs args{
        .consumer_group = "g", .topic = "T", .broker_name = "broker-a", .poll_time_millis = 600000};
    auto held = std::async(std::launch::async, [&] { return t.pop_message(args); });
    REQUIRE(server.wait_for([](const auto& got) {
        return std::any_of(
            got.begin(), got.end(), [](const Command& c) { return c.code == rc::pop_message; });
    }));
    t.interrupt_pops("other");  // another group's interruption leaves this wait alone
    CHECK(held.wait_for(200ms) == std::future_status::timeout);
    t.interrupt_pops("g");
    REQUIRE(held.wait_for(30s) == std::future_status::ready);  // not the 600 s poll time
    CHECK(held.get().msg_found_list.empty());
    CHECK(t.pop_message(args).status == rmq::PopStatus::PollingNotFound);  // answered here, not sent
    CHECK(requests_of(server, rc::pop_message).size() == 1);
    t.resume_pops("g");
    hold = false;
    const auto found = t.pop_message(args);
    CHECK(found.status == rmq::PopStatus::Found);
    CHECK(found.msg_found_list.size() == 1);
    CHECK(requests_of(server, rc::pop_message).size() == 2);
}

}  // namespace pop_remoting_test
