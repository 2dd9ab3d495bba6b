// A consumer and a producer on the embedded broker, their metrics served by rmq::MetricsHttpServer on an
// ephemeral port and scraped over a real socket: the text parses strictly, counters only grow between
// scrapes, and the values are the clients' stats().

#include <chrono>
#include <map>
#include <span>
#include <string>

#include "http_get.hpp"
#include "prometheus_parser.hpp"
#include <consumer_fixture.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/metrics.hpp>
#include <rmq/metrics_http.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

using Consumer = rmq::PushConsumer<rmq::InProcessTransport>;
using Producer = rmq::Producer<rmq::InProcessTransport>;

std::int64_t ok_total(const Consumer& c) {
    const auto s = c.stats();
    return s.topics.empty() ? 0 : s.topics[0].consume_ok_total;
}

void send(Producer& p, int from, int to) {
    for (int i = from; i < to; ++i) {
        (void)p.send(rmq::Message("ScrapeTopic", "TagA", fmt::format("m{}", i)));
    }
}

prom::Exposition scrape(std::uint16_t port) {
    const auto r = http_get::get(port);
    REQUIRE(r.status_line == "HTTP/1.1 200 OK");
    CHECK(r.headers.find("Content-Type: text/plain; version=0.0.4; charset=utf-8") != std::string::npos);
    auto e = prom::parse(r.body);
    for (const auto& err : e.errors) {
        FAIL_CHECK(err);
    }
    return e;
}

std::string series_key(const prom::Sample& s) {
    std::string key = s.name;
    for (const auto& [k, v] : s.labels) {
        key += fmt::format(",{}={}", k, v);
    }
    return key;
}

/// Every counter and histogram bucket/count of `before` is present in `after` with a value not smaller.
void check_monotonic(const prom::Exposition& before, const prom::Exposition& after) {
    std::map<std::string, double> later;
    for (const auto& s : after.samples) {
        later[series_key(s)] = s.value;
    }
    int checked = 0;
    for (const auto& s : before.samples) {
        const auto family = prom::family_of(s.name, before.types);
        const auto type = before.types.at(family);
        if (type != "counter" && type != "histogram") {
            continue;
        }
        const auto it = later.find(series_key(s));
        REQUIRE(it != later.end());
        CHECK(it->second >= s.value);
        ++checked;
    }
    CHECK(checked > 10);
}

}  // namespace

TEST_CASE("metrics: /metrics of a running consumer and producer, scraped twice over a socket", "[metrics]") {
    rmq::InProcessBroker broker;
    broker.create_topic("ScrapeTopic", 4);
    Producer producer(broker.connect(), rmq::ProducerConfig{.producer_group = "scrape_producer"});
    producer.start();
    Consumer consumer(broker.connect(), consumer_fixture::fast_config("scrape_group", 10000));
    consumer.subscribe("ScrapeTopic", "*");
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    {
        rmq::MetricsHttpServer server(
            [&] {
                return rmq::PrometheusText()
                    .add(consumer.stats(), "scrape_group", consumer.client_id())
                    .add(producer.stats(), "scrape_producer", producer.client_id())
                    .str();
            },
            rmq::MetricsHttpConfig{.address = "127.0.0.1", .port = 0});
        server.start();
        REQUIRE(server.port() != 0);

        send(producer, 0, 10);
        REQUIRE(
            consumer_fixture::eventually([&] { return ok_total(consumer) == 10; }, std::chrono::seconds(30)));
        const auto first = scrape(server.port());
        send(producer, 10, 25);
        REQUIRE(
            consumer_fixture::eventually([&] { return ok_total(consumer) == 25; }, std::chrono::seconds(30)));
        const auto second = scrape(server.port());
        check_monotonic(first, second);

        const auto stats = consumer.stats();
        const auto& t = stats.topics.at(0);
        const std::map<std::string, std::string> topic{{"topic", "ScrapeTopic"},
                                                       {"consumer_group", "scrape_group"}};
        auto with = [](std::map<std::string, std::string> m, std::string k, std::string v) {
            m[std::move(k)] = std::move(v);
            return m;
        };
        CHECK(second.value("rmq_consumer_consumed_messages_total",
                           with(topic, "invocation_status", "success")) == 25.0);
        CHECK(second.value("rmq_consumer_pulled_messages_total", topic) ==
              static_cast<double>(t.pulled_msgs_total));
        CHECK(second.value("rocketmq_process_time_count", topic) ==
              static_cast<double>(t.process_time.count));
        CHECK(second.value("rmq_producer_sends_total", {{"invocation_status", "success"}}) == 25.0);
        CHECK(second.value("rocketmq_send_cost_time_count", {{"invocation_status", "success"}}) == 25.0);
        CHECK(second
                  .value("rmq_consumer_queue_commit_offset",
                         {{"topic", "ScrapeTopic"},
                          {"queue_id", "0"},
                          {"broker_name", stats.queues.at(0).mq.broker_name}})
                  .has_value());
        CHECK(http_get::get(server.port(), "/other").status_line == "HTTP/1.1 404 Not Found");
    }
    consumer.shutdown();
    producer.shutdown();
}

TEST_CASE("metrics: a failed message is counted as consumed with failure and as sent back", "[metrics]") {
    rmq::InProcessBroker broker;
    broker.create_topic("ScrapeTopic", 1);
    Producer producer(broker.connect(), rmq::ProducerConfig{.producer_group = "fail_producer"});
    producer.start();
    send(producer, 0, 1);
    Consumer consumer(broker.connect(), consumer_fixture::fast_config("fail_group", 10000));
    consumer.subscribe("ScrapeTopic", "*");
    consumer.register_listener([](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        return msgs[0].reconsume_times() == 0 ? rmq::ConsumeConcurrentlyStatus::ReconsumeLater
                                              : rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(consumer_fixture::eventually([&] { return consumer.stats().send_back_total == 1; },
                                         std::chrono::seconds(30)));
    const auto e = prom::parse(rmq::to_prometheus(consumer.stats(), "fail_group", consumer.client_id()));
    CHECK(e.errors.empty());
    CHECK(e.value("rmq_consumer_sent_back_messages_total", {{"invocation_status", "success"}}) == 1.0);
    CHECK(e.value("rmq_consumer_consumed_messages_total",
                  {{"topic", "ScrapeTopic"}, {"invocation_status", "failure"}}) == 1.0);
    consumer.shutdown();
    producer.shutdown();
}
