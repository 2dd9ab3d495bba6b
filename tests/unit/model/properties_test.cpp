#include <map>
#include <optional>
#include <string>

#include <golden.hpp>

#include <catch2/catch.hpp>

#include <rmq/message.hpp>

TEST_CASE("decode_properties equals MessageDecoder.string2messageProperties", "[model][properties]") {
    const auto golden = rmq_test::load_golden("message_codec.json");
    const auto& cases = golden.at("properties_parse");
    REQUIRE(cases.size() == 15);
    for (const auto& c : cases) {
        const std::string text = rmq_test::from_hex(c.at("utf8_hex").get<std::string>());
        INFO("hex " << c.at("utf8_hex").get<std::string>());
        const auto expected = c.at("string2messageProperties").get<std::map<std::string, std::string>>();
        CHECK(rmq::decode_properties(text) == expected);
    }
}

TEST_CASE("encode_properties equals MessageDecoder.messageProperties2String", "[model][properties]") {
    const auto golden = rmq_test::load_golden("message_codec.json");
    const auto& cases = golden.at("properties_to_string");
    REQUIRE(cases.size() == 3);
    int compared_as_text = 0;
    for (const auto& c : cases) {
        std::map<std::string, std::string> props;
        bool in_order = true;  // std::map iterates sorted; exact text comparison needs the same order
        std::string previous;
        if (!c.at("map_in_iteration_order").is_null()) {
            for (const auto& entry : c.at("map_in_iteration_order")) {
                if (entry.at(1).is_null()) {
                    continue;  // Java skips null values; rmq maps cannot hold them
                }
                const auto name = entry.at(0).get<std::string>();
                in_order = in_order && previous < name;
                previous = name;
                props.emplace(name, entry.at(1).get<std::string>());
            }
        }
        const auto expected = c.at("messageProperties2String").get<std::string>();
        const auto encoded = rmq::encode_properties(props);
        if (in_order) {
            CHECK(encoded == expected);
            ++compared_as_text;
        }
        CHECK(rmq::decode_properties(encoded) == rmq::decode_properties(expected));
    }
    CHECK(compared_as_text == 3);  // every vector's map is in sorted order, so each text is compared exactly
}

TEST_CASE("properties round-trip and never end with a separator", "[model][properties]") {
    const std::map<std::string, std::string> props{{"KEYS", "k1 k2"}, {"TAGS", "TagA"}, {"UNIQ_KEY", "X"}};
    const auto text = rmq::encode_properties(props);
    CHECK(text.back() != rmq::property::property_separator);
    CHECK(rmq::decode_properties(text) == props);
    CHECK(rmq::encode_properties({}).empty());
}

TEST_CASE("property look-ups by long and short names find exactly the stored entries",
          "[model][properties]") {
    rmq::MessageExt m;
    m.set_property("CONSUME_START_TIME", "1700000000000");
    m.set_property("MAX_RECONSUME_TIMES", "16");
    m.set_property("TAGS", "TagA");
    m.set_property("ZZZZ_A_VERY_LONG_USER_PROPERTY_NAME", "z");
    CHECK(m.property_view("CONSUME_START_TIME") == "1700000000000");
    CHECK(m.property("MAX_RECONSUME_TIMES") == std::optional<std::string>("16"));
    CHECK(m.property_view("ZZZZ_A_VERY_LONG_USER_PROPERTY_NAME") == "z");
    CHECK(m.tags() == "TagA");
    CHECK(m.has_property("CONSUME_START_TIME"));
    CHECK_FALSE(m.has_property("CONSUME_START_TIMESTAMP"));  // a longer name with the same prefix
    CHECK_FALSE(m.has_property("CONSUME_START_TIM"));        // a shorter one
    CHECK_FALSE(m.has_property("AAAA_BEFORE_EVERYTHING_LONG"));
    CHECK_FALSE(m.property("ZZZZZ_AFTER_EVERYTHING_LONG_NAME").has_value());
    CHECK(m.property_view("MIN_OFFSET").empty());
}
