#pragma once

// Programs the real-cluster tests start and signal themselves (the chaos runs' members and producers).

#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>

#include <fmt/format.h>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace rmq_rc {

/// Starts `args[0]` with `args`, stdout and stderr to the file `out`; returns its pid.
inline pid_t spawn(const std::vector<std::string>& args, const std::string& out) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    std::vector<char*> argv;
    for (const auto& a : args) {
        argv.push_back(const_cast<char*>(a.c_str()));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
    }
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        throw std::runtime_error(fmt::format("cannot start {}", args[0]));
    }
    return pid;
}

}  // namespace rmq_rc
