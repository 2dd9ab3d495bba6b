#pragma once

/// @file impl/clock.ipp
/// Definitions of clock.hpp.

#include <time.h>  // NOLINT(modernize-deprecated-headers): clock_gettime is POSIX, not in <ctime>

#include <rmq/clock.hpp>

namespace rmq {

RMQ_DECL std::int64_t SystemClock::steady_millis() const {
    return std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

RMQ_DECL std::int64_t SystemClock::wall_millis() const {
    return std::chrono::duration_cast<Millis>(std::chrono::system_clock::now().time_since_epoch()).count();
}

RMQ_DECL std::int64_t SystemClock::coarse_steady_millis() const {
#if defined(__linux__) && defined(CLOCK_MONOTONIC_COARSE)
    // libstdc++'s and libc++'s steady_clock read CLOCK_MONOTONIC: the same epoch.
    timespec ts{};
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0) {
        return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
    }
#endif
    return steady_millis();
}

RMQ_DECL void ManualClock::advance(Millis by) {
    std::vector<std::function<void()>> to_call;
    {
        const std::lock_guard lock(mutex_);
        steady_ += by.count();
        for (const auto& entry : listeners_) {
            to_call.push_back(entry.second);
        }
    }
    for (const auto& f : to_call) {
        f();
    }
}

RMQ_DECL std::uint64_t ManualClock::add_listener(std::function<void()> on_advance) {
    const std::lock_guard lock(mutex_);
    listeners_.emplace_back(++next_id_, std::move(on_advance));
    return next_id_;
}

RMQ_DECL void ManualClock::remove_listener(std::uint64_t id) {
    const std::lock_guard lock(mutex_);
    std::erase_if(listeners_, [id](const auto& e) { return e.first == id; });
}

RMQ_DECL std::shared_ptr<Clock> system_clock() {
    static const auto clock = std::make_shared<SystemClock>();
    return clock;
}

}  // namespace rmq
