#include <string>
#include <vector>

#include <golden.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <rmq/remoting/bodies.hpp>
#include <rmq/remoting/codec_error.hpp>

namespace {

using namespace rmq::remoting;

std::string reencode(const std::string& cls, const std::string& json) {
    if (cls.ends_with(".TopicRouteData")) {
        return encode_topic_route_data(decode_topic_route_data(json));
    }
    if (cls.ends_with(".HeartbeatData")) {
        return encode_heartbeat_data(decode_heartbeat_data(json));
    }
    if (cls.ends_with(".LockBatchRequestBody")) {
        return encode_lock_batch_request(decode_lock_batch_request(json));
    }
    if (cls.ends_with(".LockBatchResponseBody")) {
        return encode_lock_batch_response(decode_lock_batch_response(json));
    }
    if (cls.ends_with(".GetConsumerListByGroupResponseBody")) {
        return encode_consumer_list(decode_consumer_list(json));
    }
    FAIL("no codec for " << cls);
    return {};
}

}  // namespace

TEST_CASE("every bodies.json body decodes and re-encodes byte for byte", "[remoting][golden]") {
    const auto golden = rmq_test::load_golden("bodies.json");
    const auto& bodies = golden.at("bodies");
    REQUIRE(bodies.size() == golden.at("body_count").get<std::size_t>());
    REQUIRE(bodies.size() == 9);
    std::size_t routes = 0;
    for (const auto& b : bodies) {
        const auto cls = b.at("class").get<std::string>();
        const auto json = b.at("json").get<std::string>();
        INFO(b.at("name").get<std::string>());
        CHECK(reencode(cls, json) == json);
        CHECK(reencode(cls, json) == b.at("decode_then_encode").get<std::string>());
        if (b.contains("json_standard")) {
            const auto standard = b.at("json_standard").get<std::string>();
            const TopicRouteData route = decode_topic_route_data(json);
            CHECK(encode_topic_route_data(route, RouteJsonForm::Standard) == standard);
            CHECK(decode_topic_route_data(standard) == route);
            CHECK(encode_topic_route_data(decode_topic_route_data(standard)) ==
                  b.at("json_standard_decode_then_encode").get<std::string>());
            ++routes;
        }
    }
    CHECK(routes == 2);
}

TEST_CASE("every bodies.json parse case is read as fastjson reads it", "[remoting][golden]") {
    const auto golden = rmq_test::load_golden("bodies.json");
    const auto& cases = golden.at("parse");
    REQUIRE(cases.size() == 4);
    for (const auto& c : cases) {
        INFO(c.at("input").get<std::string>());
        CHECK(reencode(c.at("class").get<std::string>(), c.at("input").get<std::string>()) ==
              c.at("reencoded").get<std::string>());
    }
}

TEST_CASE("route fields decode into typed data", "[remoting][golden]") {
    const auto golden = rmq_test::load_golden("bodies.json");
    const auto& b = golden.at("bodies").at(1);
    REQUIRE(b.at("name") == "TopicRouteData_ordered_ipv6_filterservers");
    const TopicRouteData route = decode_topic_route_data(b.at("json").get<std::string>());
    REQUIRE(route.broker_datas.size() == 2);
    CHECK(route.broker_datas[0].broker_name == "broker-b");
    CHECK(route.broker_datas[0].address(2) == std::optional<std::string_view>("[2001:db8::12]:10911"));
    CHECK(route.broker_datas[1].address(10) == std::optional<std::string_view>("10.1.1.10:10911"));
    CHECK_FALSE(route.broker_datas[1].address(1).has_value());
    REQUIRE(route.queue_datas.size() == 2);
    CHECK(route.queue_datas[1].topic_sys_flag == 1);
    CHECK(route.order_topic_conf == std::optional<std::string>("broker-a:4;broker-b:4"));
    REQUIRE(route.filter_server_table.has_value());
    CHECK(route.filter_server_table->at(0).second.size() == 2);

    // orderTopicConf lists the write queues; read queues come from readable QueueData only.
    const rmq::TopicRoute view = to_topic_route("T", route);
    CHECK(view.write_queues.size() == 8);
    CHECK(view.write_queues.front() == rmq::MessageQueue{"T", "broker-a", 0});
    CHECK(view.write_queues.back() == rmq::MessageQueue{"T", "broker-b", 3});
    REQUIRE(view.read_queues.size() == 4);  // broker-a has perm 2 (write only)
    CHECK(view.read_queues.front() == rmq::MessageQueue{"T", "broker-b", 0});

    const TopicRouteData plain =
        decode_topic_route_data(golden.at("bodies").at(0).at("json").get<std::string>());
    const rmq::TopicRoute v2 = to_topic_route("TopicTest", plain);
    CHECK(v2.read_queues.size() == 12);
    CHECK(v2.write_queues.size() == 12);
    CHECK(v2.write_queues.at(4) == rmq::MessageQueue{"TopicTest", "broker-b", 0});
}

