// The 5.x POP requests on the wire: header fields and their order, the JSON-only encoding of codes that do
// not fit the binary header, receipts (ExtraInfoUtil), and the decoding of POP_MESSAGE answers
// (processPopResponse).

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/headers/pop.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>

namespace {

namespace rr = rmq::remoting;

std::vector<std::pair<std::string, std::string>> fields_of(const rr::ExtFields& f) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : f) {
        out.emplace_back(k, v.value_or("<null>"));
    }
    return out;
}

rr::Command pop_answer(int code) {
    rr::Command r;
    r.code = code;
    r.language = rr::LanguageCode::Java;
    r.flag = rr::command_flag::response;
    return r;
}

rmq::MessageExt stored(std::string topic, std::int32_t queue_id, std::int64_t offset, std::string body) {
    rmq::MessageExt m;
    m.set_topic(std::move(topic));
    m.set_queue_id(queue_id);
    m.set_queue_offset(offset);
    m.set_body(std::move(body));
    m.set_born_host("127.0.0.1:5000");
    m.set_store_host("127.0.0.1:10911");
    m.set_commit_log_offset(1000 + offset);
    return m;
}

}  // namespace

TEST_CASE("pop request codes are Java's and leave the int16 range") {
    STATIC_REQUIRE(rr::request_code::pop_message == 200050);
    STATIC_REQUIRE(rr::request_code::ack_message == 200051);
    STATIC_REQUIRE(rr::request_code::change_message_invisibletime == 200053);
    STATIC_REQUIRE(rr::request_code::notification == 200054);
    STATIC_REQUIRE(rr::request_code::batch_ack_message == 200151);
    STATIC_REQUIRE(rmq::response_code::polling_full == 209);
    STATIC_REQUIRE(rmq::response_code::polling_timeout == 210);
}

TEST_CASE("a POP_MESSAGE request goes with a JSON header whatever serialization is configured") {
    rmq::PopArgs a;
    a.consumer_group = "g";
    a.topic = "T";
    a.broker_name = "broker-a";
    a.max_msg_nums = 16;
    a.invisible_time_millis = 30000;
    a.poll_time_millis = 5000;
    auto cmd = rr::make_request(rr::request_code::pop_message, rr::PopMessageRequestHeader::from(a, 1234));
    cmd.opaque = 7;
    // Java's RocketMQSerializable would write (short) 200050 = 3442: rmq refuses instead of truncating...
    REQUIRE_THROWS_AS(rr::encode(cmd, rr::SerializeType::RocketMQ), rr::CodecError);
    // ...and the transport sends such codes as JSON, with the whole int.
    CHECK(rr::request_serialize_type(cmd, rr::SerializeType::RocketMQ) == rr::SerializeType::Json);
    rr::Command pull;
    pull.code = rr::request_code::pull_message;
    CHECK(rr::request_serialize_type(pull, rr::SerializeType::RocketMQ) == rr::SerializeType::RocketMQ);
    CHECK(rr::request_serialize_type(pull, rr::SerializeType::Json) == rr::SerializeType::Json);

    const std::string frame = rr::encode(cmd, rr::request_serialize_type(cmd, rr::SerializeType::RocketMQ));
    const std::string header =
        R"({"code":200050,"extFields":{"consumerGroup":"g","topic":"T","queueId":"-1","maxMsgNums":"16",)"
        R"("invisibleTime":"30000","pollTime":"5000","bornTime":"1234","initMode":"1","expType":"TAG",)"
        R"("exp":"*","order":"false","bname":"broker-a"},"flag":0,"language":"CPP","opaque":7,)"
        R"("serializeTypeCurrentRPC":"JSON","version":409})";
    // int32 length, int32 (type 0 << 24 | header length), header, no body
    REQUIRE(frame.size() == 8 + header.size());
    CHECK(frame.substr(8) == header);
    CHECK(static_cast<unsigned char>(frame[4]) == 0);  // JSON
    CHECK(static_cast<std::size_t>(static_cast<unsigned char>(frame[6])) * 256 +
              static_cast<unsigned char>(frame[7]) ==
          header.size());
    const auto back = rr::decode(frame);
    CHECK(back.code == 200050);
    const auto h = rr::header_of<rr::PopMessageRequestHeader>(back);
    CHECK(h.max_msg_nums == 16);
    CHECK(h.invisible_time == 30000);
    CHECK(h.exp == "*");
    CHECK(h.order == false);
}

