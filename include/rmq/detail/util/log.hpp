#pragma once

/// @file detail/util/log.hpp
/// The consumer's log sink (stderr, one line per event); one place to reroute logging later.

#include <cstdio>
#include <utility>

#include <fmt/format.h>

namespace rmq::detail {

/// Prints `rmq: <formatted text>` to stderr.
template <class... Args>
void log_line(fmt::format_string<Args...> format, Args&&... args) {
    fmt::print(stderr, "rmq: {}\n", fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace rmq::detail
