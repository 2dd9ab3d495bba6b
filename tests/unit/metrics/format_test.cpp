// The Prometheus exposition of fixed snapshots: exact text, escaping, one HELP/TYPE per family, and a strict
// parse of everything rmq writes.

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "prometheus_parser.hpp"

#include <catch2/catch.hpp>

#include <rmq/metrics.hpp>

namespace {

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

rmq::Histogram histogram(std::vector<std::int64_t> counts, double sum) {
    rmq::Histogram h;
    h.bounds.assign(rmq::send_cost_time_buckets.begin(), rmq::send_cost_time_buckets.end());
    h.count = 0;
    for (const auto c : counts) {
        h.count += c;
    }
    h.counts = std::move(counts);
    h.sum = sum;
    return h;
}

rmq::ConsumerStats consumer_snapshot() {
    rmq::ConsumerStats s;
    rmq::TopicStats t{"TopicA"};
    t.pull_tps = 2.5;
    t.pull_rt = 1.25;
    t.consume_ok_tps = 2;
    t.consume_rt = 3;
    t.consume_failed_msgs = 1;
    t.pulled_msgs_total = 150;
    t.consume_ok_total = 140;
    t.consume_failed_total = 3;
    t.process_time.bounds.assign(rmq::process_time_buckets.begin(), rmq::process_time_buckets.end());
    t.process_time.counts = {1, 2, 0, 0, 0, 0, 0, 1};
    t.process_time.count = 4;
    t.process_time.sum = 70007;
    s.topics.push_back(t);
    for (int id = 0; id < 2; ++id) {
        rmq::QueueStats q;
        q.mq = rmq::MessageQueue{"TopicA", "broker-a", id};
        q.cached_msg_count = 3 + id;
        q.cached_msg_bytes = 30 + id;
        q.commit_offset = 100;
        q.broker_max_offset = 110;
        q.lag = 10;
        s.queues.push_back(q);
    }
    s.send_back_total = 3;
    s.damaged_records = 2;
    return s;
}

}  // namespace

TEST_CASE("metrics: a producer snapshot's exact exposition", "[metrics]") {
    rmq::ProducerStats s;
    s.topics.push_back(rmq::ProducerTopicStats{
        .topic = "T",
        .send_ok_total = 3,
        .send_failed_total = 1,
        .send_cost_time_ok = histogram({1, 1, 0, 0, 0, 0, 1, 0}, 204.5),
        .send_cost_time_failed = histogram({0, 0, 0, 0, 0, 0, 0, 1}, 3000),
    });
    const std::string lbl = R"(producer_group="PG",client_id="1.2.3.4@x",topic="T")";
    const std::string expected = "# HELP rocketmq_send_cost_time Time of one send call, in milliseconds.\n"
                                 "# TYPE rocketmq_send_cost_time histogram\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="success",le="1"} 1)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="success",le="5"} 2)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="success",le="10"} 2)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="success",le="20"} 2)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="success",le="50"} 2)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="success",le="200"} 2)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="success",le="500"} 3)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="success",le="+Inf"} 3)"
                                 "\n"
                                 "rocketmq_send_cost_time_sum{" +
                                 lbl +
                                 R"(,invocation_status="success"} 204.5)"
                                 "\n"
                                 "rocketmq_send_cost_time_count{" +
                                 lbl +
                                 R"(,invocation_status="success"} 3)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="failure",le="1"} 0)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="failure",le="5"} 0)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="failure",le="10"} 0)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="failure",le="20"} 0)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="failure",le="50"} 0)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="failure",le="200"} 0)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="failure",le="500"} 0)"
                                 "\n"
                                 "rocketmq_send_cost_time_bucket{" +
                                 lbl +
                                 R"(,invocation_status="failure",le="+Inf"} 1)"
                                 "\n"
                                 "rocketmq_send_cost_time_sum{" +
                                 lbl +
                                 R"(,invocation_status="failure"} 3000)"
                                 "\n"
                                 "rocketmq_send_cost_time_count{" +
                                 lbl +
                                 R"(,invocation_status="failure"} 1)"
                                 "\n"
                                 "# HELP rmq_producer_sends_total Send calls, by outcome.\n"
                                 "# TYPE rmq_producer_sends_total counter\n"
                                 "rmq_producer_sends_total{" +
                                 lbl +
                                 R"(,invocation_status="success"} 3)"
                                 "\n"
                                 "rmq_producer_sends_total{" +
                                 lbl +
                                 R"(,invocation_status="failure"} 1)"
                                 "\n";
    const std::string actual = rmq::to_prometheus(s, "PG", "1.2.3.4@x");
    const auto want = lines(expected);
    const auto got = lines(actual);
    for (std::size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
        CHECK((i < got.size() ? got[i] : "") == (i < want.size() ? want[i] : ""));
    }
    CHECK(actual == expected);
}

