// The POP requests against what Apache RocketMQ 5.3.3's own classes make of them (tests/data/pop.json,
// written by tools/golden/PopGolden.java): the same ext fields from rmq's typed headers, Java's JSON
// frames decoded, Java's ROCKETMQ frames showing the (short) cast of the code that rmq refuses, and
// ExtraInfoUtil's strings.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <golden.hpp>

#include <catch2/catch.hpp>

#include <rmq/pop.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/headers/pop.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>

namespace pop_golden_test {

namespace {

namespace rr = rmq::remoting;

std::map<std::string, std::string> sorted(const rr::ExtFields& f) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : f) {
        out[k] = v.value_or("<null>");
    }
    return out;
}

/// rmq's header for each command of the vectors, built from the same inputs as PopGolden.java's.
rr::ExtFields rmq_fields(const std::string& name) {
    if (name == "pop" || name == "pop_order") {
        rmq::PopArgs a;
        a.consumer_group = "g";
        a.topic = "T";
        a.broker_name = "broker-a";
        a.max_msg_nums = 16;
        a.invisible_time_millis = 30000;
        a.poll_time_millis = 5000;
        if (name == "pop_order") {
            a.queue_id = 2;
            a.order = true;
        }
        return rr::to_ext_fields(rr::PopMessageRequestHeader::from(a, 1234));
    }
    if (name == "ack") {
        return rr::to_ext_fields(rr::AckMessageRequestHeader::from(
            rmq::AckArgs{"g", "T", "3 1700000000000 30000 2 1 broker-b 0 3"}));
    }
    return rr::to_ext_fields(rr::ChangeInvisibleTimeRequestHeader::from(
        rmq::ChangeInvisibleTimeArgs{"g", "T", "10 1700000000000 30000 2 0 broker-a 1 11", 5000}));
}

/// Where a message of a hand-built pop answer is stored.
struct Stored {
    std::string topic;
    std::int32_t queue_id = 0;
    std::int64_t offset = 0;
};

/// A successful POP_MESSAGE answer as a 5.3.3 broker writes it: Java's offset infos (and order counts) in the
/// header, the messages as records.
rr::Command pop_answer(std::int32_t revive_qid,
                       const std::string& start_offset_info,
                       const std::string& msg_offset_info,
                       const std::vector<Stored>& messages,
                       std::optional<std::string> order_count_info = std::nullopt) {
    rr::Command resp;
    resp.code = rmq::response_code::success;
    resp.flag = rr::command_flag::response;
    rr::PopMessageResponseHeader h;
    h.pop_time = 1700000000000;
    h.invisible_time = 30000;
    h.revive_qid = revive_qid;
    h.start_offset_info = start_offset_info;
    h.msg_offset_info = msg_offset_info;
    h.order_count_info = std::move(order_count_info);
    resp.ext_fields = rr::to_ext_fields(h);
    for (const auto& stored : messages) {
        rmq::MessageExt m;
        m.set_topic(stored.topic);
        m.set_queue_id(stored.queue_id);
        m.set_queue_offset(stored.offset);
        m.set_born_host("127.0.0.1:1");
        m.set_store_host("127.0.0.1:2");
        resp.body += rr::encode_message(m);
    }
    return resp;
}

}  // namespace

TEST_CASE("pop request headers carry Java's ext fields", "[pop][golden]") {
    const auto golden = rmq_test::load_golden("pop.json");
    REQUIRE(golden["commands"].size() == 4);
    for (const auto& c : golden["commands"]) {
        const std::string name = c["name"];
        INFO(name);
        std::map<std::string, std::string> java;
        for (const auto& [k, v] : c["ext_fields"].items()) {
            java[k] = v.get<std::string>();
        }
        CHECK(sorted(rmq_fields(name)) == java);

        // Java's JSON frame: the whole code, and the same fields.
        const auto from_java = rr::decode(rmq_test::from_hex(c["json_frame_hex"]));
        CHECK(from_java.code == c["code"].get<int>());
        CHECK(from_java.serialize_type == rr::SerializeType::Json);
        CHECK(sorted(*from_java.ext_fields) == java);

        // Java's ROCKETMQ frame: its code is (short) code, a request no broker knows; rmq refuses to write
        // it.
        const auto truncated = rr::decode(rmq_test::from_hex(c["rocketmq_frame_hex"]));
        CHECK(truncated.code == static_cast<std::int16_t>(c["code"].get<int>()));
        CHECK(truncated.code != c["code"].get<int>());
        CHECK_THROWS_AS(rr::encode(from_java, rr::SerializeType::RocketMQ), rr::CodecError);
    }
}

