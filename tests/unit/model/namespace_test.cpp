// Namespaces against misc.json's NamespaceUtil / TopicValidator vectors (Java, byte for byte).
#include <golden.hpp>

#include <catch2/catch.hpp>

#include <rmq/consumer_config.hpp>
#include <rmq/namespace.hpp>
#include <rmq/topic.hpp>

TEST_CASE("every misc.json namespace vector agrees with NamespaceUtil and TopicValidator",
          "[model][golden]") {
    const auto golden = rmq_test::load_golden("misc.json");
    const auto& cases = golden.at("namespace");
    REQUIRE(cases.size() == 12);
    std::size_t checked = 0;
    for (const auto& c : cases) {
        const auto resource = c.at("resource").get<std::string>();
        INFO("resource: " << resource);
        CHECK(rmq::without_namespace(resource) == c.at("withoutNamespace").get<std::string>());
        CHECK(rmq::without_namespace(resource, "ns1") == c.at("withoutNamespace(ns1)").get<std::string>());
        CHECK(rmq::wrap_namespace(resource, "ns1") == c.at("wrapNamespace(ns1)").get<std::string>());
        CHECK(rmq::namespace_of(resource) == c.at("getNamespaceFromResource").get<std::string>());
        CHECK(rmq::is_retry_topic(resource) == c.at("isRetryTopic").get<bool>());
        CHECK(rmq::is_dlq_topic(resource) == c.at("isDLQTopic").get<bool>());
        CHECK(rmq::is_system_topic(resource) == c.at("TopicValidator.isSystemTopic").get<bool>());
        ++checked;
    }
    CHECK(checked == 12);
}

TEST_CASE("is_system_topic knows TopicValidator's whole list and the rmq_sys_ prefix", "[model]") {
    for (const auto* topic : {"TBW102",
                              "SCHEDULE_TOPIC_XXXX",
                              "BenchmarkTest",
                              "RMQ_SYS_TRANS_HALF_TOPIC",
                              "RMQ_SYS_TRACE_TOPIC",
                              "RMQ_SYS_TRANS_OP_HALF_TOPIC",
                              "TRANS_CHECK_MAX_TIME_TOPIC",
                              "SELF_TEST_TOPIC",
                              "OFFSET_MOVED_EVENT",
                              "CHECKPOINT_TOPIC",
                              "RMQ_SYS_ROCKSDB_TRANS_HALF_TOPIC",
                              "RMQ_SYS_ROCKSDB_TRANS_OP_HALF_TOPIC",
                              "rmq_sys_SYNC_BROKER_MEMBER_x",
                              "rmq_sys_"}) {
        INFO(topic);
        CHECK(rmq::is_system_topic(topic));
        CHECK(rmq::wrap_namespace(topic, "ns1") == topic);
    }
    // Java matches names exactly: prefixes of system names are ordinary topics.
    for (const auto* topic :
         {"", "TBW1020", "SCHEDULE_TOPIC_XXXX_V3", "RMQ_SYS_OTHER", "RMQ_SYS_sys_x", "tbw102"}) {
        INFO(topic);
        CHECK_FALSE(rmq::is_system_topic(topic));
    }
}

TEST_CASE("CID_RMQ_SYS_ groups are system groups: never wrapped nor unwrapped", "[model]") {
    CHECK(rmq::is_sys_consumer_group("CID_RMQ_SYS_TRANS"));
    CHECK(rmq::is_sys_consumer_group("CID_RMQ_SYS_"));
    CHECK_FALSE(rmq::is_sys_consumer_group("CID_RMQ_SY"));
    CHECK_FALSE(rmq::is_sys_consumer_group("ns%CID_RMQ_SYS_a"));
    CHECK(rmq::wrap_namespace("CID_RMQ_SYS_TRANS", "ns") == "CID_RMQ_SYS_TRANS");
    CHECK(rmq::without_namespace("CID_RMQ_SYS_a%b") == "CID_RMQ_SYS_a%b");
    CHECK(rmq::namespace_of("CID_RMQ_SYS_a%b").empty());

    rmq::ConsumerConfig config;
    config.namespace_ = "ns";
    CHECK(config.with_namespace("CID_RMQ_SYS_TRANS") == "CID_RMQ_SYS_TRANS");
    CHECK(config.with_namespace("GID_a") == "ns%GID_a");
    CHECK(config.with_namespace(rmq::retry_topic("GID_a")) == "%RETRY%ns%GID_a");
}

TEST_CASE("namespace edge cases follow Java", "[model]") {
    CHECK(rmq::wrap_namespace("T", "") == "T");
    CHECK(rmq::wrap_namespace("ns%T", "ns") == "ns%T");
    CHECK(rmq::wrap_namespace("nsx%T", "ns") == "ns%nsx%T");
    CHECK(rmq::wrap_namespace("%DLQ%ns%g", "ns") == "%DLQ%ns%g");
    // A leading separator is no namespace (Java's `index > 0`).
    CHECK(rmq::without_namespace("%T") == "%T");
    CHECK(rmq::namespace_of("%T").empty());
    CHECK(rmq::without_namespace("a%") == "");
    CHECK(rmq::without_namespace("%RETRY%a%g", "b") == "%RETRY%a%g");
    CHECK(rmq::without_namespace("%RETRY%a%g", "a") == "%RETRY%g");
    CHECK(rmq::without_namespace("ns%T", "") == "ns%T");
}
