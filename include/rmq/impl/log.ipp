#pragma once

/// @file impl/log.ipp
/// Definitions of log.hpp: the process-wide handler and level, and the default handler (the one place in
/// rmq that writes to stderr).

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include <rmq/log.hpp>

namespace rmq {
namespace detail {

struct LogState {
    std::atomic<int> level{static_cast<int>(LogLevel::Info)};
    std::mutex mutex;
    std::shared_ptr<const LogHandler> handler;  // null: the default handler
};

// One per process (an inline function's static is shared by every translation unit).
RMQ_DECL LogState& log_state() {
    static LogState s;
    return s;
}

RMQ_DECL void write_default_log(LogLevel /*level*/, std::string_view message) {
    // One fputs per line so that lines of different threads do not interleave.
    const std::string line = fmt::format("rmq: {}\n", message);
    (void)std::fputs(line.c_str(), stderr);  // a failed write to stderr has nowhere to be reported
}

}  // namespace detail

RMQ_DECL LogHandler set_log_handler(LogHandler handler) {
    auto& s = detail::log_state();
    auto next = handler ? std::make_shared<const LogHandler>(std::move(handler)) : nullptr;
    const std::lock_guard lock(s.mutex);
    auto previous = std::exchange(s.handler, std::move(next));
    return previous ? *previous : LogHandler{};
}

RMQ_DECL LogLevel set_log_level(LogLevel level) noexcept {
    return static_cast<LogLevel>(detail::log_state().level.exchange(static_cast<int>(level)));
}

RMQ_DECL LogLevel log_level() noexcept {
    return static_cast<LogLevel>(detail::log_state().level.load(std::memory_order_relaxed));
}

RMQ_DECL bool log_enabled(LogLevel level) noexcept {
    return level != LogLevel::Off && static_cast<int>(level) >= static_cast<int>(log_level());
}

RMQ_DECL void log_message(LogLevel level, std::string_view message) {
    if (!log_enabled(level)) {
        return;
    }
    auto& s = detail::log_state();
    std::shared_ptr<const LogHandler> handler;
    {
        const std::lock_guard lock(s.mutex);
        handler = s.handler;
    }
    try {
        // Called outside the mutex: a handler may itself log or replace the handler.
        if (handler) {
            (*handler)(level, message);
        } else {
            detail::write_default_log(level, message);
        }
    } catch (...) {  // NOLINT(bugprone-empty-catch): logging never breaks consumption
    }
}

}  // namespace rmq
