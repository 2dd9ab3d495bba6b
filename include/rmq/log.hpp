#pragma once

/// @file log.hpp
/// Where rmq's log lines go: one process-wide handler and level, set by the application (spdlog, syslog,
/// a test's capture). docs/logging.md.

#include <functional>
#include <string_view>

#include <rmq/config.hpp>

namespace rmq {

/// How much a line matters. `Off` as a level silences rmq entirely.
enum class LogLevel { Trace, Debug, Info, Warn, Error, Off };

/// "TRACE", "DEBUG", "INFO", "WARN", "ERROR" or "OFF".
[[nodiscard]] constexpr std::string_view to_string(LogLevel level) noexcept {
    switch (level) {
    case LogLevel::Trace:
        return "TRACE";
    case LogLevel::Debug:
        return "DEBUG";
    case LogLevel::Info:
        return "INFO";
    case LogLevel::Warn:
        return "WARN";
    case LogLevel::Error:
        return "ERROR";
    case LogLevel::Off:
        break;
    }
    return "OFF";
}

/// Receives every line at or above the level (without the `rmq: ` prefix or a newline). Called on rmq's own
/// threads (pull loop, consume pool, I/O), possibly from several at once: it must be thread-safe, and it must
/// not block for long. An exception it throws is swallowed (logging never breaks consumption).
using LogHandler = std::function<void(LogLevel, std::string_view message)>;

/// Installs `handler` for the whole process and returns the previous one; an empty function restores the
/// default handler, which writes `rmq: <message>` lines to stderr.
RMQ_DECL LogHandler set_log_handler(LogHandler handler);

/// Lines below `level` are neither formatted nor handed to the handler (default: LogLevel::Info). Returns
/// the previous level.
RMQ_DECL LogLevel set_log_level(LogLevel level) noexcept;

/// The current level.
[[nodiscard]] RMQ_DECL LogLevel log_level() noexcept;

/// Whether a line at `level` would reach the handler.
[[nodiscard]] RMQ_DECL bool log_enabled(LogLevel level) noexcept;

/// Hands one line to the handler when `level` is enabled (what rmq's own lines go through).
RMQ_DECL void log_message(LogLevel level, std::string_view message);

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/log.ipp>
#endif
