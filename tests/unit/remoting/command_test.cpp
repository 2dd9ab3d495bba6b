#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <golden.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <rmq/remoting/command.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace command_test {

namespace {

using rmq::remoting::CodecError;
using rmq::remoting::Command;
using rmq::remoting::ExtFields;
using rmq::remoting::LanguageCode;
using rmq::remoting::SerializeType;

std::string java_value_of(const nlohmann::json& v) {
    if (v.is_string()) {
        return v.get<std::string>();
    }
    return v.dump();  // numbers and booleans: String.valueOf gives the same text
}

/// The ext fields Java puts on the wire: preset extFields plus every non-null custom header field.
std::map<std::string, std::string> expected_ext(const nlohmann::json& input) {
    std::map<std::string, std::string> out;
    if (!input.at("extFields_preset").is_null()) {
        for (const auto& [k, v] : input.at("extFields_preset").items()) {
            out[k] = java_value_of(v);
        }
    }
    if (!input.at("customHeader_fields").is_null()) {
        for (const auto& [k, v] : input.at("customHeader_fields").items()) {
            if (!v.is_null()) {
                out[k] = java_value_of(v);
            }
        }
    }
    return out;
}

/// Builds the command from the vector's input; ext fields follow the order of Java's HashMap, taken from the
/// JSON header text (that order is Java's hashing accident, not something a client must reproduce).
Command command_from(const nlohmann::json& c) {
    const auto& in = c.at("input");
    Command cmd;
    cmd.code = in.at("code").get<std::int32_t>();
    cmd.language = *rmq::remoting::language_from_name(in.at("language").get<std::string>());
    cmd.version = in.at("version").get<std::int32_t>();
    cmd.opaque = in.at("opaque").get<std::int32_t>();
    cmd.flag = in.at("flag").get<std::int32_t>();
    if (!in.at("remark").is_null()) {
        cmd.remark = in.at("remark").get<std::string>();
    }
    const auto header =
        nlohmann::ordered_json::parse(c.at("encodings").at("JSON").at("header_json").get<std::string>());
    const auto expected = expected_ext(in);
    if (header.contains("extFields")) {
        auto& fields = cmd.fields();
        for (const auto& [k, v] : header.at("extFields").items()) {
            REQUIRE(expected.count(k) == 1);
            fields.set(k, expected.at(k));
        }
        REQUIRE(fields.size() == expected.size());
    } else {
        REQUIRE(expected.empty());
    }
    if (!in.at("body_hex").is_null()) {
        cmd.body = rmq_test::from_hex(in.at("body_hex").get<std::string>());
    }
    return cmd;
}

void check_decoded(const Command& got, const nlohmann::json& want) {
    CHECK(got.code == want.at("code").get<std::int32_t>());
    CHECK(rmq::remoting::language_name(got.language) == want.at("language").get<std::string>());
    CHECK(static_cast<int>(got.language) == want.at("language_code").get<int>());
    CHECK(got.version == want.at("version").get<std::int32_t>());
    CHECK(got.opaque == want.at("opaque").get<std::int32_t>());
    CHECK(got.flag == want.at("flag").get<std::int32_t>());
    CHECK(got.is_response() == want.at("isResponseType").get<bool>());
    CHECK(got.is_oneway() == want.at("isOnewayRPC").get<bool>());
    if (want.at("remark").is_null()) {
        CHECK_FALSE(got.remark.has_value());
    } else {
        REQUIRE(got.remark.has_value());
        CHECK(*got.remark == want.at("remark").get<std::string>());
    }
    const auto& ext = want.at("extFields_sorted");
    if (ext.is_null()) {
        CHECK_FALSE(got.ext_fields.has_value());
    } else {
        REQUIRE(got.ext_fields.has_value());
        CHECK(got.ext_fields->size() == ext.size());
        for (const auto& [k, v] : ext.items()) {
            INFO("ext field " << k);
            REQUIRE(got.ext_fields->contains(k));
            if (v.is_null()) {
                CHECK_FALSE(got.ext_fields->get(k).has_value());
            } else {
                CHECK(got.ext_fields->get(k) ==
                      std::optional<std::string_view>(v.get_ref<const std::string&>()));
            }
        }
    }
    const auto& body = want.at("body_hex");
    CHECK(rmq_test::to_hex(got.body) == (body.is_null() ? std::string() : body.get<std::string>()));
}

std::string hex_of(const std::string& bytes) {
    return rmq_test::to_hex(bytes);
}

}  // namespace