TEST_CASE("metrics: label values escape backslash, double quote and newline", "[metrics]") {
    CHECK(rmq::prometheus_escape_label_value(R"(a\b"c)"
                                             "\nd") == R"(a\\b\"c\nd)");
    CHECK(rmq::prometheus_escape_label_value("plain-1@x%y") == "plain-1@x%y");
    const std::string text = rmq::to_prometheus(consumer_snapshot(), "G", "ip@in\"st\\ance\nx");
    CHECK(text.find(R"(client_id="ip@in\"st\\ance\nx")") != std::string::npos);
    const auto e = prom::parse(text);
    CHECK(e.errors.empty());
    CHECK(e.value("rmq_consumer_damaged_records_total", {{"client_id", "ip@in\"st\\ance\nx"}}) == 2.0);
}

TEST_CASE("metrics: a consumer snapshot parses, with the right types and values", "[metrics]") {
    const std::string text = rmq::to_prometheus(consumer_snapshot(), "G", "c1");
    const auto e = prom::parse(text);
    INFO(text);
    for (const auto& err : e.errors) {
        FAIL_CHECK(err);
    }
    CHECK(e.types.at("rocketmq_process_time") == "histogram");
    CHECK(e.types.at("rocketmq_consumer_cached_messages") == "gauge");
    CHECK(e.types.at("rocketmq_consumer_cached_bytes") == "gauge");
    CHECK(e.types.at("rmq_consumer_consumed_messages_total") == "counter");
    const std::map<std::string, std::string> topic{
        {"consumer_group", "G"}, {"client_id", "c1"}, {"topic", "TopicA"}};
    CHECK(e.value("rocketmq_consumer_cached_messages", topic) == 7.0);  // 3 + 4 over the two queues
    CHECK(e.value("rocketmq_consumer_cached_bytes", topic) == 61.0);
    CHECK(e.value("rmq_consumer_pulled_messages_total", topic) == 150.0);
    CHECK(e.value("rmq_consumer_consumed_messages_total", {{"invocation_status", "success"}}) == 140.0);
    CHECK(e.value("rmq_consumer_consumed_messages_total", {{"invocation_status", "failure"}}) == 3.0);
    CHECK(e.value("rmq_consumer_pull_tps", topic) == 2.5);
    CHECK(e.value("rmq_consumer_pull_rt_milliseconds", topic) == 1.25);
    CHECK(e.value("rocketmq_process_time_bucket", {{"le", "1"}}) == 1.0);
    CHECK(e.value("rocketmq_process_time_bucket", {{"le", "5"}}) == 3.0);
    CHECK(e.value("rocketmq_process_time_bucket", {{"le", "60000"}}) == 3.0);
    CHECK(e.value("rocketmq_process_time_bucket", {{"le", "+Inf"}}) == 4.0);
    CHECK(e.value("rocketmq_process_time_sum") == 70007.0);
    CHECK(e.value("rmq_consumer_queue_lag_messages", {{"queue_id", "1"}, {"broker_name", "broker-a"}}) ==
          10.0);
    CHECK(e.value("rmq_consumer_queue_cached_messages", {{"queue_id", "1"}}) == 4.0);
    CHECK(e.value("rmq_consumer_sent_back_messages_total", {{"invocation_status", "success"}}) == 3.0);
    CHECK(e.value("rmq_consumer_dlq_messages_total") == 0.0);
    // Every family's TYPE line comes once and right after its HELP line.
    CHECK(text.find("# HELP rocketmq_process_time ") < text.find("# TYPE rocketmq_process_time histogram"));
}

TEST_CASE("metrics: two consumers and a producer share one HELP/TYPE block per family", "[metrics]") {
    rmq::ProducerStats p;
    p.topics.push_back(rmq::ProducerTopicStats{.topic = "T", .send_ok_total = 1});
    const std::string text = rmq::PrometheusText()
                                 .add(consumer_snapshot(), "G1", "c1")
                                 .add(consumer_snapshot(), "G2", "c2")
                                 .add(p, "PG", "c3")
                                 .str();
    const auto e = prom::parse(text);
    for (const auto& err : e.errors) {
        FAIL_CHECK(err);
    }
    CHECK(e.value("rmq_consumer_damaged_records_total", {{"consumer_group", "G1"}}) == 2.0);
    CHECK(e.value("rmq_consumer_damaged_records_total", {{"consumer_group", "G2"}}) == 2.0);
    CHECK(e.value("rmq_producer_sends_total", {{"invocation_status", "success"}}) == 1.0);
    // A histogram never observed still has its zero buckets and a zero count.
    CHECK(e.value("rocketmq_send_cost_time_count", {{"invocation_status", "failure"}}) == 0.0);
}

TEST_CASE("metrics: an empty snapshot is valid exposition", "[metrics]") {
    const auto e = prom::parse(rmq::to_prometheus(rmq::ConsumerStats{}, "G", "c"));
    CHECK(e.errors.empty());
    CHECK(e.value("rmq_consumer_dlq_messages_total") == 0.0);
}
