#include <set>
#include <string>

#include <golden.hpp>

#include <catch2/catch.hpp>

#include <rmq/subscription.hpp>

namespace {

void check_subscription(const nlohmann::json& expected, const rmq::SubscriptionData& got) {
    CHECK(got.topic == expected.at("topic").get<std::string>());
    CHECK(got.sub_string == expected.at("subString").get<std::string>());
    CHECK(got.expression_type == expected.at("expressionType").get<std::string>());
    CHECK(got.class_filter_mode == expected.at("classFilterMode").get<bool>());
    CHECK(got.tags_set == expected.at("tagsSet").get<std::set<std::string>>());
    CHECK(got.code_set == expected.at("codeSet").get<std::set<std::int32_t>>());
}

}  // namespace

TEST_CASE("tag_hash equals Java String.hashCode for every tags.json vector", "[model][tags]") {
    const auto golden = rmq_test::load_golden("tags.json");
    const auto& cases = golden.at("hashCodes");
    REQUIRE(cases.size() == golden.at("hash_count").get<std::size_t>());
    REQUIRE(cases.size() > 0);
    for (const auto& c : cases) {
        const std::string tag = rmq_test::from_hex(c.at("utf8_hex").get<std::string>());
        INFO("tag utf8 hex " << c.at("utf8_hex").get<std::string>());
        CHECK(rmq::tag_hash(tag) == c.at("hashCode").get<std::int32_t>());
    }
}

TEST_CASE("parse_subscription equals FilterAPI.buildSubscriptionData for every tags.json vector",
          "[model][tags]") {
    const auto golden = rmq_test::load_golden("tags.json");
    const auto& cases = golden.at("subscriptions");
    REQUIRE(cases.size() == golden.at("subscription_count").get<std::size_t>());
    std::size_t errors = 0;
    for (const auto& c : cases) {
        // JSON null is Java null, which FilterAPI treats like "".
        const std::string expr = c.at("expr").is_null()
                                     ? std::string()
                                     : rmq_test::from_hex(c.at("expr_utf8_hex").get<std::string>());
        INFO("expression utf8 hex " << rmq_test::to_hex(expr));
        if (c.contains("error")) {
            ++errors;
            CHECK_THROWS_AS(rmq::parse_subscription("TopicTest", expr), rmq::InvalidArgument);
            CHECK_THROWS_WITH(rmq::parse_subscription("TopicTest", expr),
                              Catch::Contains("subString split error"));
        } else {
            check_subscription(c.at("result"), rmq::parse_subscription("TopicTest", expr));
        }
    }
    CHECK(errors > 0);
}

TEST_CASE("parse_subscription with a type equals FilterAPI.build", "[model][tags]") {
    const auto golden = rmq_test::load_golden("tags.json");
    const auto& cases = golden.at("build_with_type");
    REQUIRE(cases.size() > 0);
    for (const auto& c : cases) {
        const std::string expr = c.at("expr").is_null() ? std::string() : c.at("expr").get<std::string>();
        const std::string type = c.at("type").is_null() ? std::string() : c.at("type").get<std::string>();
        INFO(expr << " / " << type);
        if (c.contains("error")) {
            CHECK_THROWS_AS(rmq::parse_subscription("TopicTest", expr, type), rmq::InvalidArgument);
            CHECK_THROWS_WITH(rmq::parse_subscription("TopicTest", expr, type),
                              Catch::Contains("Expression can't be null"));
        } else {
            check_subscription(c.at("result"), rmq::parse_subscription("TopicTest", expr, type));
        }
    }
}

TEST_CASE("client-side tag check keeps only exact members (hash collisions are re-checked)",
          "[model][tags]") {
    const auto sub = rmq::parse_subscription("T", "Aa");
    CHECK(sub.matches_tag("Aa"));
    CHECK_FALSE(sub.matches_tag("BB"));  // same hash 2112: the broker lets it through, the client must not
    CHECK_FALSE(sub.matches_tag(""));    // untagged messages are dropped by a tag subscription
    const auto all = rmq::parse_subscription("T", "*");
    CHECK(all.is_all());
    CHECK(all.matches_tag(""));
    CHECK(all.matches_tag("anything"));
    const auto star_and_tag = rmq::parse_subscription("T", "A || *");
    CHECK_FALSE(star_and_tag.is_all());  // a literal * among tags is a tag named "*"
    CHECK_FALSE(star_and_tag.matches_tag("B"));
    const auto sql = rmq::parse_subscription("T", "a > 1", "SQL92");
    CHECK(sql.matches_tag("whatever"));  // SQL92 is not re-checked on the client
}
