#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <golden.hpp>

#include <catch2/catch.hpp>

#include <rmq/message.hpp>
#include <rmq/properties.hpp>

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

TEST_CASE("Properties iterate in std::map's order and answer as a const std::map does",
          "[model][properties]") {
    // Byte order, as std::map<std::string, ...> orders: upper case before lower, UTF-8 after ASCII.
    const std::map<std::string, std::string> as_map{
        {"b", "2"}, {"A", "1"}, {"\xC3\xA9t\xC3\xA9", "3"}, {"UNIQ_KEY", "u"}, {"a", "0"}};
    rmq::Properties props;
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>(as_map.rbegin(), as_map.rend())) {
        CHECK(props.insert_or_assign(name, value));
    }
    REQUIRE(props.size() == as_map.size());
    CHECK(std::equal(
        props.begin(), props.end(), as_map.begin(), as_map.end(), [](const auto& p, const auto& m) {
            return p.first == m.first && p.second == m.second;
        }));
    CHECK(props == as_map);                                      // a std::map converts
    CHECK(std::map<std::string, std::string>(props) == as_map);  // and back, explicitly
    CHECK(props.at("UNIQ_KEY") == "u");
    CHECK_THROWS_AS((void)props.at("NOPE"), std::out_of_range);
    CHECK(props.count("a") == 1);
    CHECK(props.count("c") == 0);
    CHECK(props.contains("\xC3\xA9t\xC3\xA9"));
    CHECK(props.find("B") == props.end());

    CHECK_FALSE(props.insert_or_assign("a", "changed"));  // an existing name: replaced, not added
    CHECK(props.at("a") == "changed");
    CHECK_FALSE(props.emplace("a", "ignored"));  // emplace keeps the first
    CHECK(props.at("a") == "changed");
    CHECK(props.erase("a") == 1);
    CHECK(props.erase("a") == 0);
    CHECK(props.size() == as_map.size() - 1);
    CHECK(props.erase(props.find("A"))->first == "UNIQ_KEY");
}

TEST_CASE("Properties: from_entries keeps the last duplicate, the list and range constructors the first",
          "[model][properties]") {
    const auto decoded = rmq::Properties::from_entries({{"K", "1"}, {"A", "x"}, {"K", "2"}, {"K", "3"}});
    CHECK(decoded == rmq::Properties{{"A", "x"}, {"K", "3"}});
    const rmq::Properties listed{{"K", "1"}, {"A", "x"}, {"K", "2"}};
    CHECK(listed.at("K") == "1");
    const std::vector<std::pair<std::string, std::string>> entries{{"K", "1"}, {"K", "2"}};
    CHECK(rmq::Properties(entries.begin(), entries.end()).at("K") == "1");
    // The wire decoding is Java's HashMap.put: a later duplicate name wins.
    CHECK(rmq::decode_properties("K\x01"
                                 "1\x02"
                                 "A\x01x\x02K\x01"
                                 "2") == rmq::Properties{{"A", "x"}, {"K", "2"}});
}

TEST_CASE("decode_properties of many entries (past its stack buffer of 32) equals Java's HashMap, later "
          "duplicates winning",
          "[model][properties]") {
    for (const int count : {1, 31, 32, 33, 100}) {
        INFO(count << " entries");
        std::map<std::string, std::string> expected;
        std::string text;
        // Names in descending order, sharing first bytes ("N9", "N8", ... and "M"), each written twice: the
        // second value must win.
        for (int i = count - 1; i >= 0; --i) {
            const std::string name = (i % 3 == 0 ? "M" : "N") + std::to_string(i);
            for (const char* round : {"old", "new"}) {
                const std::string value = std::string(round) + std::to_string(i);
                text += name + '\x01' + value + '\x02';
                expected[name] = value;
            }
        }
        text.pop_back();
        const auto decoded = rmq::decode_properties(text);
        CHECK(decoded == expected);
        CHECK(std::is_sorted(decoded.begin(), decoded.end()));
    }
}

TEST_CASE("Properties: setting a list equals setting each name in turn, in any order and with present names",
          "[model][properties]") {
    using List = std::vector<std::pair<std::string, std::string>>;
    const std::vector<List> starts = {
        {},
        {{"A", "a"}},
        {{"Z", "z"}},
        {{"MAX_OFFSET", "old"}},
        {{"KEYS", "k"}, {"TAGS", "t"}, {"WAIT", "w"}},
        {{"MAX_OFFSET", "1"}, {"MAX_RECONSUME_TIMES", "16"}, {"MIN_OFFSET", "0"}, {"UNIQ_KEY", "u"}}};
    const auto check = [](const List& start,
                          std::initializer_list<std::pair<std::string_view, std::string_view>> l) {
        rmq::Properties expected = rmq::Properties::from_entries(start);
        for (const auto& [name, value] : l) {
            expected.insert_or_assign(name, value);
        }
        rmq::Properties got = rmq::Properties::from_entries(start);
        got.insert_or_assign(l);
        CHECK(got == expected);
    };
    for (const auto& start : starts) {
        INFO("start of " << start.size() << " entries, first " << (start.empty() ? "" : start.front().first));
        check(start, {{"MAX_OFFSET", "9"}, {"MIN_OFFSET", "3"}});
        check(start, {{"MIN_OFFSET", "3"}, {"MAX_OFFSET", "9"}});  // not ascending
        check(start, {{"A", "1"}, {"M", "2"}, {"ZZ", "3"}});
        check(start, {{"TAGS", "x"}});
        check(start, {{"B", "1"}, {"B", "2"}});  // a duplicate name: the last wins, as in turn
        check(start, {});
    }
}

TEST_CASE("decode_properties with room: the entries a consumer stamps then fit without moving the others",
          "[model][properties]") {
    const std::string text = std::string("KEYS\001k1\002UNIQ_KEY\001") + std::string(32, 'A') +
                             "\002TAGS\001a\002KEYS\001k2\002WAIT\001true";
    const rmq::Properties plain = rmq::decode_properties(text);
    rmq::Properties roomy = rmq::decode_properties(text, 3);
    CHECK(roomy == plain);  // the same entries: the later KEYS wins in both
    CHECK(roomy.at("KEYS") == "k2");
    REQUIRE(roomy.size() == 4);
    const auto* first = &*roomy.begin();
    roomy.insert_or_assign({{rmq::property::max_offset, "9"}, {rmq::property::min_offset, "0"}});
    roomy.insert_or_assign(rmq::property::consume_start_timestamp, "1");
    CHECK(roomy.size() == 7);
    CHECK(&*roomy.begin() == first);  // no reallocation: the room was allocated with them
}
