// ConsumerConfig::stats_log_interval: the periodic per-topic stats line goes through rmq's log at Info, and a
// consumer that leaves it at 0 logs none.

#include <chrono>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <consumer_fixture.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/log.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

class Capture {
public:
    Capture() {
        rmq::set_log_handler([this](rmq::LogLevel level, std::string_view m) {
            const std::lock_guard lock(mutex_);
            lines_.push_back(fmt::format("{} {}", rmq::to_string(level), m));
        });
    }

    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;

    ~Capture() { rmq::set_log_handler({}); }

    [[nodiscard]] int count(const std::string& needle) const {
        const std::lock_guard lock(mutex_);
        int n = 0;
        for (const auto& l : lines_) {
            n += l.find(needle) != std::string::npos ? 1 : 0;
        }
        return n;
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> lines_;
};

using Consumer = rmq::PushConsumer<rmq::InProcessTransport>;

void consume_all(Consumer& c) {
    c.subscribe("LogTopic", "*");
    c.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    c.start();
}

}  // namespace

TEST_CASE("metrics: stats_log_interval logs the per-topic stats line at Info, 0 logs none", "[metrics]") {
    const Capture capture;
    const auto level = rmq::set_log_level(rmq::LogLevel::Info);
    rmq::InProcessBroker broker;
    broker.create_topic("LogTopic", 2);
    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "log_producer"});
    producer.start();
    for (int i = 0; i < 6; ++i) {
        (void)producer.send(rmq::Message("LogTopic", "TagA", fmt::format("m{}", i)));
    }
    auto config = consumer_fixture::fast_config("logged_group", 10000);
    config.stats_log_interval = 50;
    Consumer logged(broker.connect(), config);
    Consumer silent(broker.connect(), consumer_fixture::fast_config("silent_group", 10000));
    consume_all(logged);
    consume_all(silent);

    const std::string line = "INFO [ConsumeStats] [LogTopic@logged_group] Stats In One Minute, PULL_TPS: ";
    CHECK(consumer_fixture::eventually(
        [&] { return capture.count(line) >= 1 && capture.count("TOTAL: pulled 6 ok 6 failed 0") >= 1; },
        std::chrono::seconds(30)));
    // The silent consumer runs as long and has consumed too by the time the logged one has logged twice more.
    const int seen = capture.count(line);
    CHECK(consumer_fixture::eventually(
        [&] {
            const auto s = silent.stats();
            return capture.count(line) >= seen + 2 && !s.topics.empty() && s.topics[0].consume_ok_total == 6;
        },
        std::chrono::seconds(30)));
    CHECK(capture.count("silent_group] Stats") == 0);
    logged.shutdown();
    silent.shutdown();
    producer.shutdown();
    rmq::set_log_level(level);
}