TEST_CASE("ack and change invisible time headers come from the receipt") {
    const std::string receipt = "3 1700000000000 30000 2 1 broker-b 0 3";
    rmq::AckArgs ack{"g", "T", receipt};
    const auto a = rr::AckMessageRequestHeader::from(ack);
    CHECK(fields_of(rr::to_ext_fields(a)) ==
          std::vector<std::pair<std::string, std::string>>{
              {"consumerGroup", "g"},
              {"topic", "%RETRY%g_T"},  // a redelivery: the pop retry topic
              {"queueId", "0"},
              {"extraInfo", receipt},
              {"offset", "3"},
              {"bname", "broker-b"}});
    rmq::ChangeInvisibleTimeArgs change{"g", "T", "10 1700000000000 30000 2 0 broker-a 1 11", 5000};
    const auto c = rr::ChangeInvisibleTimeRequestHeader::from(change);
    CHECK(fields_of(rr::to_ext_fields(c)) ==
          std::vector<std::pair<std::string, std::string>>{{"consumerGroup", "g"},
                                                           {"topic", "T"},
                                                           {"queueId", "1"},
                                                           {"extraInfo", change.extra_info},
                                                           {"offset", "11"},
                                                           {"invisibleTime", "5000"},
                                                           {"bname", "broker-a"}});
    rmq::AckArgs bad{"g", "T", "10 1700000000000 30000"};
    CHECK_THROWS_WITH(rr::AckMessageRequestHeader::from(bad), Catch::Contains("has 3 fields, 8 expected"));
}

TEST_CASE("receipts parse and print as ExtraInfoUtil writes them") {
    const auto r = rmq::PopReceipt::parse("10 1700000000000 30000 2 0 broker-a 1 11");
    CHECK(r.ck_queue_offset == 10);
    CHECK(r.pop_time == 1700000000000);
    CHECK(r.invisible_time == 30000);
    CHECK(r.revive_qid == 2);
    CHECK_FALSE(r.retry);
    CHECK(r.broker_name == "broker-a");
    CHECK(r.queue_id == 1);
    CHECK(r.queue_offset == 11);
    CHECK(r.visible_at() == 1700000030000);
    CHECK(r.to_string() == "10 1700000000000 30000 2 0 broker-a 1 11");
    CHECK(r.real_topic("T", "g") == "T");
    CHECK(rmq::pop_retry_topic("T", "g") == "%RETRY%g_T");
    CHECK_THROWS_AS(rmq::PopReceipt::parse(""), rmq::InvalidArgument);
    CHECK_THROWS_WITH(rmq::PopReceipt::parse("x 1 2 3 0 b 1 11"), Catch::Contains("ckQueueOffset \"x\""));
    rmq::MessageExt plain;
    CHECK_THROWS_WITH(rmq::PopReceipt::of(plain), Catch::Contains("not received by POP"));
}

TEST_CASE("a receipt of the V2 pop retry topic keeps topicMark 2 and names %RETRY%<group>+<topic>") {
    const std::string receipt = "3 1700000000000 30000 2 2 broker-b 0 3";
    const auto r = rmq::PopReceipt::parse(receipt);
    CHECK(r.retry);
    CHECK(r.retry_v2);
    CHECK(r.to_string() == receipt);
    CHECK(r.real_topic("T", "g") == "%RETRY%g+T");
    CHECK(rmq::pop_topic_mark("%RETRY%g+T") == '2');
    CHECK(rmq::pop_topic_mark("%RETRY%g_T") == '1');
    CHECK(rmq::pop_topic_mark("T") == '0');
    const auto a = rr::AckMessageRequestHeader::from(rmq::AckArgs{"g", "T", receipt});
    CHECK(a.topic == "%RETRY%g+T");
    CHECK(a.extra_info == receipt);
    // An answer from a broker with enableRetryTopicV2: offset infos keyed "2@queueId".
    auto resp = pop_answer(rmq::response_code::success);
    rr::PopMessageResponseHeader h;
    h.pop_time = 1700000000000;
    h.invisible_time = 30000;
    h.revive_qid = 2;
    h.start_offset_info = "2 0 3";
    h.msg_offset_info = "2 0 3";
    resp.ext_fields = rr::to_ext_fields(h);
    resp.body = rr::encode_message(stored("%RETRY%g+T", 0, 3, "c"));
    const auto popped = rr::to_pop_result(resp, "broker-b", "T");
    REQUIRE(popped.msg_found_list.size() == 1);
    CHECK(popped.msg_found_list[0].property_view(rmq::property::pop_ck) == receipt);
    CHECK(popped.msg_found_list[0].topic() == "T");
}

