// The trace codec against tests/data/trace.json, written by Apache RocketMQ's TraceDataEncoder
// (tools/golden/TraceVectors.java): every record byte for byte, its keys, and what Java decodes from it.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <golden.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <rmq/error.hpp>
#include <rmq/trace.hpp>

namespace trace_encoder_test {

namespace {

using nlohmann::json;

rmq::TraceText text(const json& j) {
    return j.is_null() ? std::nullopt : std::optional<std::string>(j.get<std::string>());
}

rmq::TraceType trace_type(const std::string& name) {
    for (const auto t : {rmq::TraceType::Pub,
                         rmq::TraceType::Recall,
                         rmq::TraceType::SubBefore,
                         rmq::TraceType::SubAfter,
                         rmq::TraceType::EndTransaction}) {
        if (rmq::trace_type_name(t) == name) {
            return t;
        }
    }
    throw std::runtime_error("unknown trace type " + name);
}

rmq::LocalTransactionState state_of(const json& j) {
    if (j.is_null()) {
        return rmq::LocalTransactionState::Unknow;
    }
    const auto s = j.get<std::string>();
    return s == "COMMIT_MESSAGE"     ? rmq::LocalTransactionState::CommitMessage
           : s == "ROLLBACK_MESSAGE" ? rmq::LocalTransactionState::RollbackMessage
                                     : rmq::LocalTransactionState::Unknow;
}

rmq::TraceBean bean_of(const json& j) {
    rmq::TraceBean b;
    b.topic = text(j.at("topic"));
    b.msg_id = text(j.at("msgId"));
    b.offset_msg_id = text(j.at("offsetMsgId"));
    b.tags = text(j.at("tags"));
    b.keys = text(j.at("keys"));
    b.store_host = text(j.at("storeHost"));
    b.body_length = j.at("bodyLength").get<std::int32_t>();
    b.retry_times = j.at("retryTimes").get<std::int32_t>();
    if (!j.at("msgType").is_null()) {
        b.msg_type = static_cast<rmq::TraceMessageType>(j.at("msgType").get<int>());
    }
    b.transaction_id = text(j.at("transactionId"));
    b.transaction_state = state_of(j.at("transactionState"));
    b.from_transaction_check = j.at("fromTransactionCheck").get<bool>();
    return b;
}

rmq::TraceContext context_of(const json& j) {
    rmq::TraceContext c;
    c.trace_type = trace_type(j.at("traceType").get<std::string>());
    c.time_stamp = j.at("timeStamp").get<std::int64_t>();
    c.region_id = text(j.at("regionId"));
    c.group_name = text(j.at("groupName"));
    c.request_id = text(j.at("requestId"));
    c.cost_time = j.at("costTime").get<std::int32_t>();
    c.is_success = j.at("success").get<bool>();
    c.context_code = j.at("contextCode").get<std::int32_t>();
    c.access_channel =
        j.at("accessChannel") == "CLOUD" ? rmq::AccessChannel::Cloud : rmq::AccessChannel::Local;
    for (const auto& b : j.at("beans")) {
        c.trace_beans.push_back(bean_of(b));
    }
    return c;
}

/// A decoded record against Java's: the fields the record carries (null in the vector: not carried).
void check_decoded(const rmq::TraceContext& got, const json& want) {
    CHECK(rmq::trace_type_name(got.trace_type) == want.at("traceType").get<std::string>());
    if (!want.at("timeStamp").is_null()) {
        CHECK(got.time_stamp == want.at("timeStamp").get<std::int64_t>());
    }
    for (const auto& [field, value] : {std::pair{"regionId", &got.region_id},
                                       std::pair{"groupName", &got.group_name},
                                       std::pair{"requestId", &got.request_id}}) {
        if (!want.at(field).is_null()) {
            CHECK(*value == text(want.at(field)));
        }
    }
    CHECK(got.cost_time == want.at("costTime").get<std::int32_t>());
    CHECK(got.is_success == want.at("success").get<bool>());
    CHECK(got.context_code == want.at("contextCode").get<std::int32_t>());
    REQUIRE(got.trace_beans.size() == 1);
    const auto& b = got.trace_beans.front();
    const auto& wb = want.at("bean");
    CHECK(b.msg_id == text(wb.at("msgId")));
    CHECK(b.keys == text(wb.at("keys")));
    CHECK(b.retry_times == wb.at("retryTimes").get<std::int32_t>());
    if (got.trace_type == rmq::TraceType::Pub || got.trace_type == rmq::TraceType::EndTransaction) {
        CHECK(b.topic == text(wb.at("topic")));
        CHECK(b.tags == text(wb.at("tags")));
        CHECK(b.store_host == text(wb.at("storeHost")));
        CHECK(static_cast<int>(b.msg_type) == wb.at("msgType").get<int>());
    }
    if (got.trace_type == rmq::TraceType::Pub) {
        CHECK(b.offset_msg_id == text(wb.at("offsetMsgId")));
        CHECK(b.body_length == wb.at("bodyLength").get<std::int32_t>());
    }
    if (got.trace_type == rmq::TraceType::EndTransaction) {
        CHECK(b.transaction_id == text(wb.at("transactionId")));
        CHECK(b.transaction_state == state_of(wb.at("transactionState")));
        CHECK(b.from_transaction_check == wb.at("fromTransactionCheck").get<bool>());
    }
}

}  // namespace

TEST_CASE("trace records encode byte for byte as Java's TraceDataEncoder", "[trace][golden]") {
    const auto golden = rmq_test::load_golden("trace.json");
    std::size_t checked = 0;
    for (const auto& c : golden.at("cases")) {
        INFO(c.at("name").get<std::string>());
        const auto encoded = rmq::encode_trace_context(context_of(c.at("context")));
        CHECK(encoded.trans_data == c.at("transData").get<std::string>());
        CHECK(encoded.trans_key == c.at("transKey").get<std::set<std::string>>());
        ++checked;
    }
    CHECK(checked == 13);
}

TEST_CASE("trace records decode as Java's decoderFromTraceDataString", "[trace][golden]") {
    const auto golden = rmq_test::load_golden("trace.json");
    std::size_t decoded = 0;
    std::size_t refused = 0;
    for (const auto& c : golden.at("cases")) {
        INFO(c.at("name").get<std::string>());
        const auto data = c.at("transData").get<std::string>();
        if (c.at("decoded").is_object()) {  // Java throws on it: so does rmq, with a typed error
            CHECK_THROWS_AS(rmq::decode_trace_data(data), rmq::InvalidArgument);
            ++refused;
            continue;
        }
        const auto got = rmq::decode_trace_data(data);
        REQUIRE(got.size() == c.at("decoded").size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            check_decoded(got[i], c.at("decoded")[i]);
            ++decoded;
        }
    }
    CHECK(decoded == 15);
    CHECK(refused == 1);

    const auto& batch = golden.at("batch");
    const auto all = rmq::decode_trace_data(batch.at("data").get<std::string>());
    REQUIRE(all.size() == batch.at("decoded").size());
    REQUIRE(all.size() == 15);
    for (std::size_t i = 0; i < all.size(); ++i) {
        check_decoded(all[i], batch.at("decoded")[i]);
    }
}

TEST_CASE("a malformed trace record is a typed error naming it", "[trace]") {
    CHECK(rmq::decode_trace_data("").empty());
    CHECK(rmq::decode_trace_data("Unknown\x01x\x02").empty());
    CHECK_THROWS_WITH(rmq::decode_trace_data("Pub\x01not-a-time\x02"), Catch::Contains("timeStamp"));
    CHECK_THROWS_WITH(rmq::decode_trace_data("SubAfter\x01r\x02"), Catch::Contains("SubAfter has 2 fields"));
    CHECK_THROWS_AS(rmq::encode_trace_context(rmq::TraceContext{}), rmq::InvalidArgument);
}

}  // namespace trace_encoder_test
