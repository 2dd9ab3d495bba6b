#include <functional>
#include <map>
#include <string>

#include <golden.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <rmq/remoting/headers.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace headers_test {

namespace {

using namespace rmq::remoting;

std::string java_value_of(const nlohmann::json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::map<std::string, std::string> as_map(const ExtFields& f) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : f) {
        REQUIRE(v.has_value());
        out[k] = *v;
    }
    return out;
}

/// Round trip through the typed header: ext fields -> header -> ext fields (in the header's own order).
template <class Header>
ExtFields through(const ExtFields& in) {
    return to_ext_fields(from_ext_fields<Header>(in));
}

using Through = std::function<ExtFields(const ExtFields&)>;

const std::map<std::string, Through>& codecs() {
    static const std::map<std::string, Through> m{
        {"PullMessageRequestHeader", through<PullMessageRequestHeader>},
        {"PullMessageResponseHeader", through<PullMessageResponseHeader>},
        {"QueryConsumerOffsetRequestHeader", through<QueryConsumerOffsetRequestHeader>},
        {"QueryConsumerOffsetResponseHeader", through<OffsetResponseHeader>},
        {"UpdateConsumerOffsetRequestHeader", through<UpdateConsumerOffsetRequestHeader>},
        {"GetConsumerListByGroupRequestHeader", through<GetConsumerListByGroupRequestHeader>},
        {"GetConsumerListByGroupResponseHeader",
         [](const ExtFields& f) {
             return f;
         }},  // no fields
        {"ConsumerSendMsgBackRequestHeader", through<ConsumerSendMsgBackRequestHeader>},
        {"SendMessageRequestHeaderV2", through<SendMessageRequestHeaderV2>},
        {"SendMessageResponseHeader", through<SendMessageResponseHeader>},
        {"GetRouteInfoRequestHeader", through<GetRouteInfoRequestHeader>},
        {"NotifyConsumerIdsChangedRequestHeader", through<NotifyConsumerIdsChangedRequestHeader>},
    };
    return m;
}

}  // namespace

TEST_CASE("typed headers map to the ext fields Java sends, in FastCodesHeader wire order",
          "[remoting][golden]") {
    const auto golden = rmq_test::load_golden("remoting.json");
    std::size_t checked = 0;
    std::size_t wire_exact = 0;
    for (const auto& c : golden.at("commands")) {
        const auto& in = c.at("input");
        if (in.at("customHeader_class").is_null()) {
            continue;
        }
        const auto cls = in.at("customHeader_class").get<std::string>();
        const auto short_name = cls.substr(cls.rfind('.') + 1);
        INFO(c.at("name").get<std::string>() << " " << short_name);
        REQUIRE(codecs().count(short_name) == 1);
        ExtFields header_fields;
        std::map<std::string, std::string> expected;
        for (const auto& [k, v] : in.at("customHeader_fields").items()) {
            if (!v.is_null()) {
                header_fields.set(k, java_value_of(v));
                expected[k] = java_value_of(v);
            }
        }
        ExtFields fields = codecs().at(short_name)(header_fields);
        CHECK(as_map(fields) == expected);
        // The same typed values come out of the frame Java encoded (decodeCommandCustomHeader).
        const auto decoded =
            rmq::remoting::decode(rmq_test::from_hex(c.at("encodings").at("JSON").at("encode_hex")));
        ExtFields decoded_header;
        if (decoded.ext_fields) {
            for (const auto& [k, v] : *decoded.ext_fields) {
                if (expected.count(k) != 0) {
                    decoded_header.set(k, v);
                }
            }
        }
        CHECK(as_map(codecs().at(short_name)(decoded_header)) == expected);
        const auto& enc = c.at("encodings").at("ROCKETMQ");
        // Extra fields the broker adds itself come after the header's (SendMessageResponseHeader +
        // MSG_REGION).
        if (!in.at("extFields_preset").is_null()) {
            const Command wire_cmd = rmq::remoting::decode(rmq_test::from_hex(enc.at("wire_hex")));
            for (const auto& [k, v] : *wire_cmd.ext_fields) {
                if (expected.count(k) == 0) {
                    fields.set(k, v);
                }
            }
        }
        // In this order a ROCKETMQ frame equals what Java's NettyEncoder writes.
        if (!enc.at("wire_equals_encode").get<bool>()) {
            Command cmd = decoded;
            cmd.ext_fields = fields;
            CHECK(rmq_test::to_hex(encode(cmd, SerializeType::RocketMQ)) ==
                  enc.at("wire_hex").get<std::string>());
            ++wire_exact;
        }
        ++checked;
    }
    CHECK(checked == 17);
    CHECK(wire_exact == 6);  // every FastCodesHeader frame of remoting.json
}

