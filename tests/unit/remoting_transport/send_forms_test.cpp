// RemotingTransport's producer requests beside SEND_MESSAGE_V2, against a fake broker: SEND_BATCH_MESSAGE
// (Java's encodeMessages body, batch flag, no compression, no batch UNIQ_KEY), oneway sends, and timer
// messages refused before a pre-5.0 broker.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <cstdint>
#include <string>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;

/// A fake broker (and NameServer) answering every send with SUCCESS, as a broker of MQVersion `version`.
void serve(rmq_test::FakeServer& server, std::int32_t version) {
    server.set_handler([&server, version](rmq_test::FakeSession& s, const Command& req) {
        auto r = rmq_test::FakeSession::response_to(req, 0);
        r.version = version;
        if (req.code == rc::get_routeinfo_by_topic) {
            r.body = rmq_test::route_json(server.address());
        } else if (req.code == rc::send_message_v2 || req.code == rc::send_batch_message) {
            r.fields().set("msgId", "7F00000100002A9F0000000000000010,7F00000100002A9F0000000000000020");
            r.fields().set("queueId", std::string(req.field("e").value_or("0")));
            r.fields().set("queueOffset", "7");
        } else if (req.code == rc::get_max_offset) {
            r.fields().set("offset", "0");
        }
        if (!req.is_oneway()) {
            s.send(r);
        }
    });
}

rmq::RemotingTransport transport_for(const rmq_test::FakeServer& server) {
    rmq::RemotingConfig c;
    c.namesrv_addr = server.address();
    return rmq::RemotingTransport{c};
}

using rmq_test::requests_of;

}  // namespace

TEST_CASE("send_batch: SEND_BATCH_MESSAGE with Java's encodeMessages body", "[remoting_transport]") {
    rmq_test::FakeServer server;
    serve(server, 413);
    auto transport = transport_for(server);
    const auto q = transport.topic_route("TopicTest").write_queues.at(1);
    std::vector<rmq::Message> batch{rmq::Message("TopicTest", "TagA", "k1", std::string(5000, 'a')),
                                    rmq::Message("TopicTest", "TagB", "", "two")};
    batch[0].set_property(rmq::property::wait_store_msg_ok, "true");
    batch[1].set_property(rmq::property::wait_store_msg_ok, "true");
    batch[1].set_property(rmq::property::uniq_client_message_id_keyidx, "MINE");
    const auto r = transport.send_batch(batch, q);
    const auto sent = requests_of(server, rc::send_batch_message);
    REQUIRE(sent.size() == 1);
    const auto& req = sent[0];
    CHECK(req.field("m") == "true");  // batch
    CHECK(req.field("f") == "0");     // sysFlag: a batch is never compressed
    CHECK(req.field("e") == "1");
    // The body is the entries as Java encodes them, each with its UNIQ_KEY.
    const auto entries = rmq::remoting::decode_batch_messages(
        std::span(reinterpret_cast<const std::byte*>(req.body.data()), req.body.size()));
    REQUIRE(entries.size() == 2);
    CHECK(req.body == rmq::remoting::encode_messages(entries));
    CHECK(entries[0].body() == std::string(5000, 'a'));
    CHECK(entries[1].property(rmq::property::uniq_client_message_id_keyidx) == "MINE");
    const auto first_id = entries[0].property(rmq::property::uniq_client_message_id_keyidx);
    REQUIRE(first_id.has_value());
    CHECK(r.msg_id == *first_id + ",MINE");
    CHECK(r.offset_msg_id == "7F00000100002A9F0000000000000010,7F00000100002A9F0000000000000020");
    CHECK(r.queue_offset == 7);
    // The header carries WAIT but no UNIQ_KEY of the batch (a 5.x broker would stamp it on every message).
    const auto props = rmq::decode_properties(req.field("i").value_or(""));
    CHECK(props.contains(rmq::property::wait_store_msg_ok));
    CHECK_FALSE(props.contains(rmq::property::uniq_client_message_id_keyidx));
}

TEST_CASE("send_oneway: SEND_MESSAGE_V2 with the oneway flag, no answer awaited", "[remoting_transport]") {
    rmq_test::FakeServer server;
    serve(server, 413);
    auto transport = transport_for(server);
    const auto q = transport.topic_route("TopicTest").write_queues.at(0);
    transport.send_oneway(rmq::Message("TopicTest", "fire"), q);
    REQUIRE(server.wait_for([](const std::vector<Command>& got) {
        for (const auto& c : got) {
            if (c.code == rc::send_message_v2) {
                return true;
            }
        }
        return false;
    }));
    const auto sent = requests_of(server, rc::send_message_v2);
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].is_oneway());
    CHECK(sent[0].body == "fire");
}

TEST_CASE("timer messages: refused before a pre-5.0 broker, sent to a 5.x one", "[remoting_transport]") {
    rmq::Message timed("TopicTest", "later");
    timed.set_delay_time_sec(10);
    SECTION("4.9.7 (MQVersion 407): UnsupportedByBroker, nothing sent") {
        rmq_test::FakeServer server;
        serve(server, 407);
        auto transport = transport_for(server);
        const auto q = transport.topic_route("TopicTest").write_queues.at(0);
        try {
            (void)transport.send(timed, q);
            FAIL("expected UnsupportedByBroker");
        } catch (const rmq::UnsupportedByBroker& e) {
            CHECK(e.broker_version() == 407);
        }
        CHECK_THROWS_AS(transport.send_oneway(timed, q), rmq::UnsupportedByBroker);
        CHECK(requests_of(server, rc::send_message_v2).empty());
        // A plain message still goes, and a delay level is not a timer.
        (void)transport.send(rmq::Message("TopicTest", "now"), q);
        rmq::Message level("TopicTest", "level");
        level.set_delay_time_level(2);
        (void)transport.send(level, q);
        CHECK(requests_of(server, rc::send_message_v2).size() == 2);
    }
    SECTION("5.0.0 (MQVersion 413): sent with its TIMER_DELAY_SEC") {
        rmq_test::FakeServer server;
        serve(server, 413);
        auto transport = transport_for(server);
        const auto q = transport.topic_route("TopicTest").write_queues.at(0);
        (void)transport.send(timed, q);
        const auto sent = requests_of(server, rc::send_message_v2);
        REQUIRE(sent.size() == 1);
        CHECK(rmq::decode_properties(sent[0].field("i").value_or("")).at(rmq::property::timer_delay_sec) ==
              "10");
    }
    SECTION("a refusal of the timer (MESSAGE_ILLEGAL) is TimerRejected") {
        rmq_test::FakeServer server;
        server.set_handler([&server](rmq_test::FakeSession& s, const Command& req) {
            const bool send = req.code == rc::send_message_v2;
            auto r = rmq_test::FakeSession::response_to(req, send ? 13 : 0);
            r.version = 413;
            if (req.code == rc::get_routeinfo_by_topic) {
                r.body = rmq_test::route_json(server.address());
            }
            if (send) {
                r.remark = "timer message illegal, the delay time should not be bigger than the max delay "
                           "259200000ms";
            }
            s.send(r);
        });
        auto transport = transport_for(server);
        const auto q = transport.topic_route("TopicTest").write_queues.at(0);
        CHECK_THROWS_AS(transport.send(timed, q), rmq::TimerRejected);
    }
}