TEST_CASE("receipts and offset infos match ExtraInfoUtil", "[pop][golden]") {
    const auto golden = rmq_test::load_golden("pop.json");
    const rmq::PopReceipt receipt{10, 1700000000000, 30000, 2, false, "broker-a", 1, 11};
    CHECK(receipt.to_string() == golden["receipt"].get<std::string>());
    CHECK(rmq::PopReceipt::parse(golden["receipt"].get<std::string>()) == receipt);
    const rmq::PopReceipt retry{3, 1700000000000, 30000, 2, true, "broker-b", 0, 3};
    CHECK(retry.to_string() == golden["retry_receipt"].get<std::string>());

    // An answer whose offset infos Java built gives the receipts Java's processPopResponse would.
    const auto resp = pop_answer(2,
                                 golden["start_offset_info"].get<std::string>(),
                                 golden["msg_offset_info"].get<std::string>(),
                                 {{"T", 1, 10}, {"T", 1, 11}, {"%RETRY%g_T", 0, 3}});
    const auto r = rr::to_pop_result(resp, "broker-a", "T");
    REQUIRE(r.msg_found_list.size() == 3);
    CHECK(r.msg_found_list[1].property_view(rmq::property::pop_ck) == golden["receipt"].get<std::string>());
    CHECK(r.msg_found_list[2].property_view(rmq::property::pop_ck) ==
          "3 1700000000000 30000 2 1 broker-a 0 3");
}

TEST_CASE("a receipt from the retry topic of enableRetryTopicV2 (topic mark 2) matches ExtraInfoUtil",
          "[pop][golden]") {
    const auto golden = rmq_test::load_golden("pop.json");
    const std::string text = golden["retry_v2_receipt"];
    const auto receipt = rmq::PopReceipt::parse(text);
    CHECK(receipt.retry);
    CHECK(receipt.retry_v2);
    CHECK(receipt.topic_mark() == '2');
    CHECK(receipt.to_string() == text);

    // Its ack names %RETRY%<group>+<topic>, as ExtraInfoUtil.getRealTopic does.
    std::map<std::string, std::string> java;
    for (const auto& [k, v] : golden["retry_v2_ack"]["ext_fields"].items()) {
        java[k] = v.get<std::string>();
    }
    CHECK(sorted(rr::to_ext_fields(rr::AckMessageRequestHeader::from(rmq::AckArgs{"g", "T", text}))) == java);

    // A pop answer whose offset infos name the v2 retry topic gives its messages receipts marked 2.
    const auto resp = pop_answer(2,
                                 golden["retry_v2_start_offset_info"].get<std::string>(),
                                 golden["retry_v2_msg_offset_info"].get<std::string>(),
                                 {{"T", 1, 10}, {"%RETRY%g+T", 0, 4}});
    const auto r = rr::to_pop_result(resp, "broker-b", "T");
    REQUIRE(r.msg_found_list.size() == 2);
    CHECK(r.msg_found_list[1].property_view(rmq::property::pop_ck) == text);
}

TEST_CASE("an orderly pop's receipts and orderCountInfo match ExtraInfoUtil", "[pop][golden]") {
    const auto order = rmq_test::load_golden("pop.json")["order"];
    const auto receipt = rmq::PopReceipt::parse(order["receipt"].get<std::string>());
    CHECK(receipt.order() == order["is_order"].get<bool>());
    CHECK(receipt.revive_qid == rmq::pop_order_revive_queue);

    // Java's answer to an orderly pop of queue 2: offsets 20 and 21 were served 3 and 2 times before, 22 is
    // new (the queue's entry, for older clients, says 0). processPopResponse gives each message its own
    // count (getQueueOffsetMapKey) and falls back to the queue's.
    const auto resp = pop_answer(rmq::pop_order_revive_queue,
                                 order["start_offset_info"].get<std::string>(),
                                 order["msg_offset_info"].get<std::string>(),
                                 {{"T", 2, 20}, {"T", 2, 21}, {"T", 2, 22}},
                                 order["order_count_info"].get<std::string>());
    const auto r = rr::to_pop_result(resp, "broker-a", "T", true);
    REQUIRE(r.msg_found_list.size() == 3);
    const auto parsed = order["parsed_order_count_info"];
    CHECK(r.msg_found_list[0].reconsume_times() == parsed["0@qo2%20"].get<int>());
    CHECK(r.msg_found_list[1].reconsume_times() == parsed["0@qo2%21"].get<int>());
    CHECK(r.msg_found_list[2].reconsume_times() == parsed["0@2"].get<int>());
    CHECK(r.msg_found_list[1].property_view(rmq::property::pop_ck) == order["receipt"].get<std::string>());

    // Not an orderly pop: the counts are not read (processPopResponse looks at them only for order).
    const auto plain = rr::to_pop_result(resp, "broker-a", "T");
    CHECK(plain.msg_found_list[0].reconsume_times() == 0);
}

}  // namespace pop_golden_test
