#pragma once

// Helpers of the scenario tests (whole consumer stories on the embedded broker): the shared consumer fixture
// with this area's timeouts, and a temporary directory.

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

#include <consumer_fixture.hpp>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/offset_store/local_file.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/transport/in_process.hpp>

namespace scenario {

/// Scenario stories wait up to two minutes and give shutdown the library's default thirty seconds to drain.
inline rmq::ConsumerConfig fast_config(std::string group) {
    return consumer_fixture::fast_config(std::move(group), 30000);
}

using Recorder = consumer_fixture::BasicRecorder<120>;

template <class P>
bool eventually(P&& pred, std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
    return consumer_fixture::eventually(std::forward<P>(pred), timeout);
}

template <class C>
bool pull_loops_ran(C& consumer, const std::string& topic, int rounds) {
    return consumer_fixture::pull_loops_ran(consumer, topic, rounds, std::chrono::seconds(120));
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
