// Routing rmq's log lines into spdlog (docs/logging.md). rmq has one process-wide log handler
// (rmq::set_log_handler); this adapter maps rmq::LogLevel to spdlog's levels and hands each line to a logger.
// To show a real line, two members of one group subscribe different tags, which rmq warns about.
//
// Built when CMake finds spdlog (Debian: libspdlog-dev).

#include <chrono>
#include <memory>
#include <span>
#include <sstream>
#include <string_view>
#include <thread>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/log.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

spdlog::level::level_enum to_spdlog(rmq::LogLevel level) {
    switch (level) {
    case rmq::LogLevel::Trace:
        return spdlog::level::trace;
    case rmq::LogLevel::Debug:
        return spdlog::level::debug;
    case rmq::LogLevel::Info:
        return spdlog::level::info;
    case rmq::LogLevel::Warn:
        return spdlog::level::warn;
    case rmq::LogLevel::Error:
        return spdlog::level::err;
    case rmq::LogLevel::Off:
        break;
    }
    return spdlog::level::off;
}

/// Sends every rmq line to `logger`; returns rmq's previous handler.
rmq::LogHandler log_to(std::shared_ptr<spdlog::logger> logger) {
    return rmq::set_log_handler([logger = std::move(logger)](rmq::LogLevel level, std::string_view message) {
        logger->log(to_spdlog(level), "{}", message);
    });
}

}  // namespace

int main() {
    // The example writes to a string so that it can show what spdlog received; an application would use a
    // file or console sink.
    std::ostringstream out;
    auto logger =
        std::make_shared<spdlog::logger>("rmq", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
    logger->set_pattern("[%n] [%l] %v");
    log_to(logger);
    rmq::set_log_level(rmq::LogLevel::Info);

    rmq::InProcessBroker broker;
    broker.create_topic("LogTopic", 4);
    rmq::ConsumerConfig config{.consumer_group = "log_example"};
    config.rebalance_interval = 100;
    config.heartbeat_broker_interval = 100;
    rmq::PushConsumer<> a{broker.connect(), config};
    rmq::PushConsumer<> b{broker.connect(), config};
    a.subscribe("LogTopic", "TagA");
    b.subscribe("LogTopic", "TagB");  // inconsistent with a: rmq logs a warning
    for (auto* c : {&a, &b}) {
        c->register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
        c->start();
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!(a.subscription_inconsistent() && b.subscription_inconsistent()) &&
           std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    a.shutdown();
    b.shutdown();
    rmq::set_log_handler({});  // back to rmq's default stderr lines
    logger->flush();

    const std::string logged = out.str();
    const auto first = logged.substr(0, logged.find('\n'));
    fmt::print("spdlog received: {}\n", first);
    if (first.find("[rmq] [warning] group [log_example]: subscription inconsistency") == std::string::npos) {
        fmt::print("FAILED: expected rmq's inconsistency warning through spdlog, got:\n{}", logged);
        return 1;
    }
    fmt::print("rmq's warning went through spdlog\n");
    return 0;
}