TEST_CASE("a POP_MESSAGE answer gives every message its receipt from the offset infos") {
    auto resp = pop_answer(rmq::response_code::success);
    rr::PopMessageResponseHeader h;
    h.pop_time = 1700000000000;
    h.invisible_time = 30000;
    h.revive_qid = 2;
    h.rest_num = 5;
    h.start_offset_info = "0 1 10;1 0 3";
    h.msg_offset_info = "0 1 10,11;1 0 3";
    resp.ext_fields = rr::to_ext_fields(h);
    auto retry_with_ck = stored("T", 0, 7, "d");
    retry_with_ck.set_property(rmq::property::pop_ck, "7 1700000000000 30000 2 1 broker-a 0 7");
    for (const auto& m :
         {stored("T", 1, 10, "a"), stored("T", 1, 11, "b"), stored("%RETRY%g_T", 0, 3, "c"), retry_with_ck}) {
        resp.body += rr::encode_message(m);
    }
    const auto r = rr::to_pop_result(resp, "broker-a", "T");
    CHECK(r.status == rmq::PopStatus::Found);
    CHECK(r.rest_num == 5);
    CHECK(r.pop_time == 1700000000000);
    REQUIRE(r.msg_found_list.size() == 4);
    std::vector<std::string> receipts;
    for (const auto& m : r.msg_found_list) {
        receipts.emplace_back(m.property_view(rmq::property::pop_ck));
        CHECK(m.topic() == "T");  // the subscribed topic, also for the redelivery
        CHECK(m.broker_name() == "broker-a");
        CHECK(m.property_view(rmq::property::first_pop_time) == "1700000000000");
    }
    CHECK(receipts == std::vector<std::string>{"10 1700000000000 30000 2 0 broker-a 1 10",
                                               "10 1700000000000 30000 2 0 broker-a 1 11",
                                               "3 1700000000000 30000 2 1 broker-a 0 3",
                                               "7 1700000000000 30000 2 1 broker-a 0 7"});
}

TEST_CASE("an orderly POP_MESSAGE answer gives reconsume times from orderCountInfo") {
    auto resp = pop_answer(rmq::response_code::success);
    rr::PopMessageResponseHeader h;
    h.pop_time = 1700000000000;
    h.invisible_time = 30000;
    h.revive_qid = rmq::pop_order_revive_queue;
    h.start_offset_info = "0 1 10;0 3 4";
    h.msg_offset_info = "0 1 10,11;0 3 4";
    // Queue 1: offset 10 was served twice before; queue 3: only the queue's entry (an older broker's form).
    h.order_count_info = "0 qo1%10 2;0 1 0;0 3 5";
    resp.ext_fields = rr::to_ext_fields(h);
    for (const auto& m : {stored("T", 1, 10, "a"), stored("T", 1, 11, "b"), stored("T", 3, 4, "c")}) {
        resp.body += rr::encode_message(m);
    }
    const auto r = rr::to_pop_result(resp, "broker-a", "T", true);
    REQUIRE(r.msg_found_list.size() == 3);
    CHECK(r.msg_found_list[0].reconsume_times() == 2);
    CHECK(r.msg_found_list[1].reconsume_times() == 0);
    CHECK(r.msg_found_list[2].reconsume_times() == 5);
    CHECK(rmq::PopReceipt::of(r.msg_found_list[0]).order());
    CHECK(r.msg_found_list[0].property_view(rmq::property::pop_ck) ==
          "10 1700000000000 30000 999 0 broker-a 1 10");

    h.order_count_info = "0 qo1%10 x";
    resp.ext_fields = rr::to_ext_fields(h);
    CHECK_THROWS_AS(rr::to_pop_result(resp, "broker-a", "T", true), rr::CodecError);
}