TEST_CASE("headers built from rmq's request arguments", "[remoting][golden]") {
    const auto golden = rmq_test::load_golden("remoting.json");
    const auto& pull = golden.at("commands").at(0);
    REQUIRE(pull.at("name") == "PULL_MESSAGE_request");
    rmq::PullArgs args;
    args.consumer_group = "please_rename_unique_group_name_4";
    args.mq = rmq::MessageQueue{"TopicTest", "broker-a", 1};
    args.queue_offset = 1024;
    args.max_msg_nums = 32;
    args.sys_flag = 7;
    args.commit_offset = 1000;
    args.suspend_timeout_millis = 15000;
    args.subscription = "TagA || TagB";
    args.sub_version = 1700000000123;
    Command cmd = make_request(request_code::pull_message, PullMessageRequestHeader::from(args));
    cmd.language = LanguageCode::Java;
    cmd.version = 407;
    cmd.opaque = 101;
    CHECK(rmq_test::to_hex(encode(cmd, SerializeType::RocketMQ)) ==
          pull.at("encodings").at("ROCKETMQ").at("wire_hex").get<std::string>());

    const auto& back = golden.at("commands").at(15);
    REQUIRE(back.at("name") == "CONSUMER_SEND_MSG_BACK_request");
    rmq::SendBackArgs sb;
    sb.group = "please_rename_unique_group_name_4";
    sb.message.set_commit_log_offset(123456789);
    sb.message.set_topic("TopicTest");
    sb.message.set_property("UNIQ_KEY", "0A0000053039000000000000000A0001");
    sb.delay_level = 0;
    sb.max_reconsume_times = 16;
    const auto fields = to_ext_fields(ConsumerSendMsgBackRequestHeader::from(sb, "broker-a"));
    CHECK(fields == *decode(rmq_test::from_hex(back.at("encodings").at("JSON").at("encode_hex"))).ext_fields);
}

TEST_CASE("header decoding follows Java's parsing rules", "[remoting]") {
    ExtFields f{
        {"suggestWhichBrokerId", "1"}, {"nextBeginOffset", "+5"}, {"minOffset", "0"}, {"maxOffset", "9"}};
    const auto h = from_ext_fields<PullMessageResponseHeader>(f);
    CHECK(h.suggest_which_broker_id == 1);
    CHECK(h.next_begin_offset == 5);
    CHECK_FALSE(h.offset_delta.has_value());
    f.erase("maxOffset");
    CHECK_THROWS_WITH(from_ext_fields<PullMessageResponseHeader>(f), Catch::Contains("<maxOffset> is null"));
    f.set("maxOffset", "x");
    CHECK_THROWS_WITH(from_ext_fields<PullMessageResponseHeader>(f), Catch::Contains("maxOffset"));
    f.set("maxOffset", "99999999999");
    CHECK(from_ext_fields<PullMessageResponseHeader>(f).max_offset == 99999999999);
    CHECK_THROWS_AS(from_ext_fields<SendMessageResponseHeader>(
                        ExtFields{{"msgId", "m"}, {"queueId", "99999999999"}, {"queueOffset", "1"}}),
                    CodecError);
    const auto q = from_ext_fields<QueryConsumerOffsetRequestHeader>(
        ExtFields{{"consumerGroup", "g"}, {"topic", "t"}, {"queueId", "1"}, {"setZeroIfNotFound", "TRUE"}});
    CHECK(q.set_zero_if_not_found == std::optional<bool>(true));
    Command none;
    CHECK_FALSE(header_of<OffsetResponseHeader>(none).offset.has_value());
    none.fields().set("offset", "42");
    CHECK(header_of<OffsetResponseHeader>(none).offset == std::optional<std::int64_t>(42));
}

TEST_CASE("broker-to-client request headers decode", "[remoting]") {
    const auto reset = from_ext_fields<ResetOffsetRequestHeader>(
        ExtFields{{"topic", "T"}, {"group", "g"}, {"timestamp", "1700000000000"}, {"isForce", "true"}});
    CHECK(reset.timestamp == 1700000000000);
    CHECK(reset.is_force);
    CHECK_FALSE(reset.queue_id.has_value());
    const auto running = from_ext_fields<GetConsumerRunningInfoRequestHeader>(
        ExtFields{{"consumerGroup", "g"}, {"clientId", "c"}, {"jstackEnable", "false"}});
    CHECK(running.jstack_enable == std::optional<bool>(false));
    CHECK_THROWS_WITH(from_ext_fields<GetConsumerRunningInfoRequestHeader>(ExtFields{{"consumerGroup", "g"}}),
                      Catch::Contains("<clientId> is null"));
    const auto direct = from_ext_fields<ConsumeMessageDirectlyResultRequestHeader>(
        ExtFields{{"consumerGroup", "g"}, {"msgId", "m"}, {"brokerName", "b"}});
    CHECK(direct.msg_id == std::optional<std::string>("m"));
    CHECK(from_ext_fields<GetConsumerStatusRequestHeader>(ExtFields{{"topic", "T"}, {"group", "g"}}).group ==
          "g");
}

