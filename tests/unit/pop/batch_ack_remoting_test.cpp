// SimpleConsumer::ack(span) over RemotingTransport against a fake broker: one BATCH_ACK_MESSAGE (200151) with
// a JSON header although the transport is configured for the ROCKETMQ binary one, no ext fields (Java's
// createRequestCommand(BATCH_ACK_MESSAGE, null)), and a body of Java's bytes holding one BatchAck per check
// point; a refusal is thrown (ack) or held by the future (ack_async); a 4.x broker is PopUnsupported.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/remoting/bodies/batch_ack.hpp>
#include <rmq/remoting/headers/pop.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/remoting.hpp>

namespace batch_ack_remoting_test {

namespace {

using namespace std::chrono_literals;
using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;
using Consumer = rmq::SimpleConsumer<rmq::RemotingTransport>;

static_assert(rmq::HasBatchAck<rmq::RemotingTransport>);

using rmq_test::requests_of;

rmq::RemotingTransport transport_to(rmq_test::FakeServer& server) {
    rmq::RemotingConfig c;
    c.namesrv_addr = server.address();
    c.serialize_type = rmq::remoting::SerializeType::RocketMQ;
    return rmq::RemotingTransport{c};
}

/// A 5.x broker's answer to a pop: queue 2's messages at offsets 40, 41 and 43 (42 filtered out), popped
/// from 40.
void answer_pop(const Command& req, Command& r) {
    if (req.code != rc::pop_message) {
        return;
    }
    rmq::remoting::PopMessageResponseHeader h;
    h.pop_time = 1700000000000;
    h.invisible_time = 20000;
    h.revive_qid = 1;
    h.start_offset_info = "0 2 40";
    h.msg_offset_info = "0 2 40,41,43";
    r.ext_fields = rmq::remoting::to_ext_fields(h);
    for (const std::int64_t offset : {40, 41, 43}) {
        rmq::MessageExt m;
        m.set_topic("T");
        m.set_queue_id(2);
        m.set_queue_offset(offset);
        m.set_body("hello");
        m.set_born_host("127.0.0.1:5000");
        m.set_store_host("127.0.0.1:10911");
        r.body += rmq::remoting::encode_message(m);
    }
}

}  // namespace

TEST_CASE("ack(span) over remoting is one BATCH_ACK_MESSAGE with Java's body", "[pop][batch_ack]") {
    rmq_test::FakeServer server;
    rmq_test::answer_ok(server, answer_pop);
    Consumer c(transport_to(server), rmq::SimpleConsumerConfig{.consumer_group = "g", .await_duration = 0});
    c.subscribe("T");
    const auto got = c.receive(8, 20s);
    REQUIRE(got.size() == 3);
    c.ack(got);
    CHECK(requests_of(server, rc::ack_message).empty());
    const auto batches = requests_of(server, rc::batch_ack_message);
    REQUIRE(batches.size() == 1);
    CHECK(batches[0].serialize_type == rmq::remoting::SerializeType::Json);
    CHECK_FALSE(batches[0].ext_fields.has_value());
    const rmq::BatchAck expected{"g", "T", "0", 40, 2, 1, 1700000000000, 20000, {0, 1, 3}};
    const auto body = rmq::remoting::decode_batch_ack_request(batches[0].body);
    CHECK(body.broker_name == "broker-a");
    REQUIRE(body.acks.size() == 1);
    CHECK(body.acks[0] == expected);
    CHECK(
        batches[0].body ==
        R"({"acks":[{"b":"Cw==","c":"g","it":20000,"pt":1700000000000,"q":2,"r":"0","rq":1,"so":40,"t":"T"}],)"
        R"("brokerName":"broker-a"})");

    auto async = c.ack_async(got);
    REQUIRE(async.wait_for(10s) == std::future_status::ready);
    async.get();
    CHECK(requests_of(server, rc::batch_ack_message).size() == 2);
}

TEST_CASE("a refused BATCH_ACK_MESSAGE over remoting is thrown, or held by ack_async's future",
          "[pop][batch_ack]") {
    rmq_test::FakeServer server;
    std::atomic<int> refusal{rmq::response_code::success};
    rmq_test::answer_ok(server, [&refusal](const Command& req, Command& r) {
        answer_pop(req, r);
        if (req.code == rc::batch_ack_message && refusal.load() != rmq::response_code::success) {
            r.code = refusal.load();
            r.remark = refusal.load() == rmq::response_code::request_code_not_supported
                           ? fmt::format(" request type {} not supported", req.code)
                           : "store is busy";
        }
    });
    Consumer c(transport_to(server), rmq::SimpleConsumerConfig{.consumer_group = "g", .await_duration = 0});
    c.subscribe("T");
    const auto got = c.receive(8, 20s);
    REQUIRE(got.size() == 3);

    refusal = rmq::response_code::system_error;
    CHECK_THROWS_WITH(c.ack(got), Catch::Contains("store is busy") && Catch::Contains("BATCH_ACK_MESSAGE"));
    auto held = c.ack_async(got);
    REQUIRE(held.wait_for(10s) == std::future_status::ready);
    CHECK_THROWS_AS(held.get(), rmq::BrokerError);

    refusal = rmq::response_code::request_code_not_supported;  // a 4.x broker
    CHECK_THROWS_AS(c.ack(got), rmq::PopUnsupported);
    CHECK(requests_of(server, rc::batch_ack_message).size() == 3);
}

}  // namespace batch_ack_remoting_test
