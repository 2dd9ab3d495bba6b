#pragma once

// Access to the Apache RocketMQ cluster started by tools/broker-test.sh (tools/rocketmq.sh): the NameServer
// address from RMQ_NAMESRV, topic creation and broker restarts through the script.

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include <rmq/transport/remoting.hpp>

namespace rmq_rc {

inline std::string env(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') {
        throw std::runtime_error(
            fmt::format("{} is not set: run the real-cluster tests with tools/broker-test.sh", name));
    }
    return v;
}

inline std::string namesrv() {
    return env("RMQ_NAMESRV");
}

/// Runs `tools/rocketmq.sh ARGS --dir $RMQ_CLUSTER_DIR`; throws when it fails.
inline void rocketmq_sh(const std::string& args) {
    const std::string cmd =
        fmt::format("'{}' {} --dir '{}' >&2", env("RMQ_ROCKETMQ_SH"), args, env("RMQ_CLUSTER_DIR"));
    if (std::system(cmd.c_str()) != 0) {
        throw std::runtime_error("failed: " + cmd);
    }
}

/// Runs the shell command `cmd`: its exit status (pclose's; -1 when it could not start) and standard output.
inline std::pair<int, std::string> run_command(const std::string& cmd) {
    FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) {
        return {-1, std::string()};
    }
    std::string out;
    std::array<char, 65536> buf{};
    for (std::size_t n = 0; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) {
        out.append(buf.data(), n);
    }
    return {::pclose(p), std::move(out)};
}

/// Runs `tools/rocketmq.sh mqadmin ARGS` on the cluster (-n is added; an --acl cluster signs as its super
/// user); throws unless it printed "success" (mqadmin exits 0 after a failed command too).
inline void mqadmin(const std::string& args) {
    const std::string cmd = fmt::format(
        "RMQ_CLUSTER_DIR='{}' '{}' mqadmin {} 2>&1", env("RMQ_CLUSTER_DIR"), env("RMQ_ROCKETMQ_SH"), args);
    const auto [status, out] = run_command(cmd);
    if (status != 0 || out.find("success") == std::string::npos) {
        throw std::runtime_error(fmt::format("failed: {}\n{}", cmd, out));
    }
}

/// `tools/rocketmq.sh mqadmin ARGS` run in the cluster's folder `mqadmin` (consumerStatus writes a file per
/// client in its working directory): its standard output, standard error too with `with_stderr`.
inline std::string mqadmin_output(const std::string& args, bool with_stderr = false) {
    const auto dir = std::filesystem::path(env("RMQ_CLUSTER_DIR")) / "mqadmin";
    std::filesystem::create_directories(dir);
    return run_command(fmt::format("cd '{}' && '{}' mqadmin {}{}",
                                   dir.string(),
                                   env("RMQ_ROCKETMQ_SH"),
                                   args,
                                   with_stderr ? " 2>&1" : ""))
        .second;
}

/// Creates `topic` with `queues` read/write queues on every broker.
inline void create_topic(const std::string& topic, int queues = 4) {
    rocketmq_sh(fmt::format("create-topic {} {}", topic, queues));
}

/// A name unique to this run (topics and groups must not collide with earlier runs on the same cluster).
inline std::string unique(const std::string& prefix) {
    static const auto run = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count() %
                            100000000;
    static int n = 0;
    return fmt::format("{}_{}_{}", prefix, run, ++n);
}

/// The cluster's TLS mode (tools/rocketmq.sh start --tls): "enforcing", "permissive", or "" (plain TCP).
inline std::string tls_mode() {
    const char* v = std::getenv("RMQ_TLS_MODE");
    return v != nullptr ? v : "";
}

/// The cluster runs Apache RocketMQ 4.x (RMQ_VERSION, exported by tools/broker-test.sh; unset means 5.3.3).
inline bool rocketmq_4x() {
    const char* v = std::getenv("RMQ_VERSION");
    return v != nullptr && std::string_view(v).starts_with("4.");
}

/// Whether the cluster enforces authentication and authorization (tools/rocketmq.sh start --acl).
inline bool acl() {
    const char* v = std::getenv("RMQ_ACL");
    return v != nullptr && std::string(v) == "1";
}

/// A transport configuration for the cluster: over TLS (verified against the cluster's CA) when it runs TLS,
/// so every test then produces and consumes over TLS; signed as the cluster's super user when it enforces
/// ACL, so every test then runs with signed requests.
inline rmq::RemotingConfig config() {
    rmq::RemotingConfig c;
    c.namesrv_addr = namesrv();
    if (!tls_mode().empty()) {
        c.tls.enable = true;
        c.tls.client_trust_cert_path = env("RMQ_TLS_CA");
    }
    if (acl()) {
        c.credentials = rmq::AclCredentials{.access_key = env("RMQ_ACL_ADMIN_AK"),
                                            .secret_key = env("RMQ_ACL_ADMIN_SK"),
                                            .security_token = {}};
    }
    return c;
}

/// Waits (generously) until `done()` holds, re-checking when notified. Listeners change what `done()` reads
/// and then call notify(), which takes the waiter's mutex: the waiter holds it from checking `done()` until
/// it blocks, so a change made in between cannot be missed (notifying without the mutex could be).
struct Waiter {
    std::mutex mutex;
    std::condition_variable cv;

    bool wait(const std::function<bool()>& done, std::chrono::seconds timeout) {
        std::unique_lock lock(mutex);
        return cv.wait_for(lock, timeout, done);
    }

    void notify() {
        { const std::lock_guard lock(mutex); }
        cv.notify_all();
    }
};

/// Polls `done` every 50 ms until it holds (true) or `timeout` passes (false).
inline bool wait_until(const std::function<bool()>& done, std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
}

}  // namespace rmq_rc