TEST_CASE("an orderly POP_MESSAGE request says order and the queue") {
    rmq::PopArgs a;
    a.consumer_group = "g";
    a.topic = "T";
    a.queue_id = 2;
    a.order = true;
    const auto fields = rr::to_ext_fields(rr::PopMessageRequestHeader::from(a, 1));
    CHECK(fields.get("order") == "true");
    CHECK(fields.get("queueId") == "2");
    a.order = false;
    CHECK(rr::to_ext_fields(rr::PopMessageRequestHeader::from(a, 1)).get("order") == "false");
}

TEST_CASE("a POP_MESSAGE answer without offset infos checkpoints each queue at its first message") {
    auto resp = pop_answer(rmq::response_code::success);
    rr::PopMessageResponseHeader h;
    h.pop_time = 5;
    h.invisible_time = 6;
    resp.ext_fields = rr::to_ext_fields(h);
    resp.body = rr::encode_message(stored("T", 2, 40, "a")) + rr::encode_message(stored("T", 2, 41, "b"));
    const auto r = rr::to_pop_result(resp, "b", "T");
    REQUIRE(r.msg_found_list.size() == 2);
    CHECK(r.msg_found_list[1].property_view(rmq::property::pop_ck) == "40 5 6 0 0 b 2 41");
}

TEST_CASE("POP_MESSAGE answers without messages and refusals") {
    rr::PopMessageResponseHeader h;
    h.rest_num = 0;
    for (const int code : {rmq::response_code::polling_timeout,
                           rmq::response_code::pull_not_found,
                           rmq::response_code::polling_full}) {
        auto resp = pop_answer(code);
        resp.ext_fields = rr::to_ext_fields(h);
        const auto r = rr::to_pop_result(resp, "b", "T");
        CHECK(r.msg_found_list.empty());
        CHECK(r.status == (code == rmq::response_code::polling_full ? rmq::PopStatus::PollingFull
                                                                    : rmq::PopStatus::PollingNotFound));
    }
    // What a 4.9.x broker answers an unknown request code.
    auto old = pop_answer(rmq::response_code::request_code_not_supported);
    old.remark = " request type 200050 not supported";
    CHECK_THROWS_AS(rr::to_pop_result(old, "b", "T"), rmq::PopUnsupported);
    CHECK_THROWS_WITH(rr::to_pop_result(old, "b", "T"), Catch::Contains("does not support POP"));
    auto busy = pop_answer(rmq::response_code::system_busy);
    try {
        (void)rr::to_pop_result(busy, "b", "T");
        FAIL("no throw");
    } catch (const rmq::PopUnsupported&) {
        FAIL("SYSTEM_BUSY is no lack of POP");
    } catch (const rmq::BrokerError& e) {
        CHECK(e.code() == rmq::response_code::system_busy);
    }
    auto bad = pop_answer(rmq::response_code::success);
    h.start_offset_info = "0 1";
    bad.ext_fields = rr::to_ext_fields(h);
    bad.body = rr::encode_message(stored("T", 1, 1, "a"));
    CHECK_THROWS_AS(rr::to_pop_result(bad, "b", "T"), rr::CodecError);
}

TEST_CASE("a CHANGE_MESSAGE_INVISIBLETIME answer makes the new receipt") {
    rmq::ChangeInvisibleTimeArgs change{"g", "T", "10 1700000000000 30000 2 0 broker-a 1 11", 5000};
    const auto req = rr::ChangeInvisibleTimeRequestHeader::from(change);
    auto resp = pop_answer(rmq::response_code::success);
    resp.ext_fields = rr::to_ext_fields(rr::ChangeInvisibleTimeResponseHeader{1700000001000, 5000, 3});
    CHECK(rr::changed_receipt(resp, req) == "11 1700000001000 5000 3 0 broker-a 1 11");
    auto refused = pop_answer(rmq::response_code::no_message);
    CHECK_THROWS_AS(rr::changed_receipt(refused, req), rmq::BrokerError);
}
