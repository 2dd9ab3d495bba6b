#pragma once

/// @file detail/consumer/scheduler.hpp
/// rmq::detail::Scheduler: the one event-loop thread of a client. Pull loops, rebalance, lock renewal, offset
/// persistence and transport completions all run here, one at a time, in deadline order.
///
/// A plain timer queue (std::thread + condition variable) rather than Boost.Asio's io_context: the loop needs
/// nothing but "run this at time t", and g++ 12 rejects Asio's atomic_thread_fence under -fsanitize=thread
/// (-Wtsan with -Werror), which would keep the consumer out of the TSan build.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include <rmq/clock.hpp>

#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

/// A single-threaded timer loop. Work posted after stop() is discarded (destroyed unrun), which is what late
/// completions need: nothing runs once the owner began shutting down.
///
/// Driven mode (rmq::sim): drive_with(clock) before start() gives the loop no thread. Deadlines are then
/// read from that clock (virtual time) and whoever drives it runs due work with run_one_ready(), asking
/// next_deadline_millis() when nothing is due. Without it, deadlines stay on std::chrono::steady_clock: one
/// clock read per post, as before.
class Scheduler {
public:
    using TimePoint = std::chrono::steady_clock::time_point;

    Scheduler() = default;
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    ~Scheduler() { stop(); }

    /// Driven mode: no thread; deadlines in `clock`'s steady time. Call before start().
    void drive_with(std::shared_ptr<Clock> clock) {
        const std::lock_guard lock(mutex_);
        driven_clock_ = std::move(clock);
    }

    /// Whether drive_with() was called.
    [[nodiscard]] bool driven() const {
        const std::lock_guard lock(mutex_);
        return driven_clock_ != nullptr;
    }

    /// Driven mode: runs the first task whose deadline has come (on the caller's thread, which counts as the
    /// loop meanwhile); false when none is due or the loop was stopped.
    bool run_one_ready() {
        std::function<void()> task;
        {
            const std::lock_guard lock(mutex_);
            if (stopped_ || queue_.empty() || !driven_clock_) {
                return false;
            }
            const auto first = queue_.begin();
            if (first->first.first > virtual_now_locked()) {
                return false;
            }
            task = std::move(first->second);
            queue_.erase(first);
        }
        const auto previous = loop_thread_id_.exchange(std::this_thread::get_id());
        run_task(task);
        loop_thread_id_.store(previous);
        return true;
    }

    /// Driven mode: the clock's steady time of the earliest pending task; nullopt when none (or stopped).
    [[nodiscard]] std::optional<std::int64_t> next_deadline_millis() const {
        const std::lock_guard lock(mutex_);
        if (stopped_ || queue_.empty()) {
            return std::nullopt;
        }
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   queue_.begin()->first.first.time_since_epoch())
            .count();
    }

    /// Starts the loop thread (none in driven mode).
    void start() {
        const std::lock_guard lock(mutex_);
        if (thread_.joinable() || stopped_ || driven_clock_) {
            return;
        }
        thread_ = std::thread([this] { run(); });
    }

    /// Stops the loop, joins its thread (not from the loop thread itself) and discards pending work.
    void stop() {
        std::thread to_join;
        std::multimap<std::pair<TimePoint, std::uint64_t>, std::function<void()>> discarded;
        {
            const std::lock_guard lock(mutex_);
            stopped_ = true;
            if (thread_.joinable() && std::this_thread::get_id() != thread_.get_id()) {
                to_join = std::move(thread_);
            }
        }
        cv_.notify_all();
        if (to_join.joinable()) {
            to_join.join();
        }
        {
            const std::lock_guard lock(mutex_);
            discarded.swap(queue_);
        }
        // `discarded` dies here, outside the lock: destroying a task may post (and be refused).
    }

    /// Whether stop() was called.
    [[nodiscard]] bool stopped() const {
        const std::lock_guard lock(mutex_);
        return stopped_;
    }

    /// Whether the caller runs on the loop thread.
    [[nodiscard]] bool in_loop() const noexcept {
        return std::this_thread::get_id() == loop_thread_id_.load();
    }

    /// Runs `fn` on the loop thread as soon as possible (after the work already due).
    void post(std::function<void()> fn) { post_after(0, std::move(fn)); }

    /// Runs `fn` on the loop thread after `delay_millis` (<= 0: as soon as possible).
    void post_after(std::int64_t delay_millis, std::function<void()> fn) {
        const auto delay = std::chrono::milliseconds(delay_millis > 0 ? delay_millis : 0);
        {
            const std::lock_guard lock(mutex_);
            if (stopped_) {
                return;
            }
            const TimePoint when =
                (driven_clock_ ? virtual_now_locked() : std::chrono::steady_clock::now()) + delay;
            queue_.emplace(std::make_pair(when, ++sequence_), std::move(fn));
        }
        cv_.notify_one();
    }

    /// Runs `fn` every `period_millis`, first after `initial_delay_millis`, until stop(). An exception from
    /// `fn` is logged and does not cancel the schedule.
    void every(std::int64_t initial_delay_millis, std::int64_t period_millis, std::function<void()> fn) {
        auto shared = std::make_shared<std::function<void()>>(std::move(fn));
        schedule_periodic(initial_delay_millis, period_millis, shared);
    }

private:
    void schedule_periodic(std::int64_t delay,
                           std::int64_t period,
                           const std::shared_ptr<std::function<void()>>& fn) {
        post_after(delay, [this, period, fn] {
            (*fn)();
            schedule_periodic(period, period, fn);
        });
    }

    void run() {
        loop_thread_id_.store(std::this_thread::get_id());
        std::unique_lock lock(mutex_);
        while (!stopped_) {
            if (queue_.empty()) {
                cv_.wait(lock);
                continue;
            }
            const auto first = queue_.begin();
            if (first->first.first > std::chrono::steady_clock::now()) {
                cv_.wait_until(lock, first->first.first);
                continue;
            }
            std::function<void()> task = std::move(first->second);
            queue_.erase(first);
            lock.unlock();
            run_task(task);
            lock.lock();
        }
    }

    // The driven clock's steady time as a TimePoint (its epoch standing in for steady_clock's).
    [[nodiscard]] TimePoint virtual_now_locked() const {
        return TimePoint(std::chrono::milliseconds(driven_clock_->steady_millis()));
    }

    static void run_task(std::function<void()>& task) {
        try {
            task();
        } catch (const std::exception& e) {
            log_line(LogLevel::Error, "scheduled task failed: {}", e.what());
        } catch (...) {
            log_message(LogLevel::Error, "scheduled task failed with an unknown exception");
        }
        task = nullptr;
    }

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    // Keyed by (deadline, sequence) so that equal deadlines run in posting order.
    std::multimap<std::pair<TimePoint, std::uint64_t>, std::function<void()>> queue_;
    std::uint64_t sequence_ = 0;
    bool stopped_ = false;
    std::thread thread_;
    std::atomic<std::thread::id> loop_thread_id_{};
    std::shared_ptr<Clock> driven_clock_;  // set: driven mode
};

}  // namespace rmq::detail
