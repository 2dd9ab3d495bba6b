#pragma once

// The Java reference peer (tests/interop), run through `tools/rocketmq.sh peer`.

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "cluster.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rmq_rc {

/// The JSON lines of a peer's standard output.
inline std::vector<nlohmann::json> json_lines(const std::string& out) {
    std::vector<nlohmann::json> lines;
    std::size_t start = 0;
    while (start < out.size()) {
        const std::size_t end = out.find('\n', start);
        const std::string line =
            out.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!line.empty() && line.front() == '{') {
            lines.push_back(nlohmann::json::parse(line));
        }
        if (end == std::string::npos) {
            break;
        }
        start = end + 1;
    }
    return lines;
}

/// Runs `tools/rocketmq.sh peer ARGS` and returns its stdout JSON lines (exit status must be 0).
inline std::vector<nlohmann::json> peer(const std::string& args) {
    const std::string cmd = fmt::format("'{}' peer {}", rmq_rc::env("RMQ_ROCKETMQ_SH"), args);
    const auto [status, out] = run_command(cmd);
    INFO(cmd);
    REQUIRE(status == 0);
    return json_lines(out);
}

/// As peer(), but a run that failed before it printed anything (a JVM on a loaded machine whose first request
/// to the NameServer timed out in start()) is tried again, up to `attempts` times in all.
inline std::vector<nlohmann::json> peer_retrying_start(const std::string& args, int attempts = 3) {
    const std::string cmd = fmt::format("'{}' peer {}", rmq_rc::env("RMQ_ROCKETMQ_SH"), args);
    for (int i = 1;; ++i) {
        const auto [status, out] = run_command(cmd);
        auto lines = json_lines(out);
        if (status == 0 || !lines.empty() || i >= attempts) {
            INFO(cmd << " (attempt " << i << ")");
            REQUIRE(status == 0);
            return lines;
        }
        WARN("attempt " << i << " of `" << cmd << "` failed (status " << status
                        << ") before consuming anything: trying again");
    }
}

}  // namespace rmq_rc
