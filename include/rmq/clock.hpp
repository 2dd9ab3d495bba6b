#pragma once

/// @file clock.hpp
/// The one injectable time source of rmq: the embedded broker and clients read it, tests advance it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <rmq/config.hpp>

namespace rmq {

/// Milliseconds, the unit of every RocketMQ interval.
using Millis = std::chrono::milliseconds;

/// A time source: steady time for timers and expiries, wall time for message timestamps.
class Clock {
public:
    virtual ~Clock() = default;

    /// Monotonic milliseconds (arbitrary epoch).
    [[nodiscard]] virtual std::int64_t steady_millis() const = 0;

    /// Milliseconds since the Unix epoch (Java's System.currentTimeMillis).
    [[nodiscard]] virtual std::int64_t wall_millis() const = 0;

    /// steady_millis() on the same epoch, possibly a few milliseconds behind and cheaper to read: for
    /// statistics buckets and last-activity stamps read once per message, not for measured durations.
    [[nodiscard]] virtual std::int64_t coarse_steady_millis() const { return steady_millis(); }

    /// Registers a callback run after the clock jumps (manual clocks only); the system clock never calls it.
    /// Returns an id for remove_listener.
    // By value: an override keeps the listener (ManualClock moves it in).
    // NOLINTNEXTLINE(performance-unnecessary-value-param)
    virtual std::uint64_t add_listener(std::function<void()> /*on_advance*/) { return 0; }

    virtual void remove_listener(std::uint64_t /*id*/) {}

    /// Whether time only moves when a test advances it.
    [[nodiscard]] virtual bool is_manual() const noexcept { return false; }
};

/// The real clocks.
class SystemClock final : public Clock {
public:
    [[nodiscard]] std::int64_t steady_millis() const override;

    [[nodiscard]] std::int64_t wall_millis() const override;
    /// Linux: CLOCK_MONOTONIC_COARSE (the tick's resolution, a few ns to read instead of a few tens).
    [[nodiscard]] std::int64_t coarse_steady_millis() const override;
};

/// A clock that only moves when told to; listeners (the broker's expiry checks) run after each advance.
class ManualClock final : public Clock {
public:
    /// Starts at the given wall time (default 2023-11-14T22:13:20Z) and steady time 0.
    explicit ManualClock(std::int64_t wall_start_millis = 1'700'000'000'000)
        : wall_start_(wall_start_millis) {}

    [[nodiscard]] std::int64_t steady_millis() const override {
        const std::lock_guard lock(mutex_);
        return steady_;
    }

    [[nodiscard]] std::int64_t wall_millis() const override {
        const std::lock_guard lock(mutex_);
        return wall_start_ + steady_;
    }

    /// Moves time forward and runs every listener (outside the clock's lock).
    void advance(Millis by);

    std::uint64_t add_listener(std::function<void()> on_advance) override;

    void remove_listener(std::uint64_t id) override;

    [[nodiscard]] bool is_manual() const noexcept override { return true; }

private:
    mutable std::mutex mutex_;
    std::int64_t wall_start_;
    std::int64_t steady_ = 0;
    std::uint64_t next_id_ = 0;
    std::vector<std::pair<std::uint64_t, std::function<void()>>> listeners_;
};

/// The process-wide system clock, shared by default.
std::shared_ptr<Clock> system_clock();

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/clock.ipp>
#endif
