#include <golden.hpp>

#include <catch2/catch.hpp>

#include <rmq/namespace.hpp>
#include <rmq/topic.hpp>

TEST_CASE("retry and DLQ topic names, system groups and namespaced groups agree with MixAll and "
          "NamespaceUtil (misc.json group_topics)",
          "[model]") {
    const auto golden = rmq_test::load_golden("misc.json");
    const auto& cases = golden.at("group_topics");
    REQUIRE(cases.size() == 12);
    for (const auto& c : cases) {
        const auto group = c.at("group").get<std::string>();
        INFO(group);
        CHECK(rmq::retry_topic(group) == c.at("MixAll.getRetryTopic").get<std::string>());
        CHECK(rmq::dlq_topic(group) == c.at("MixAll.getDLQTopic").get<std::string>());
        CHECK(rmq::is_retry_topic(rmq::retry_topic(group)));
        CHECK(rmq::is_dlq_topic(rmq::dlq_topic(group)));
        CHECK(rmq::is_sys_consumer_group(group) == c.at("MixAll.isSysConsumerGroup").get<bool>());
        CHECK(rmq::wrap_namespace(group, "ns1") ==
              c.at("NamespaceUtil.wrapNamespace(ns1)").get<std::string>());
        // NamespaceUtil.wrapNamespaceAndRetry: the retry prefix before the wrapped group (null for an empty
        // group, which rmq::check_group refuses)
        if (const auto& retry = c.at("NamespaceUtil.wrapNamespaceAndRetry(ns1)"); retry.is_null()) {
            CHECK(group.empty());
        } else {
            CHECK(rmq::retry_topic(rmq::wrap_namespace(group, "ns1")) == retry.get<std::string>());
        }
    }
}

TEST_CASE("group and topic validation names the problem", "[model]") {
    CHECK_NOTHROW(rmq::check_group("please_rename_unique_group_name"));
    CHECK_THROWS_AS(rmq::check_group(""), rmq::InvalidArgument);
    CHECK_THROWS_WITH(rmq::check_group("bad group"), Catch::Contains("illegal characters"));
    CHECK_THROWS_WITH(rmq::check_topic(std::string(128, 'a')), Catch::Contains("longer than 127"));
}
