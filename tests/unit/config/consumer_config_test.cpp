#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <rmq/consume_context.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/error.hpp>

namespace {

rmq::ConsumerConfig valid() {
    return rmq::ConsumerConfig{.consumer_group = "g"};
}

/// validate() must throw rmq::InvalidArgument whose message contains every `needle`.
void require_rejected(const rmq::ConsumerConfig& c, std::vector<std::string> needles) {
    try {
        c.validate();
        FAIL("validate() accepted an invalid configuration");
    } catch (const rmq::InvalidArgument& e) {
        const std::string what = e.what();
        for (const auto& n : needles) {
            INFO(what);
            CHECK(what.find(n) != std::string::npos);
        }
    }
}

}  // namespace

TEST_CASE("config: designated initializers in declaration order (public example)", "[config]") {
    const auto c =
        rmq::ConsumerConfig{.consumer_group = "g", .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    CHECK(c.consumer_group == "g");
    CHECK(c.message_model == rmq::MessageModel::Clustering);
    CHECK(c.consume_from_where == rmq::ConsumeFromWhere::FirstOffset);
    REQUIRE_NOTHROW(c.validate());
}

TEST_CASE("config: defaults equal Java's DefaultMQPushConsumer / ClientConfig", "[config]") {
    const rmq::ConsumerConfig c;
    // DefaultMQPushConsumer
    CHECK(c.consumer_group.empty());                                   // ctor argument in Java
    CHECK(c.message_model == rmq::MessageModel::Clustering);           // CLUSTERING
    CHECK(c.consume_from_where == rmq::ConsumeFromWhere::LastOffset);  // CONSUME_FROM_LAST_OFFSET
    CHECK(c.consume_timestamp.empty());                                // now - 30 min (evaluated at start)
    CHECK(c.consume_thread_min == 20);
    CHECK(c.consume_thread_max == 20);
    CHECK(c.adjust_thread_pool_nums_threshold == 100000);
    CHECK(c.consume_concurrently_max_span == 2000);
    CHECK(c.pull_threshold_for_queue == 1000);
    CHECK(c.pull_threshold_size_for_queue == 100);
    CHECK(c.pull_threshold_for_topic == -1);
    CHECK(c.pull_threshold_size_for_topic == -1);
    CHECK(c.pull_interval == 0);
    CHECK(c.consume_message_batch_max_size == 1);
    CHECK(c.pull_batch_size == 32);
    CHECK_FALSE(c.post_subscription_when_pull);
    CHECK_FALSE(c.unit_mode);
    CHECK(c.max_reconsume_times == -1);
    CHECK(c.suspend_current_queue_time_millis == 1000);
    CHECK(c.consume_timeout == 15);
    CHECK(c.await_termination_millis_when_shutdown == 30000);  // documented deviation: Java 0
    CHECK(c.await_termination_millis_when_destroyed == -1);    // the destructor waits for listeners
    // ClientConfig
    CHECK(c.namesrv_addr.empty());
    CHECK(c.client_ip.empty());  // detected
    CHECK(c.instance_name == "DEFAULT");
    CHECK(c.unit_name.empty());
    CHECK(c.client_callback_executor_threads == 0);  // = #CPUs
    CHECK(c.namespace_.empty());
    CHECK(c.poll_name_server_interval == 30000);
    CHECK(c.heartbeat_broker_interval == 30000);
    CHECK(c.persist_consumer_offset_interval == 5000);
    CHECK(c.pull_time_delay_mills_when_exception == 1000);
    CHECK_FALSE(c.vip_channel_enabled);
    CHECK(c.mq_client_api_timeout == 3000);
    CHECK_FALSE(c.enable_stream_request_type);
    // Java constants made tunable
    CHECK(c.rebalance_interval == 20000);
    CHECK(c.lock_renewal_interval == 20000);
    CHECK(c.pull_time_delay_mills_when_flow_control == 50);
    CHECK(c.pull_time_delay_mills_when_broker_flow_control == 20);
    CHECK(c.pull_time_delay_mills_when_suspend == 1000);
    CHECK(c.broker_suspend_max_time_millis == 15000);
    CHECK(c.consumer_timeout_millis_when_suspend == 30000);
    CHECK(c.consume_queue_capacity > 0);
}

TEST_CASE("config: validate accepts the boundaries of every range", "[config]") {
    auto c = valid();
    c.consume_thread_min = 1;
    c.consume_thread_max = 1000;
    c.consume_concurrently_max_span = 65535;
    c.pull_threshold_for_queue = 1;
    c.pull_threshold_size_for_queue = 1024;
    c.pull_threshold_for_topic = 6553500;
    c.pull_threshold_size_for_topic = 1;
    c.pull_interval = 65535;
    c.consume_message_batch_max_size = 1024;
    c.pull_batch_size = 1;
    c.consume_timestamp = "20240131235959";
    c.await_termination_millis_when_shutdown = 0;
    c.max_reconsume_times = 0;
    c.suspend_current_queue_time_millis = 0;  // Java does not validate it; the orderly service clamps it
    REQUIRE_NOTHROW(c.validate());
    c.consume_thread_min = 1000;
    c.pull_threshold_for_topic = 1;
    c.pull_threshold_size_for_topic = 102400;
    c.pull_interval = 0;
    c.pull_batch_size = 1024;
    c.consume_message_batch_max_size = 1;
    REQUIRE_NOTHROW(c.validate());
}

TEST_CASE("config: validate rejects each out-of-range value naming the field and range", "[config]") {
    struct Case {
        const char* name;
        std::function<void(rmq::ConsumerConfig&)> set;
        std::vector<std::string> needles;
    };

    const std::vector<Case> cases = {
        {"thread min low", [](auto& c) { c.consume_thread_min = 0; }, {"consume_thread_min", "[1, 1000]"}},
        {"thread min high",
         [](auto& c) {
             c.consume_thread_min = 1001;
             c.consume_thread_max = 1000;
         },
         {"consume_thread_min", "[1, 1000]"}},
        {"thread max low", [](auto& c) { c.consume_thread_max = 0; }, {"consume_thread_max", "[1, 1000]"}},
        {"thread max high",
         [](auto& c) { c.consume_thread_max = 1001; },
         {"consume_thread_max", "[1, 1000]"}},
        {"min > max",
         [](auto& c) {
             c.consume_thread_min = 30;
             c.consume_thread_max = 20;
         },
         {"consume_thread_min", "(30) is larger than consume_thread_max", "(20)"}},
        {"span low",
         [](auto& c) { c.consume_concurrently_max_span = 0; },
         {"consume_concurrently_max_span", "[1, 65535]"}},
        {"span high",
         [](auto& c) { c.consume_concurrently_max_span = 65536; },
         {"consume_concurrently_max_span", "[1, 65535]"}},
        {"queue threshold low",
         [](auto& c) { c.pull_threshold_for_queue = 0; },
         {"pull_threshold_for_queue", "[1, 65535]"}},
        {"queue threshold high",
         [](auto& c) { c.pull_threshold_for_queue = 65536; },
         {"pull_threshold_for_queue", "[1, 65535]"}},
        {"queue size low",
         [](auto& c) { c.pull_threshold_size_for_queue = 0; },
         {"pull_threshold_size_for_queue", "[1, 1024]"}},
        {"queue size high",
         [](auto& c) { c.pull_threshold_size_for_queue = 1025; },
         {"pull_threshold_size_for_queue", "[1, 1024]"}},
        {"topic threshold 0",
         [](auto& c) { c.pull_threshold_for_topic = 0; },
         {"pull_threshold_for_topic", "[1, 6553500]"}},
        {"topic threshold -2",
         [](auto& c) { c.pull_threshold_for_topic = -2; },
         {"pull_threshold_for_topic", "[1, 6553500]"}},
        {"topic threshold high",
         [](auto& c) { c.pull_threshold_for_topic = 6553501; },
         {"pull_threshold_for_topic", "[1, 6553500]"}},
        {"topic size 0",
         [](auto& c) { c.pull_threshold_size_for_topic = 0; },
         {"pull_threshold_size_for_topic", "[1, 102400]"}},
        {"topic size high",
         [](auto& c) { c.pull_threshold_size_for_topic = 102401; },
         {"pull_threshold_size_for_topic", "[1, 102400]"}},
        {"pull interval low", [](auto& c) { c.pull_interval = -1; }, {"pull_interval", "[0, 65535]"}},
        {"pull interval high", [](auto& c) { c.pull_interval = 65536; }, {"pull_interval", "[0, 65535]"}},
        {"batch max low",
         [](auto& c) { c.consume_message_batch_max_size = 0; },
         {"consume_message_batch_max_size", "[1, 1024]"}},
        {"batch max high",
         [](auto& c) { c.consume_message_batch_max_size = 1025; },
         {"consume_message_batch_max_size", "[1, 1024]"}},
        {"pull batch low", [](auto& c) { c.pull_batch_size = 0; }, {"pull_batch_size", "[1, 1024]"}},
        {"pull batch high", [](auto& c) { c.pull_batch_size = 1025; }, {"pull_batch_size", "[1, 1024]"}},
        {"timestamp",
         [](auto& c) { c.consume_timestamp = "2024-01-01"; },
         {"consume_timestamp", "yyyyMMddHHmmss"}},
        {"timestamp letters", [](auto& c) { c.consume_timestamp = "2024010112000x"; }, {"consume_timestamp"}},
        {"group blank", [](auto& c) { c.consumer_group = ""; }, {"group", "blank"}},
        {"group default",
         [](auto& c) { c.consumer_group = "DEFAULT_CONSUMER"; },
         {"consumer_group", "DEFAULT_CONSUMER"}},
        {"group chars", [](auto& c) { c.consumer_group = "a b"; }, {"group", "illegal characters"}},
        {"group length", [](auto& c) { c.consumer_group = std::string(256, 'g'); }, {"group", "255"}},
        {"max reconsume", [](auto& c) { c.max_reconsume_times = -2; }, {"max_reconsume_times", "[-1, "}},
        {"await",
         [](auto& c) { c.await_termination_millis_when_shutdown = -1; },
         {"await_termination_millis_when_shutdown", "[0, "}},
        {"await destroyed",
         [](auto& c) { c.await_termination_millis_when_destroyed = -2; },
         {"await_termination_millis_when_destroyed", "[-1, "}},
        {"consume timeout", [](auto& c) { c.consume_timeout = 0; }, {"consume_timeout", "[1, "}},
        {"poll ns", [](auto& c) { c.poll_name_server_interval = 0; }, {"poll_name_server_interval"}},
        {"heartbeat", [](auto& c) { c.heartbeat_broker_interval = -5; }, {"heartbeat_broker_interval"}},
        {"persist",
         [](auto& c) { c.persist_consumer_offset_interval = 0; },
         {"persist_consumer_offset_interval"}},
        {"api timeout", [](auto& c) { c.mq_client_api_timeout = 0; }, {"mq_client_api_timeout"}},
        {"rebalance", [](auto& c) { c.rebalance_interval = 0; }, {"rebalance_interval"}},
        {"lock renewal", [](auto& c) { c.lock_renewal_interval = 0; }, {"lock_renewal_interval"}},
        {"queue capacity", [](auto& c) { c.consume_queue_capacity = 0; }, {"consume_queue_capacity"}},
        {"exception delay",
         [](auto& c) { c.pull_time_delay_mills_when_exception = -1; },
         {"pull_time_delay_mills_when_exception", "[0, "}},
        {"flow delay",
         [](auto& c) { c.pull_time_delay_mills_when_flow_control = -1; },
         {"pull_time_delay_mills_when_flow_control"}},
        {"broker flow delay",
         [](auto& c) { c.pull_time_delay_mills_when_broker_flow_control = -1; },
         {"pull_time_delay_mills_when_broker_flow_control"}},
        {"suspend delay",
         [](auto& c) { c.pull_time_delay_mills_when_suspend = -1; },
         {"pull_time_delay_mills_when_suspend"}},
        {"broker suspend",
         [](auto& c) { c.broker_suspend_max_time_millis = -1; },
         {"broker_suspend_max_time_millis"}},
        {"pull timeout vs long poll",
         [](auto& c) { c.consumer_timeout_millis_when_suspend = 15000; },
         {"consumer_timeout_millis_when_suspend", "broker_suspend_max_time_millis"}},
    };

    for (const auto& tc : cases) {
        INFO(tc.name);
        auto c = valid();
        tc.set(c);
        require_rejected(c, tc.needles);
    }
}

TEST_CASE("config: max_reconsume_times_for maps -1 like Java", "[config]") {
    auto c = valid();
    CHECK(c.max_reconsume_times_for(false) == 16);
    CHECK(c.max_reconsume_times_for(true) == std::numeric_limits<std::int32_t>::max());
    c.max_reconsume_times = 3;
    CHECK(c.max_reconsume_times_for(false) == 3);
    CHECK(c.max_reconsume_times_for(true) == 3);
}

TEST_CASE("config: client id is ip@instance[@unit][@STREAM]", "[config][client_id]") {
    auto c = valid();
    c.client_ip = "10.0.0.1";
    c.message_model = rmq::MessageModel::Broadcasting;
    CHECK(c.build_client_id() == "10.0.0.1@DEFAULT");  // stable: the local offset file path depends on it
    c.instance_name = "inst";
    c.message_model = rmq::MessageModel::Clustering;
    CHECK(c.build_client_id() == "10.0.0.1@inst");
    c.unit_name = "u1";
    CHECK(c.build_client_id() == "10.0.0.1@inst@u1");
    c.enable_stream_request_type = true;
    CHECK(c.build_client_id() == "10.0.0.1@inst@u1@STREAM");
}

TEST_CASE("config: clustering with DEFAULT becomes <pid>#<nanotime>, unique in the process",
          "[config][client_id]") {
    auto c = valid();
    c.client_ip = "10.0.0.1";
    const std::string prefix = fmt::format("10.0.0.1@{}#", ::getpid());
    std::set<std::string> ids;
    std::mutex m;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 500; ++i) {
                auto id = c.build_client_id();
                const std::lock_guard lock(m);
                ids.insert(std::move(id));
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    REQUIRE(ids.size() == 2000);
    for (const auto& id : ids) {
        REQUIRE(id.starts_with(prefix));
        const std::string nanos = id.substr(prefix.size());
        REQUIRE_FALSE(nanos.empty());
        REQUIRE(nanos.find_first_not_of("0123456789") == std::string::npos);
    }
}

TEST_CASE("config: detected client ip follows Java's getLocalAddress rule", "[config][client_id]") {
    auto c = valid();
    c.message_model = rmq::MessageModel::Broadcasting;
    const std::string id = c.build_client_id();
    const std::string ip = id.substr(0, id.find('@'));
    CHECK(id == ip + "@DEFAULT");
    in_addr addr{};
    REQUIRE(::inet_pton(AF_INET, ip.c_str(), &addr) == 1);  // a dotted IPv4 address
    CHECK(ip == rmq::detail::local_ipv4_address());
}

TEST_CASE("config: consume_timestamp parsing (local time, lenient like SimpleDateFormat)", "[config]") {
    auto c = valid();
    const std::int64_t now = 1'700'000'000'000;
    CHECK(c.consume_timestamp_millis(now) == now - 30 * 60 * 1000);
    c.consume_timestamp = rmq::detail::format_yyyymmddhhmmss(now);
    CHECK(c.consume_timestamp_millis(now) == now / 1000 * 1000);
    // Lenient: month 13 rolls into the next year.
    const auto jan = rmq::detail::parse_yyyymmddhhmmss("20250101120000");
    const auto m13 = rmq::detail::parse_yyyymmddhhmmss("20241301120000");
    REQUIRE(jan);
    REQUIRE(m13);
    CHECK(*jan == *m13);
    c.consume_timestamp = "bad";
    CHECK_THROWS_AS(c.consume_timestamp_millis(now), rmq::InvalidArgument);
}

TEST_CASE("config: with_namespace wraps like NamespaceUtil.wrapNamespace", "[config]") {
    auto c = valid();
    CHECK(c.with_namespace("T") == "T");
    c.namespace_ = "ns";
    CHECK(c.with_namespace("T") == "ns%T");
    CHECK(c.with_namespace("ns%T") == "ns%T");
    CHECK(c.with_namespace("%RETRY%g") == "%RETRY%ns%g");
    CHECK(c.with_namespace("%DLQ%g") == "%DLQ%ns%g");
    CHECK(c.with_namespace("%RETRY%ns%g") == "%RETRY%ns%g");
    CHECK(c.with_namespace("TBW102") == "TBW102");
    CHECK(c.with_namespace("") == "");
    CHECK(c.with_namespace("CID_RMQ_SYS_TRANS") == "CID_RMQ_SYS_TRANS");
}

TEST_CASE("contexts: defaults and setters", "[config][context]") {
    const rmq::MessageQueue mq{"T", "b", 3};
    rmq::ConsumeConcurrentlyContext cc(mq);
    CHECK(cc.message_queue() == mq);
    CHECK(cc.delay_level_when_next_consume() == 0);
    CHECK(cc.ack_index() == std::numeric_limits<std::int32_t>::max());
    cc.set_delay_level_when_next_consume(-1);
    cc.set_ack_index(2);
    CHECK(cc.delay_level_when_next_consume() == -1);
    CHECK(cc.ack_index() == 2);

    rmq::ConsumeOrderlyContext oc(mq);
    CHECK(oc.message_queue() == mq);
    CHECK(oc.auto_commit());
    CHECK(oc.suspend_current_queue_time_millis() == -1);
    oc.set_auto_commit(false);
    oc.set_suspend_current_queue_time_millis(500);
    CHECK_FALSE(oc.auto_commit());
    CHECK(oc.suspend_current_queue_time_millis() == 500);
}