TEST_CASE("old brokers' topicSynFlag and malformed bodies", "[remoting]") {
    const auto route = decode_topic_route_data(
        R"({"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":1,"topicSynFlag":3,"writeQueueNums":1}]})");
    CHECK(route.queue_datas.at(0).topic_sys_flag == 3);
    CHECK_FALSE(route.filter_server_table.has_value());
    CHECK_THROWS_AS(decode_topic_route_data("{"), CodecError);
    CHECK_THROWS_WITH(decode_topic_route_data(R"({"brokerDatas":[{"brokerAddrs":{"x":"a"}}]})"),
                      Catch::Contains("broker id"));
    CHECK_THROWS_WITH(decode_consumer_list(R"({"consumerIdList":"a"})"), Catch::Contains("not an array"));
    CHECK(decode_consumer_list("{}").empty());
    CHECK_THROWS_WITH(decode_heartbeat_data(R"({"consumerDataSet":[{"messageModel":"X"}]})"),
                      Catch::Contains("messageModel"));
}

TEST_CASE("a heartbeat built from subscriptions matches Java's HeartbeatData", "[remoting][golden]") {
    const auto golden = rmq_test::load_golden("bodies.json");
    const auto& b = golden.at("bodies").at(2);
    REQUIRE(b.at("name") == "HeartbeatData_consumer_with_two_subscriptions");
    rmq::HeartbeatData hb;
    hb.client_id = "10.0.0.5@12345";
    rmq::ConsumerData cd;
    cd.group_name = "please_rename_unique_group_name_4";
    cd.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    auto retry = rmq::parse_subscription("%RETRY%please_rename_unique_group_name_4", "*");
    retry.sub_version = 1700000000456;
    auto sub = rmq::parse_subscription("TopicTest", "TagA || TagB");
    sub.sub_version = 1700000000123;
    cd.subscription_data_set = {retry, sub};
    hb.consumer_data_set.push_back(cd);
    hb.producer_groups.push_back("CLIENT_INNER_PRODUCER");
    CHECK(encode_heartbeat_data(hb) == b.at("json").get<std::string>());
}

TEST_CASE("mq sets follow Java's HashSet order", "[remoting]") {
    LockBatchRequestBody body;
    body.consumer_group = "g";
    body.client_id = "c";
    for (int i = 0; i < 4; ++i) {
        body.mq_set.push_back(rmq::MessageQueue{"TopicTest", "broker-a", i});
    }
    const std::string json = encode_lock_batch_request(body);
    // Same members, Java order (3, 2, 1, 0 for these queues, as in bodies.json).
    CHECK(json.find(R"("queueId":3)") < json.find(R"("queueId":0)"));
    const auto back = decode_lock_batch_request(json);
    CHECK(back.mq_set.size() == 4);
    CHECK(back.consumer_group == "g");
    body.only_this_broker = false;
    CHECK_THAT(encode_lock_batch_request(body), Catch::EndsWith(R"(,"onlyThisBroker":false})"));
}

TEST_CASE("ResetOffsetBody is read in both forms a broker may send", "[remoting]") {
    using Entry = std::pair<rmq::MessageQueue, std::int64_t>;
    const std::vector<Entry> offsets{{rmq::MessageQueue{"T", "broker-a", 0}, 123},
                                     {rmq::MessageQueue{"T", "broker-b", 7}, -1}};
    const std::string object_keys = encode_reset_offset_body(offsets);
    CHECK(object_keys == R"({"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:123,)"
                         R"({"brokerName":"broker-b","queueId":7,"topic":"T"}:-1}})");
    CHECK(decode_reset_offset_body(object_keys) == offsets);
    const std::string for_c = encode_reset_offset_body(offsets, ResetOffsetForm::ForC);
    CHECK(for_c == R"({"offsetTable":[{"brokerName":"broker-a","offset":123,"queueId":0,"topic":"T"},)"
                   R"({"brokerName":"broker-b","offset":-1,"queueId":7,"topic":"T"}]})");
    CHECK(decode_reset_offset_body(for_c) == offsets);
    // Whitespace, other members and braces inside strings do not confuse the hand parser.
    CHECK(decode_reset_offset_body(R"({ "x" : {"a":"}{"}, "offsetTable" : { {"brokerName":"b}","queueId":1,)"
                                   R"("topic":"T"} : 5 } })") ==
          std::vector<Entry>{{rmq::MessageQueue{"T", "b}", 1}, 5}});
    CHECK(decode_reset_offset_body(R"({"offsetTable":{}})").empty());
    CHECK_THROWS_AS(decode_reset_offset_body(R"({"offsetTable":{{"brokerName":"b"}:x}})"), CodecError);
    CHECK_THROWS_AS(decode_reset_offset_body(R"({"offsetTable":{{"brokerName":"b"})"), CodecError);
    CHECK_THROWS_AS(decode_reset_offset_body("[]"), CodecError);
}
