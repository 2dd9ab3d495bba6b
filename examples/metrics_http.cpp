// Prometheus metrics of a running consumer and producer, served on GET /metrics by rmq::MetricsHttpServer
// (<rmq/metrics_http.hpp>, part of the TCP transport's umbrella as it runs on Boost.Asio). The program
// produces 20 messages on the embedded broker, consumes them, scrapes its own endpoint once and prints a few
// samples. `rmq_example_metrics_http --serve [port]` keeps serving (default port 9464) so that `curl
// localhost:9464/metrics` or a Prometheus server can scrape it; Ctrl-C stops it. docs/metrics.md describes
// every metric.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/metrics.hpp>
#include <rmq/metrics_http.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

std::atomic<bool> interrupted{false};

void wait_for(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

/// The raw response to GET /metrics from 127.0.0.1:`port` (what a Prometheus server would see).
std::string scrape(std::uint16_t port) {
    namespace asio = boost::asio;
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    socket.connect({asio::ip::make_address("127.0.0.1"), port});
    asio::write(socket,
                asio::buffer(fmt::format("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", port)));
    std::string raw;
    boost::system::error_code ec;
    asio::read(socket, asio::dynamic_buffer(raw), ec);  // until the server closes
    return raw;
}

}  // namespace

int main(int argc, char** argv) {
    const bool serve = argc > 1 && std::string_view(argv[1]) == "--serve";
    const auto port = static_cast<std::uint16_t>(serve && argc > 2 ? std::atoi(argv[2]) : serve ? 9464 : 0);

    rmq::InProcessBroker broker;
    broker.create_topic("MetricsTopic", 4);
    rmq::Producer<rmq::InProcessTransport> producer(
        broker.connect(), rmq::ProducerConfig{.producer_group = "metrics_producer"});
    producer.start();

    rmq::ConsumerConfig config{.consumer_group = "metrics_group",
                               .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    rmq::PushConsumer<rmq::InProcessTransport> consumer{broker.connect(), config};
    consumer.subscribe("MetricsTopic", "*");
    std::atomic<int> consumed{0};
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        consumed += static_cast<int>(msgs.size());
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();

    // --8<-- [start:serve]
    // One exposition per scrape, from both clients' snapshots. The server goes before the clients it reads.
    rmq::MetricsHttpServer server(
        [&] {
            return rmq::PrometheusText()
                .add(consumer.stats(), consumer.config().consumer_group, consumer.client_id())
                .add(producer.stats(), producer.config().producer_group, producer.client_id())
                .str();
        },
        rmq::MetricsHttpConfig{.address = "127.0.0.1", .port = port});  // port 0: any free port
    server.start();
    // --8<-- [end:serve]

    for (int i = 0; i < 20; ++i) {
        (void)producer.send(rmq::Message("MetricsTopic", "TagA", fmt::format("message {}", i)));
    }
    // The listener returns before the consumer counts its messages: wait for the counter itself.
    wait_for([&] {
        const auto s = consumer.stats();
        return !s.topics.empty() && s.topics[0].consume_ok_total >= 20;
    });

    const auto response = scrape(server.port());
    const auto status_line = response.substr(0, response.find("\r\n"));
    fmt::print("{}\n", status_line);
    std::istringstream body(response.substr(std::min(response.size(), response.find("\r\n\r\n") + 4)));
    for (std::string line; std::getline(body, line);) {
        if (line.starts_with("rmq_consumer_consumed_messages_total") ||
            line.starts_with("rmq_producer_sends_total")) {
            fmt::print("{}\n", line);
        }
    }
    if (serve) {
        std::signal(SIGINT, [](int) { interrupted = true; });
        fmt::print("serving http://127.0.0.1:{}/metrics, Ctrl-C stops\n", server.port());
        while (!interrupted) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    const auto stats = consumer.stats();
    const bool ok = status_line == "HTTP/1.1 200 OK" && stats.topics.size() == 1 &&
                    stats.topics[0].consume_ok_total == 20;
    fmt::print("{}: {} messages consumed, /metrics scraped\n", ok ? "done" : "FAILED", consumed.load());
    return ok ? 0 : 1;
}
