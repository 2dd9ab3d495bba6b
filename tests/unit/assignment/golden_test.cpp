// QUERY_ASSIGNMENT and SET_MESSAGE_REQUEST_MODE bodies against what Apache RocketMQ 5.3.3's own classes make
// of them (tests/data/assignment.json, tools/golden/AssignmentGolden.java): rmq writes the requests byte for
// byte as Java does and reads Java's answers field by field.

#include <algorithm>
#include <string>
#include <vector>

#include <golden.hpp>

#include <catch2/catch.hpp>

#include <rmq/assignment.hpp>
#include <rmq/remoting/bodies/assignment.hpp>
#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/request_code.hpp>

namespace {

namespace rr = rmq::remoting;

rmq::MessageModel model_named(const std::string& name) {
    return name == "BROADCASTING" ? rmq::MessageModel::Broadcasting : rmq::MessageModel::Clustering;
}

std::vector<rmq::MessageQueueAssignment> java_assignments(const nlohmann::json& list) {
    std::vector<rmq::MessageQueueAssignment> out;
    for (const auto& a : list) {
        rmq::MessageQueueAssignment x;
        x.message_queue = rmq::MessageQueue{a["topic"], a["broker_name"], a["queue_id"].get<int>()};
        x.mode = rr::parse_message_request_mode(a["mode"].get<std::string>());
        for (const auto& [k, v] : a["attachments"].items()) {
            x.attachments[k] = v.get<std::string>();
        }
        out.push_back(x);
    }
    return out;
}

bool by_queue(const rmq::MessageQueueAssignment& a, const rmq::MessageQueueAssignment& b) {
    return a.message_queue < b.message_queue;
}

}  // namespace

TEST_CASE("assignment request codes are Java's", "[assignment][golden]") {
    const auto golden = rmq_test::load_golden("assignment.json");
    CHECK(rr::request_code::query_assignment == golden["codes"]["query_assignment"].get<int>());
    CHECK(rr::request_code::set_message_request_mode ==
          golden["codes"]["set_message_request_mode"].get<int>());
}

TEST_CASE("a QUERY_ASSIGNMENT request body is Java's, byte for byte", "[assignment][golden]") {
    const auto golden = rmq_test::load_golden("assignment.json");
    REQUIRE(golden["query_requests"].size() == 3);
    for (const auto& q : golden["query_requests"]) {
        const rmq::QueryAssignmentArgs args{.topic = q["topic"],
                                            .consumer_group = q["consumer_group"],
                                            .client_id = q["client_id"],
                                            .strategy_name = q["strategy_name"],
                                            .message_model = model_named(q["message_model"])};
        INFO(args.topic);
        CHECK(rr::encode_query_assignment_request(args) == q["body"].get<std::string>());
        CHECK(rr::decode_query_assignment_request(q["body"].get<std::string>()) == args);
    }
}

TEST_CASE("a QUERY_ASSIGNMENT answer of Java's decodes field by field", "[assignment][golden]") {
    const auto golden = rmq_test::load_golden("assignment.json");
    REQUIRE(golden["query_responses"].size() == 4);
    for (const auto& r : golden["query_responses"]) {
        const std::string name = r["name"];
        INFO(name);
        const auto decoded = rr::decode_query_assignment_response(r["body"].get<std::string>());
        if (r["assignments"].is_null()) {
            CHECK_FALSE(decoded.has_value());
            CHECK(rr::encode_query_assignment_response(std::nullopt) == r["body"].get<std::string>());
            continue;
        }
        REQUIRE(decoded.has_value());
        auto mine = *decoded;
        auto java = java_assignments(r["assignments"]);
        std::sort(mine.begin(), mine.end(), by_queue);
        std::sort(java.begin(), java.end(), by_queue);
        CHECK(mine == java);
        // What rmq writes (the fake brokers of the transport tests) reads back the same.
        CHECK(rr::decode_query_assignment_response(rr::encode_query_assignment_response(java)) == java);
    }
}

TEST_CASE("a SET_MESSAGE_REQUEST_MODE body is Java's, byte for byte", "[assignment][golden]") {
    const auto golden = rmq_test::load_golden("assignment.json");
    REQUIRE(golden["set_mode_requests"].size() == 2);
    for (const auto& s : golden["set_mode_requests"]) {
        const rmq::SetMessageRequestModeArgs args{
            .topic = s["topic"],
            .consumer_group = s["consumer_group"],
            .mode = rr::parse_message_request_mode(s["mode"].get<std::string>()),
            .pop_share_queue_num = s["pop_share_queue_num"].get<int>()};
        CHECK(rr::encode_set_message_request_mode(args) == s["body"].get<std::string>());
        CHECK(rr::decode_set_message_request_mode(s["body"].get<std::string>()) == args);
    }
}

TEST_CASE("an unknown request mode or message model is a CodecError naming it", "[assignment]") {
    CHECK_THROWS_WITH(rr::parse_message_request_mode("PUSH"), Catch::Contains("PUSH"));
    CHECK_THROWS_AS(
        rr::decode_query_assignment_response(R"({"messageQueueAssignments":[{"messageQueue":)"
                                             R"({"brokerName":"b","queueId":0,"topic":"T"},"mode":"X"}]})"),
        rr::CodecError);
    CHECK_THROWS_WITH(rr::decode_query_assignment_request(R"({"messageModel":"BOTH","topic":"T"})"),
                      Catch::Contains("BOTH"));
}