TEST_CASE("a pull of an SQL92 subscription carries expressionType SQL92 and the expression", "[remoting]") {
    rmq::PullArgs args;
    args.consumer_group = "g";
    args.mq = rmq::MessageQueue{"T", "broker-a", 0};
    args.sys_flag = rmq::pull_sys_flag::subscription;
    const auto sd = rmq::parse_subscription("T", "a > 5 AND b = 'x'", rmq::expression_type_sql92);
    args.subscription = sd.sub_string;
    args.expression_type = sd.expression_type;
    const auto fields = to_ext_fields(PullMessageRequestHeader::from(args));
    CHECK(fields.get("expressionType") == std::optional<std::string_view>("SQL92"));
    CHECK(fields.get("subscription") == std::optional<std::string_view>("a > 5 AND b = 'x'"));
}

TEST_CASE("END_TRANSACTION and CHECK_TRANSACTION_STATE headers carry Java's field names and values",
          "[remoting][transaction]") {
    rmq::EndTransactionArgs a;
    a.broker_name = "broker-a";
    a.topic = "TopicTest";
    a.producer_group = "please_rename_unique_group_name";
    a.tran_state_table_offset = 17;
    a.commit_log_offset = 123456789;
    a.state = rmq::LocalTransactionState::CommitMessage;
    a.msg_id = "0A0000053039000000000000000A0001";
    a.transaction_id = "0A0000053039000000000000000A0001";
    // EndTransactionRequestHeader (+ RpcRequestHeader.bname): String.valueOf of each non-null field.
    CHECK(as_map(to_ext_fields(EndTransactionRequestHeader::from(a))) ==
          std::map<std::string, std::string>{{"topic", "TopicTest"},
                                             {"producerGroup", "please_rename_unique_group_name"},
                                             {"tranStateTableOffset", "17"},
                                             {"commitLogOffset", "123456789"},
                                             {"commitOrRollback", "8"},
                                             {"fromTransactionCheck", "false"},
                                             {"msgId", "0A0000053039000000000000000A0001"},
                                             {"transactionId", "0A0000053039000000000000000A0001"},
                                             {"bname", "broker-a"}});
    a.state = rmq::LocalTransactionState::RollbackMessage;
    a.from_transaction_check = true;
    a.broker_name.clear();
    a.transaction_id.clear();
    a.topic.clear();
    const auto rollback = as_map(to_ext_fields(EndTransactionRequestHeader::from(a)));
    CHECK(rollback.at("commitOrRollback") == "12");
    CHECK(rollback.at("fromTransactionCheck") == "true");
    CHECK(rollback.count("bname") == 0);
    CHECK(rollback.count("transactionId") == 0);
    CHECK(rollback.count("topic") == 0);
    a.state = rmq::LocalTransactionState::Unknow;
    CHECK(as_map(to_ext_fields(EndTransactionRequestHeader::from(a))).at("commitOrRollback") == "0");

    // What Broker2Client.checkProducerTransactionState sends (5.x adds topic and bname).
    const auto check = from_ext_fields<CheckTransactionStateRequestHeader>(
        ExtFields{{"topic", "RMQ_SYS_TRANS_HALF_TOPIC"},
                  {"tranStateTableOffset", "3"},
                  {"commitLogOffset", "98765"},
                  {"msgId", "0A0000053039000000000000000A0001"},
                  {"transactionId", "0A0000053039000000000000000A0001"},
                  {"offsetMsgId", "7F00000100002A9F00000000000181CD"},
                  {"bname", "broker-a"}});
    CHECK(check.topic == std::optional<std::string>("RMQ_SYS_TRANS_HALF_TOPIC"));
    CHECK(check.tran_state_table_offset == 3);
    CHECK(check.commit_log_offset == 98765);
    CHECK(check.offset_msg_id == std::optional<std::string>("7F00000100002A9F00000000000181CD"));
    CHECK(check.bname == std::optional<std::string>("broker-a"));
    // 4.9.x: no topic, no bname; the offsets are @CFNotNull.
    const auto old = from_ext_fields<CheckTransactionStateRequestHeader>(
        ExtFields{{"tranStateTableOffset", "3"}, {"commitLogOffset", "98765"}});
    CHECK_FALSE(old.topic.has_value());
    CHECK_FALSE(old.bname.has_value());
    CHECK_THROWS_WITH(
        from_ext_fields<CheckTransactionStateRequestHeader>(ExtFields{{"commitLogOffset", "1"}}),
        Catch::Contains("<tranStateTableOffset> is null"));
}

}  // namespace headers_test
