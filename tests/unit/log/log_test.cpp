// rmq/log.hpp: the process-wide handler and level, lazy formatting, and the summary of repeated failures.

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/log.hpp>

#include <rmq/detail/util/log.hpp>

namespace {

struct Captured {
    std::mutex mutex;
    std::vector<std::pair<rmq::LogLevel, std::string>> lines;

    std::vector<std::pair<rmq::LogLevel, std::string>> take() {
        const std::lock_guard lock(mutex);
        return std::exchange(lines, {});
    }
};

/// Installs a capturing handler and level for one test; restores the defaults after.
class Capture {
public:
    explicit Capture(rmq::LogLevel level = rmq::LogLevel::Info) {
        rmq::set_log_handler([this](rmq::LogLevel l, std::string_view m) {
            const std::lock_guard lock(captured.mutex);
            captured.lines.emplace_back(l, std::string(m));
        });
        rmq::set_log_level(level);
    }

    ~Capture() {
        rmq::set_log_handler({});
        rmq::set_log_level(rmq::LogLevel::Info);
    }

    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;

    Captured captured;
};

/// Counts how often it is formatted.
struct Counted {
    static inline std::atomic<int> formatted{0};
};

}  // namespace

template <>
struct fmt::formatter<Counted> : fmt::formatter<std::string_view> {
    auto format(const Counted&, fmt::format_context& ctx) const {
        ++Counted::formatted;
        return fmt::formatter<std::string_view>::format("counted", ctx);
    }
};

TEST_CASE("log level: Info by default, set_log_level returns the previous level", "[log]") {
    CHECK(rmq::log_level() == rmq::LogLevel::Info);
    CHECK(rmq::log_enabled(rmq::LogLevel::Info));
    CHECK(rmq::log_enabled(rmq::LogLevel::Error));
    CHECK_FALSE(rmq::log_enabled(rmq::LogLevel::Debug));
    CHECK(rmq::set_log_level(rmq::LogLevel::Error) == rmq::LogLevel::Info);
    CHECK_FALSE(rmq::log_enabled(rmq::LogLevel::Warn));
    CHECK(rmq::set_log_level(rmq::LogLevel::Off) == rmq::LogLevel::Error);
    CHECK_FALSE(rmq::log_enabled(rmq::LogLevel::Error));
    CHECK_FALSE(rmq::log_enabled(rmq::LogLevel::Off));
    rmq::set_log_level(rmq::LogLevel::Info);
    STATIC_REQUIRE(rmq::to_string(rmq::LogLevel::Warn) == "WARN");
    STATIC_REQUIRE(rmq::to_string(rmq::LogLevel::Off) == "OFF");
}

TEST_CASE("log handler: receives rmq's lines with their level, the previous handler is returned", "[log]") {
    Capture capture;
    rmq::detail::log_line(rmq::LogLevel::Warn, "group [{}]: pull of {} failed", "g", 3);
    rmq::detail::log_line(rmq::LogLevel::Debug, "not at Info: {}", 1);
    rmq::log_message(rmq::LogLevel::Error, "direct");
    const auto lines = capture.captured.take();
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == std::pair{rmq::LogLevel::Warn, std::string("group [g]: pull of 3 failed")});
    CHECK(lines[1] == std::pair{rmq::LogLevel::Error, std::string("direct")});

    // Replacing returns the capturing handler; an empty handler restores the default (returned as empty).
    int calls = 0;
    auto previous = rmq::set_log_handler([&](rmq::LogLevel, std::string_view) { ++calls; });
    REQUIRE(previous);
    previous(rmq::LogLevel::Info, "through the returned handler");
    CHECK(capture.captured.take().size() == 1);
    rmq::log_message(rmq::LogLevel::Info, "to the new handler");
    CHECK(calls == 1);
    rmq::set_log_handler({});
    CHECK_FALSE(rmq::set_log_handler(std::move(previous)));  // the default handler comes back as empty
}

TEST_CASE("log level: a disabled line is not formatted at all", "[log]") {
    Capture capture(rmq::LogLevel::Warn);
    Counted::formatted = 0;
    rmq::detail::log_line(rmq::LogLevel::Info, "{}", Counted{});
    rmq::detail::log_repeated(rmq::LogLevel::Debug, "k", "{}", Counted{});
    CHECK(Counted::formatted == 0);
    CHECK(capture.captured.take().empty());
    rmq::detail::log_line(rmq::LogLevel::Warn, "{}", Counted{});
    CHECK(Counted::formatted == 1);
    CHECK(capture.captured.take().size() == 1);
}

TEST_CASE("log handler: an exception it throws does not reach the code that logs", "[log]") {
    rmq::set_log_handler([](rmq::LogLevel, std::string_view) { throw std::runtime_error("handler broke"); });
    CHECK_NOTHROW(rmq::detail::log_line(rmq::LogLevel::Error, "a {}", "line"));
    rmq::set_log_handler({});
}

TEST_CASE("repeat limiter: one line per key and window, then a summary of those held back", "[log]") {
    rmq::detail::RepeatLimiter limiter(std::chrono::seconds(30));
    CHECK(limiter.admit("pull broker-a", 1'000) == std::string());
    for (int i = 0; i < 99; ++i) {
        CHECK_FALSE(limiter.admit("pull broker-a", 1'000 + i * 100).has_value());
    }
    CHECK(limiter.admit("pull broker-b", 2'000) == std::string());  // another key is not held back
    CHECK_FALSE(limiter.admit("pull broker-a", 30'999).has_value());
    CHECK(limiter.admit("pull broker-a", 31'000) == std::string(" (100 more in the last 30 s)"));
    CHECK_FALSE(limiter.admit("pull broker-a", 31'001).has_value());
    CHECK(limiter.admit("pull broker-a", 100'000) == std::string(" (1 more in the last 69 s)"));
    CHECK(limiter.admit("pull broker-a", 200'000) == std::string());  // nothing held back: no summary
}

TEST_CASE("repeat limiter: the number of keys is bounded", "[log]") {
    rmq::detail::RepeatLimiter limiter(std::chrono::seconds(30), 4);
    for (int i = 0; i < 4; ++i) {
        CHECK(limiter.admit(fmt::format("k{}", i), 0) == std::string());
    }
    // Full and nothing expired: a new key passes without being remembered.
    CHECK(limiter.admit("k4", 10) == std::string());
    CHECK(limiter.admit("k4", 20) == std::string());
    CHECK_FALSE(limiter.admit("k0", 20).has_value());
    // Once the window is over the expired keys make room.
    CHECK(limiter.admit("k5", 30'000) == std::string());
    CHECK_FALSE(limiter.admit("k5", 30'001).has_value());
}

TEST_CASE("log_repeated: a failure repeated 1000 times makes one line", "[log]") {
    Capture capture;
    for (int i = 0; i < 1000; ++i) {
        rmq::detail::log_repeated(
            rmq::LogLevel::Warn,
            "connect 127.0.0.1:10911 (log_test)",
            "connect to 127.0.0.1:10911 failed: Connection refused (next attempt in {} ms)",
            1000 + i);
    }
    const auto lines = capture.captured.take();
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].second ==
          "connect to 127.0.0.1:10911 failed: Connection refused (next attempt in 1000 ms)");
}