TEST_CASE("every remoting.json command encodes byte for byte and decodes like Java", "[remoting][golden]") {
    const auto golden = rmq_test::load_golden("remoting.json");
    const auto& commands = golden.at("commands");
    REQUIRE(commands.size() == golden.at("command_count").get<std::size_t>());
    REQUIRE(commands.size() == 26);
    std::size_t passed_encodings = 0;
    std::size_t serialize_types_checked = 0;
    for (const auto& c : commands) {
        const auto name = c.at("name").get<std::string>();
        INFO(name);
        const Command cmd = command_from(c);
        for (const auto& [type_name, type] :
             {std::pair{"JSON", SerializeType::Json}, std::pair{"ROCKETMQ", SerializeType::RocketMQ}}) {
            INFO(type_name);
            const auto& enc = c.at("encodings").at(type_name);
            const std::string frame = rmq::remoting::encode(cmd, type);
            REQUIRE(hex_of(frame) == enc.at("encode_hex").get<std::string>());
            CHECK(static_cast<std::uint8_t>(frame[4]) == enc.at("serialize_type_byte").get<int>());
            CHECK(frame.size() - 4 == enc.at("total_length_field").get<std::size_t>());
            if (type == SerializeType::Json) {
                CHECK(frame.substr(8, enc.at("header_length").get<std::size_t>()) ==
                      enc.at("header_json").get<std::string>());
            }
            const Command decoded = rmq::remoting::decode(frame);
            check_decoded(decoded, enc.at("decoded"));
            // serializeTypeCurrentRPC: decode records the frame's serialization; encode(cmd) writes it again.
            CHECK(decoded.serialize_type == type);
            CHECK(enc.at("decoded").at("serializeTypeCurrentRPC").get<std::string>() == type_name);
            CHECK(rmq::remoting::encode(decoded) == rmq::remoting::encode(decoded, type));
            ++serialize_types_checked;
            // What a Java peer writes on the wire (FastCodesHeader field order) decodes the same.
            if (!enc.at("wire_equals_encode").get<bool>()) {
                const std::string wire = rmq_test::from_hex(enc.at("wire_hex").get<std::string>());
                const Command from_wire = rmq::remoting::decode(wire);
                check_decoded(from_wire, enc.at("wire_decoded"));
                CHECK(from_wire.serialize_type == type);
                CHECK(from_wire == decoded);
                CHECK(hex_of(rmq::remoting::encode(from_wire, type)) ==
                      enc.at("wire_hex").get<std::string>());
            }
            // decode(encode(x)) keeps everything the format can carry; the binary header turns "" into null,
            // which the encoder then skips (as Java's does).
            Command carried = cmd;
            if (type == SerializeType::RocketMQ && carried.ext_fields) {
                ExtFields kept;
                for (const auto& [k, v] : *carried.ext_fields) {
                    if (v && !v->empty()) {
                        kept.set(k, v);
                    }
                }
                carried.ext_fields = kept;
            }
            CHECK(rmq::remoting::encode(decoded, type) == rmq::remoting::encode(carried, type));
            ++passed_encodings;
        }
    }
    CHECK(passed_encodings == 52);
    CHECK(serialize_types_checked == 52);
}

TEST_CASE("GET_ROUTEINFO_BY_TOPIC reference frames, byte for byte", "[remoting]") {
    Command cmd;
    cmd.code = 105;
    cmd.language = LanguageCode::Cpp;
    cmd.version = 409;
    cmd.opaque = 1;
    cmd.fields().set("topic", "TopicTest");
    const std::string binary = rmq::remoting::encode(cmd, SerializeType::RocketMQ);
    CHECK(hex_of(binary) == "0000002d01000029006901019900000001000000000000000000000014000574"
                            "6f70696300000009546f70696354657374");
    cmd.fields().set("acceptStandardJsonOnly", "true");
    const std::string json = rmq::remoting::encode(cmd);
    const std::string header =
        R"({"code":105,"extFields":{"topic":"TopicTest","acceptStandardJsonOnly":"true"},)"
        R"("flag":0,"language":"CPP","opaque":1,"serializeTypeCurrentRPC":"JSON","version":409})";
    CHECK(json.substr(8) == header);
    CHECK(hex_of(json.substr(0, 8)) == fmt::format("{:08x}{:08x}", header.size() + 4, header.size()));
}

TEST_CASE("JSON header escapes like fastjson and decodes fastjson leniencies", "[remoting]") {
    Command cmd;
    cmd.code = 310;
    cmd.fields().set("i", std::string("TAGS\x01TagA\x02KEYS\x01k\"\\\n\x1f\x7f"));
    const std::string frame = rmq::remoting::encode(cmd);
    CHECK(frame.find(R"("i":"TAGS\u0001TagA\u0002KEYS\u0001k\"\\\n\u001F\u007F")") != std::string::npos);
    CHECK(rmq::remoting::decode(frame) == cmd);

    // Raw control bytes, numbers as ext values and unknown keys are accepted, as fastjson does.
    const std::string header =
        std::string(R"({"code":11,"extFields":{"a":"x)") + '\x01' +
        R"(y","n":5,"b":true},"flag":1,"language":"JAVA","opaque":7,"unknown":[1],"version":1})";
    std::string payload(4, '\0');
    payload[3] = static_cast<char>(header.size());
    payload += header;
    const Command got = rmq::remoting::decode_payload(rmq::detail::as_bytes(payload));
    CHECK(got.code == 11);
    CHECK(got.language == LanguageCode::Java);
    CHECK(got.field("a") == std::optional<std::string_view>("x\x01y"));
    CHECK(got.field("n") == std::optional<std::string_view>("5"));
    CHECK(got.field("b") == std::optional<std::string_view>("true"));
    CHECK(got.is_response());
}

