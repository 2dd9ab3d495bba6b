// BATCH_ACK_MESSAGE against what Apache RocketMQ 5.3.3's own classes make of it (tests/data/batch_ack.json,
// written by tools/golden/BatchAckGolden.java): BatchAckMessageRequestBody.encode() byte for byte (fastjson's
// field names and order, BitSet.toByteArray() in base64), and the request
// MQClientAPIImpl.batchAckMessageAsync builds from a list of receipts (its grouping into BatchAcks, no header
// fields, the whole code).

#include <algorithm>
#include <string>
#include <vector>

#include <golden.hpp>

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/remoting/bodies/batch_ack.hpp>
#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/request_code.hpp>

namespace batch_ack_golden_test {

namespace {

namespace rr = rmq::remoting;

rmq::BatchAckRequest from_vector(const nlohmann::json& body) {
    rmq::BatchAckRequest out;
    if (!body["broker_name"].is_null()) {
        out.broker_name = body["broker_name"].get<std::string>();
    }
    for (const auto& a : body["acks"]) {
        out.acks.push_back(rmq::BatchAck{a["consumer_group"],
                                         a["topic"],
                                         a["retry"],
                                         a["start_offset"],
                                         a["queue_id"],
                                         a["revive_queue_id"],
                                         a["pop_time"],
                                         a["invisible_time"],
                                         a["bits"].get<std::vector<std::int32_t>>()});
    }
    return out;
}

/// Java groups through a HashMap: the order of its BatchAcks is not rmq's (first seen).
std::vector<rmq::BatchAck> by_queue(std::vector<rmq::BatchAck> acks) {
    std::sort(acks.begin(), acks.end(), [](const rmq::BatchAck& a, const rmq::BatchAck& b) {
        return std::tie(a.retry, a.queue_id, a.start_offset, a.pop_time) <
               std::tie(b.retry, b.queue_id, b.start_offset, b.pop_time);
    });
    return acks;
}

}  // namespace

TEST_CASE("batch ack bodies are Java's bytes", "[pop][golden][batch_ack]") {
    const auto golden = rmq_test::load_golden("batch_ack.json");
    REQUIRE(golden["bodies"].size() == 6);
    for (const auto& b : golden["bodies"]) {
        INFO(b["name"].get<std::string>());
        const auto body = from_vector(b);
        CHECK(rr::encode_batch_ack_request(body) == b["json"].get<std::string>());
        CHECK(rr::decode_batch_ack_request(b["json"].get<std::string>()) == body);
    }
}

TEST_CASE("batch ack groups receipts as MQClientAPIImpl does", "[pop][golden][batch_ack]") {
    const auto golden = rmq_test::load_golden("batch_ack.json");
    const auto& client = golden["client"];
    rmq::BatchAckArgs args;
    for (const auto& r : client["receipts"]) {
        args.acks.push_back(rmq::AckArgs{client["group"], client["topic"], r});
    }
    const auto ours = rmq::BatchAckRequest::of(args);
    const auto java = rr::decode_batch_ack_request(client["body"].get<std::string>());
    CHECK(ours.broker_name == java.broker_name);
    CHECK(by_queue(ours.acks) == by_queue(java.acks));
    // In Java's order, the bytes are Java's.
    auto reordered = ours;
    reordered.acks = java.acks;
    CHECK(rr::encode_batch_ack_request(reordered) == client["body"].get<std::string>());

    // The frame: the whole code (JSON header), no ext fields, the body.
    const auto frame = rr::decode(rmq_test::from_hex(client["json_frame_hex"]));
    CHECK(frame.code == rr::request_code::batch_ack_message);
    CHECK(frame.code == golden["code"].get<int>());
    CHECK(frame.serialize_type == rr::SerializeType::Json);
    CHECK(!frame.ext_fields.has_value());
    CHECK(frame.body == client["body"].get<std::string>());
}

TEST_CASE("batch ack refuses what Java would send wrong", "[pop][batch_ack]") {
    const auto ack = [](std::string receipt) {
        return rmq::AckArgs{"g", "T", std::move(receipt)};
    };
    SECTION("receipts of two brokers") {
        const rmq::BatchAckArgs args{
            {ack("1 1000 30000 0 0 broker-a 0 1"), ack("1 1000 30000 0 0 broker-b 0 1")}};
        CHECK_THROWS_WITH(rmq::BatchAckRequest::of(args),
                          Catch::Contains("broker-a") && Catch::Contains("broker-b"));
        CHECK_THROWS_AS(rmq::BatchAckRequest::of(args), rmq::InvalidArgument);
    }
    SECTION("a malformed receipt") {
        CHECK_THROWS_AS(rmq::BatchAckRequest::of({{ack("1 1000 30000 0 0 broker-a 0")}}),
                        rmq::InvalidArgument);
        CHECK_THROWS_AS(rmq::BatchAckRequest::of({{ack("1 x 30000 0 0 broker-a 0 1")}}),
                        rmq::InvalidArgument);
    }
    SECTION("a message before its check point, or too far past it") {
        CHECK_THROWS_AS(rmq::BatchAckRequest::of({{ack("5 1000 30000 0 0 broker-a 0 4")}}),
                        rmq::InvalidArgument);
        CHECK_THROWS_AS(rmq::BatchAckRequest::of({{ack("0 1000 30000 0 0 broker-a 0 1048576")}}),
                        rmq::InvalidArgument);
        CHECK(rmq::BatchAckRequest::of({{ack("0 1000 30000 0 0 broker-a 0 1048575")}}).acks.at(0).bits ==
              std::vector<std::int32_t>{1048575});
    }
    SECTION("nothing to ack") {
        CHECK_THROWS_AS(rmq::BatchAckRequest::of({}), rmq::InvalidArgument);
    }
    SECTION("a topic mark of the V2 retry topic is kept") {
        CHECK(rmq::BatchAckRequest::of({{ack("3 1000 30000 0 2 broker-a 0 3")}}).acks.at(0).retry == "2");
    }
}

TEST_CASE("batch ack bodies that do not decode", "[pop][batch_ack]") {
    CHECK_THROWS_AS(rr::decode_batch_ack_request(R"({"acks":[{"b":"A*=="}]})"), rr::CodecError);
    CHECK_THROWS_AS(rr::decode_batch_ack_request(R"({"acks":[1]})"), rr::CodecError);
    CHECK_THROWS_AS(rr::decode_batch_ack_request(R"({"acks":[{"q":"x"}]})"), rr::CodecError);
    // A bit set past max_bit: 131073 bytes.
    const std::string huge = std::string(174764, 'A') + "=";
    CHECK_THROWS_AS(rr::decode_batch_ack_request(R"({"acks":[{"b":")" + huge + R"("}]})"), rr::CodecError);
    // fastjson's alternate names read too.
    const auto long_names = rr::decode_batch_ack_request(
        R"({"acks":[{"bitSet":"Ag==","consumerGroup":"g","topic":"T","retry":"1","queueId":3}]})");
    REQUIRE(long_names.acks.size() == 1);
    CHECK(long_names.acks[0].bits == std::vector<std::int32_t>{1});
    CHECK(long_names.acks[0].queue_id == 3);
    CHECK(long_names.acks[0].retry == "1");
}

}  // namespace batch_ack_golden_test
