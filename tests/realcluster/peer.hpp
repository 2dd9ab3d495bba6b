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

/// Runs `tools/rocketmq.sh peer ARGS` and returns its stdout JSON lines (exit status must be 0).
inline std::vector<nlohmann::json> peer(const std::string& args) {
    const std::string cmd = fmt::format("'{}' peer {}", rmq_rc::env("RMQ_ROCKETMQ_SH"), args);
    const auto [status, out] = run_command(cmd);
    INFO(cmd);
    REQUIRE(status == 0);
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

}  // namespace rmq_rc
