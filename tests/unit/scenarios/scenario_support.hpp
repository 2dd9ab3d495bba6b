#pragma once

// Helpers of the scenario tests (whole consumer stories on the embedded broker): fast configurations, a
// thread-safe recorder with condition-variable waits, polling for broker-side state, a temporary directory.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/offset_store/local_file.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/transport/in_process.hpp>

namespace scenario {

/// Every interval shortened so rebalances, lock renewals and offset persistence happen within milliseconds.
inline rmq::ConsumerConfig fast_config(std::string group) {
    rmq::ConsumerConfig c;
    c.consumer_group = std::move(group);
    c.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    c.consume_thread_min = 4;
    c.consume_thread_max = 4;
    c.rebalance_interval = 100;
    c.lock_renewal_interval = 100;
    c.persist_consumer_offset_interval = 100;
    c.heartbeat_broker_interval = 200;
    c.broker_suspend_max_time_millis = 200;
    c.consumer_timeout_millis_when_suspend = 3000;
    c.pull_time_delay_mills_when_exception = 50;
    c.pull_time_delay_mills_when_suspend = 50;
    c.suspend_current_queue_time_millis = 10;
    c.await_termination_millis_when_shutdown = 30000;
    return c;
}

/// Shared state between listener threads and the test thread: every access under one mutex, waits on a
/// condition variable with a generous timeout (a timeout is a failure, never a measurement).
class Recorder {
public:
    template <class F>
    void update(F&& fn) {
        {
            const std::lock_guard lock(mutex_);
            fn();
        }
        cv_.notify_all();
    }

    template <class P>
    bool wait(P&& pred, std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, timeout, std::forward<P>(pred));
    }

    template <class F>
    auto read(F&& fn) {
        const std::lock_guard lock(mutex_);
        return fn();
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
};

/// Polls `pred` every 5 ms for up to `timeout` (for state that lives in the broker or the consumer).
template <class P>
bool eventually(P&& pred, std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (pred()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return pred();
}

/// A fresh directory under the system temp dir, removed with everything in it on destruction. Local offset
/// stores of the tests live here, never under $HOME.
class TempDir {
public:
    explicit TempDir(std::string_view stem) {
        std::random_device rd;
        path_ = std::filesystem::temp_directory_path() / fmt::format("rmq-{}-{:x}", stem, rd());
        std::filesystem::create_directories(path_);
    }

    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }

    [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace scenario
