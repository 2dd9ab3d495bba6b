// rmq::MetricsHttpServer on 127.0.0.1, port 0, scraped over a plain socket (http_get.hpp): the status line,
// content type and a metric line of a 200, then what it answers to everything that is not a scrape.

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "http_get.hpp"

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/metrics.hpp>
#include <rmq/metrics_http.hpp>
#include <rmq/stats.hpp>

namespace {

rmq::MetricsHttpConfig loopback_any_port() {
    return rmq::MetricsHttpConfig{.address = "127.0.0.1", .port = 0};
}

}  // namespace

TEST_CASE("metrics http: GET /metrics answers 200 with the Prometheus text of the callback", "[metrics]") {
    std::atomic<int> calls{0};
    rmq::ProducerStats stats;
    stats.topics.push_back(rmq::ProducerTopicStats{.topic = "HttpTopic", .send_ok_total = 7});
    rmq::MetricsHttpServer server(
        [&] {
            calls.fetch_add(1);
            return rmq::to_prometheus(stats, "http_producer", "client-1");
        },
        loopback_any_port());
    CHECK(server.port() == 0);  // nothing bound before start()
    CHECK_FALSE(server.running());
    server.start();
    REQUIRE(server.running());
    REQUIRE(server.port() != 0);

    const auto r = http_get::get(server.port());
    CHECK(r.status_line == "HTTP/1.1 200 OK");
    CHECK(r.headers.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n") != std::string::npos);
    CHECK(r.headers.find(fmt::format("Content-Length: {}", r.body.size())) != std::string::npos);
    CHECK(r.body.find("rmq_producer_sends_total{producer_group=\"http_producer\",client_id=\"client-1\","
                      "topic=\"HttpTopic\",invocation_status=\"success\"} 7\n") != std::string::npos);
    CHECK(r.body == rmq::to_prometheus(stats, "http_producer", "client-1"));
    CHECK(http_get::get(server.port(), "/metrics?name[]=x").status_line == "HTTP/1.1 200 OK");
    CHECK(calls.load() == 2);

    server.stop();
    CHECK_FALSE(server.running());
    CHECK(server.port() == 0);
    server.stop();  // idempotent
}

TEST_CASE("metrics http: another path is 404, another method 405, a request that is not HTTP 400",
          "[metrics]") {
    std::atomic<int> calls{0};
    rmq::MetricsHttpServer server(
        [&] {
            calls.fetch_add(1);
            return std::string("up 1\n");
        },
        loopback_any_port());
    server.start();
    const auto port = server.port();

    CHECK(http_get::get(port, "/").status_line == "HTTP/1.1 404 Not Found");
    CHECK(http_get::get(port, "/metricsx").status_line == "HTTP/1.1 404 Not Found");
    const auto post = http_get::get(port, "/metrics", "POST");
    CHECK(post.status_line == "HTTP/1.1 405 Method Not Allowed");
    CHECK(post.headers.find("Allow: GET") != std::string::npos);
    CHECK(http_get::split(http_get::send_raw(port, "hello\r\n\r\n")).status_line ==
          "HTTP/1.1 400 Bad Request");
    CHECK(http_get::split(http_get::send_raw(port, "GET /metrics SMTP/1.0\r\n\r\n")).status_line ==
          "HTTP/1.1 400 Bad Request");
    // A head over 8 KiB is refused without waiting for its end.
    const std::string huge = "GET /metrics HTTP/1.1\r\nX-Fill: " + std::string(10000, 'a');
    CHECK(http_get::split(http_get::send_raw(port, huge)).status_line == "HTTP/1.1 400 Bad Request");
    CHECK(calls.load() == 0);  // none of these scraped
    CHECK(http_get::get(port).status_line == "HTTP/1.1 200 OK");
}

TEST_CASE("metrics http: a throwing callback answers 500 with its text", "[metrics]") {
    rmq::MetricsHttpServer server([]() -> std::string { throw std::runtime_error("stats unavailable"); },
                                  loopback_any_port());
    server.start();
    const auto r = http_get::get(server.port());
    CHECK(r.status_line == "HTTP/1.1 500 Internal Server Error");
    CHECK(r.body == "stats unavailable");
}

TEST_CASE("metrics http: bad configuration is an InvalidArgument, a taken port an Error, start twice an "
          "IllegalState",
          "[metrics]") {
    const auto text = [] {
        return std::string();
    };
    CHECK_THROWS_AS(rmq::MetricsHttpServer(nullptr, loopback_any_port()), rmq::InvalidArgument);
    CHECK_THROWS_AS(rmq::MetricsHttpServer(text, rmq::MetricsHttpConfig{.address = "localhost", .port = 0}),
                    rmq::InvalidArgument);
    CHECK_THROWS_AS(rmq::MetricsHttpServer(
                        text, rmq::MetricsHttpConfig{.address = "127.0.0.1", .port = 0, .path = "metrics"}),
                    rmq::InvalidArgument);

    rmq::MetricsHttpServer first(text, loopback_any_port());
    first.start();
    CHECK_THROWS_AS(first.start(), rmq::IllegalState);
    rmq::MetricsHttpServer second(text, rmq::MetricsHttpConfig{.address = "127.0.0.1", .port = first.port()});
    CHECK_THROWS_AS(second.start(), rmq::Error);
    CHECK_FALSE(second.running());
    // A stopped server can start again (on a new port, as asked for port 0).
    first.stop();
    first.start();
    CHECK(http_get::get(first.port()).status_line == "HTTP/1.1 200 OK");
}