TEST_CASE("malformed frames are refused with a CodecError naming the problem", "[remoting]") {
    Command cmd;
    cmd.code = 34;
    cmd.remark = "r";
    cmd.fields().set("k", "v");
    cmd.body = "body";
    cmd.serialize_type = SerializeType::RocketMQ;  // decode records it, so the round trip compares equal
    const std::string good = rmq::remoting::encode(cmd);
    REQUIRE(rmq::remoting::decode(good) == cmd);

    SECTION("truncated frame") {
        CHECK_THROWS_WITH(rmq::remoting::decode(std::string_view(good).substr(0, good.size() - 1)),
                          Catch::Contains("length field"));
        CHECK_THROWS_AS(rmq::remoting::decode(std::string_view(good).substr(0, 3)), CodecError);
    }
    SECTION("unknown serialize type") {
        std::string bad = good;
        bad[4] = '\x02';
        CHECK_THROWS_WITH(rmq::remoting::decode(bad), Catch::Contains("unknown serialize type 2"));
    }
    SECTION("header length beyond the frame") {
        std::string bad = good;
        bad[5] = '\x7f';
        CHECK_THROWS_WITH(rmq::remoting::decode(bad), Catch::Contains("header length"));
    }
    SECTION("remark length beyond the header") {
        std::string bad = good;
        bad[8 + 13 + 3] = '\x40';
        CHECK_THROWS_WITH(rmq::remoting::decode(bad), Catch::Contains("remark length"));
    }
    SECTION("negative ext key length") {
        std::string bad = good;
        bad[8 + 13 + 4 + 1 + 4] = '\xff';
        CHECK_THROWS_WITH(rmq::remoting::decode(bad), Catch::Contains("negative key length"));
    }
    SECTION("malformed JSON header") {
        const std::string header = R"({"code":1,)";
        std::string payload(4, '\0');
        payload[3] = static_cast<char>(header.size());
        payload += header;
        CHECK_THROWS_WITH(rmq::remoting::decode_payload(rmq::detail::as_bytes(payload)),
                          Catch::Contains("malformed JSON"));
    }
    SECTION("unknown language name") {
        const std::string header = R"({"code":1,"language":"COBOL"})";
        std::string payload(4, '\0');
        payload[3] = static_cast<char>(header.size());
        payload += header;
        CHECK_THROWS_WITH(rmq::remoting::decode_payload(rmq::detail::as_bytes(payload)),
                          Catch::Contains("unknown language"));
    }
    SECTION("frames above 16 MiB") {
        const std::string at_limit("\x00\xff\xff\xfc", 4);  // 16 MiB including the length field: accepted
        CHECK(rmq::remoting::frame_payload_length(rmq::detail::as_bytes(at_limit)) == 0xFFFFFC);
        const std::string over("\x00\xff\xff\xfd", 4);
        CHECK_THROWS_WITH(rmq::remoting::frame_payload_length(rmq::detail::as_bytes(over)),
                          Catch::Contains("maximum frame length"));
        const std::string negative("\xff\xff\xff\xff", 4);
        CHECK_THROWS_WITH(rmq::remoting::frame_payload_length(rmq::detail::as_bytes(negative)),
                          Catch::Contains("below 4"));
        Command big;
        big.body.assign(rmq::remoting::max_frame_length, 'x');
        CHECK_THROWS_WITH(rmq::remoting::encode(big), Catch::Contains("exceeds"));
    }
    SECTION("codes that do not fit the binary header") {
        Command pop;
        pop.code = 200050;
        CHECK_THROWS_WITH(rmq::remoting::encode(pop, SerializeType::RocketMQ), Catch::Contains("int16"));
        CHECK(rmq::remoting::decode(rmq::remoting::encode(pop)).code == 200050);
    }
}

TEST_CASE("ext fields behave like Java's HashMap", "[remoting]") {
    ExtFields f{{"a", "1"}, {"b", "2"}};
    f.set("a", "3");
    CHECK(f.begin()->first == "a");
    CHECK(f.get("a") == std::optional<std::string_view>("3"));
    f.set("n", std::nullopt);
    CHECK(f.contains("n"));
    CHECK_FALSE(f.get("n").has_value());
    CHECK(f.erase("b"));
    CHECK_FALSE(f.erase("b"));
    CHECK_FALSE(f == ExtFields{{"a", "3"}});
    ExtFields g;
    g.set("n", std::nullopt);
    g.set("a", "3");
    CHECK(f == g);
}

}  // namespace command_test
