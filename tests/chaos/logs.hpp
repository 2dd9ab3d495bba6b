#pragma once

// The log files of one chaos run (tests/chaos/run.py) read into rmq_chaos::Input. Tab-separated, one record a
// line; a last line without its newline (a member killed while writing) is ignored.
//
//   DIR/sent.tsv              key seq msg_id broker queue_id offset time_us          (the producer)
//   DIR/send_failures.txt     one number
//   DIR/faults.tsv            time_us kind target                                    (the driver)
//   DIR/members/*.log         member key seq msg_id broker queue_id offset time_us   (each member
//   incarnation) DIR/members/*.shutdown    member requested_us done_us                            (after a
//   clean shutdown)

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "chaos_check.hpp"

#include <fmt/format.h>

namespace rmq_chaos {

namespace logs_detail {

inline std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, '\t')) {
        out.push_back(field);
    }
    return out;
}

/// Calls `f(fields)` for every complete line of `path` with exactly `n` fields; throws on other lines.
inline void each_line(const std::filesystem::path& path,
                      std::size_t n,
                      const std::function<void(const std::vector<std::string>&)>& f) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error(fmt::format("cannot read {}", path.string()));
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t begin = 0;
    for (std::size_t end = 0; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1) {
        const std::string line = text.substr(begin, end - begin);
        if (line.empty()) {
            continue;
        }
        const auto fields = split(line);
        if (fields.size() != n) {
            throw std::runtime_error(fmt::format("{}: expected {} fields: {}", path.string(), n, line));
        }
        f(fields);
    }
}

}  // namespace logs_detail

inline Input read_run(const std::filesystem::path& dir) {
    using logs_detail::each_line;
    Input in;
    each_line(dir / "sent.tsv", 7, [&](const auto& f) {
        in.sent.push_back(Sent{.key = f[0],
                               .seq = std::stoll(f[1]),
                               .msg_id = f[2],
                               .broker = f[3],
                               .queue_id = std::stoi(f[4]),
                               .offset = std::stoll(f[5]),
                               .time_us = std::stoll(f[6])});
    });
    if (std::ifstream failures(dir / "send_failures.txt"); failures) {
        failures >> in.send_failures;
    }
    each_line(dir / "faults.tsv", 3, [&](const auto& f) {
        FaultKind kind{};
        if (!fault_kind_from(f[1], kind)) {
            throw std::runtime_error(fmt::format("faults.tsv: unknown kind {}", f[1]));
        }
        in.faults.push_back(Fault{.time_us = std::stoll(f[0]), .kind = kind, .target = f[2]});
    });
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir / "members")) {
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& p : files) {
        if (p.extension() == ".log") {
            each_line(p, 8, [&](const auto& f) {
                in.handled.push_back(Handled{.member = f[0],
                                             .key = f[1],
                                             .seq = std::stoll(f[2]),
                                             .msg_id = f[3],
                                             .broker = f[4],
                                             .queue_id = std::stoi(f[5]),
                                             .offset = std::stoll(f[6]),
                                             .time_us = std::stoll(f[7])});
            });
        } else if (p.extension() == ".shutdown") {
            each_line(p, 3, [&](const auto& f) {
                in.shutdowns.push_back(
                    Shutdown{.member = f[0], .requested_us = std::stoll(f[1]), .done_us = std::stoll(f[2])});
            });
        }
    }
    return in;
}

}  // namespace rmq_chaos
