#pragma once

/// @file detail/util/log.hpp
/// How rmq's code logs: formatted only when the level is enabled, through rmq::log_message (log.hpp), and
/// repeated failures (a broker down: every pull, heartbeat and route refresh fails) summarised instead of
/// flooding the log.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include <rmq/log.hpp>

namespace rmq::detail {

/// Formats and logs one line at `level` (nothing is formatted when the level is disabled).
template <class... Args>
void log_line(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
    if (log_enabled(level)) {
        log_message(level, fmt::format(format, std::forward<Args>(args)...));
    }
}

/// Lets the first line of a key through, then at most one per window: a line that comes after lines were
/// held back carries " (N more in the last M s)". Keys are kept for one window; at most `max_keys` at once
/// (beyond that, expired keys are dropped, and if none has expired the line passes unsummarised).
class RepeatLimiter {
public:
    explicit RepeatLimiter(std::chrono::milliseconds window, std::size_t max_keys = 1024)
        : window_ms_(window.count())
        , max_keys_(max_keys) {}

    /// The suffix to append when the line of `key` at `now_ms` (steady milliseconds) is to be logged, or
    /// nullopt when it is held back.
    std::optional<std::string> admit(std::string_view key, std::int64_t now_ms) {
        const std::lock_guard lock(mutex_);
        auto it = entries_.find(std::string(key));
        if (it == entries_.end()) {
            if (entries_.size() >= max_keys_ && !drop_expired(now_ms)) {
                return std::string();
            }
            entries_.emplace(std::string(key), Entry{now_ms, 0});
            return std::string();
        }
        Entry& e = it->second;
        if (now_ms - e.since < window_ms_) {
            ++e.held_back;
            return std::nullopt;
        }
        std::string suffix;
        if (e.held_back > 0) {
            suffix = fmt::format(" ({} more in the last {} s)", e.held_back, (now_ms - e.since) / 1000);
        }
        e = Entry{now_ms, 0};
        return suffix;
    }

private:
    struct Entry {
        std::int64_t since;      // when the last line of the key was logged
        std::int64_t held_back;  // lines held back since
    };

    bool drop_expired(std::int64_t now_ms) {
        const auto before = entries_.size();
        std::erase_if(entries_, [&](const auto& e) { return now_ms - e.second.since >= window_ms_; });
        return entries_.size() < before;
    }

    std::int64_t window_ms_;
    std::size_t max_keys_;
    std::mutex mutex_;
    std::unordered_map<std::string, Entry> entries_;
};

/// The process-wide limiter of log_repeated: one line per key every 30 s.
inline RepeatLimiter& repeat_limiter() {
    static RepeatLimiter limiter(std::chrono::seconds(30));
    return limiter;
}

/// Logs a failure that repeats while its cause lasts (a broker down, a route missing): the first line of
/// `key` (e.g. the operation and the broker) and then one per 30 s with the count of those held back.
template <class... Args>
void log_repeated(LogLevel level, std::string_view key, fmt::format_string<Args...> format, Args&&... args) {
    if (!log_enabled(level)) {
        return;
    }
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now().time_since_epoch())
                         .count();
    if (const auto suffix = repeat_limiter().admit(key, now)) {
        log_message(level, fmt::format(format, std::forward<Args>(args)...) + *suffix);
    }
}

}  // namespace rmq::detail
