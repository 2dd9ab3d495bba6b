#pragma once

/// @file detail/scheduler.hpp
/// rmq::detail::Scheduler: the one event-loop thread of a client (Boost.Asio io_context + steady timers).
/// Pull loops, rebalance, lock renewal, offset persistence and transport completions all run here, one at a
/// time.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>

namespace rmq::detail {

/// A single-threaded timer loop. Work posted after stop() is silently discarded (destroyed unrun), which is
/// what late completions need: nothing runs once the owner began shutting down.
class Scheduler {
public:
    Scheduler() = default;
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    ~Scheduler() { stop(); }

    /// Starts the loop thread.
    void start() {
        const std::lock_guard lock(mutex_);
        if (thread_.joinable() || stopped_.load()) {
            return;
        }
        thread_ = std::thread([this] {
            loop_thread_id_.store(std::this_thread::get_id());
            io_.run();
        });
    }

    /// Stops the loop and joins its thread (a no-op from the loop thread itself, which cannot join itself).
    void stop() {
        std::thread to_join;
        {
            const std::lock_guard lock(mutex_);
            stopped_.store(true);
            work_.reset();
            io_.stop();
            if (thread_.joinable() && std::this_thread::get_id() != thread_.get_id()) {
                to_join = std::move(thread_);
            }
        }
        if (to_join.joinable()) {
            to_join.join();
        }
    }

    /// Whether stop() was called.
    [[nodiscard]] bool stopped() const noexcept { return stopped_.load(); }

    /// Whether the caller runs on the loop thread.
    [[nodiscard]] bool in_loop() const noexcept {
        return std::this_thread::get_id() == loop_thread_id_.load();
    }

    /// Runs `fn` on the loop thread as soon as possible.
    void post(std::function<void()> fn) {
        if (stopped_.load()) {
            return;
        }
        boost::asio::post(io_, std::move(fn));
    }

    /// Runs `fn` on the loop thread after `delay_millis` (<= 0: as soon as possible).
    void post_after(std::int64_t delay_millis, std::function<void()> fn) {
        if (stopped_.load()) {
            return;
        }
        if (delay_millis <= 0) {
            post(std::move(fn));
            return;
        }
        auto timer =
            std::make_shared<boost::asio::steady_timer>(io_, std::chrono::milliseconds(delay_millis));
        timer->async_wait([timer, fn = std::move(fn)](const boost::system::error_code& ec) {
            if (!ec) {
                fn();
            }
        });
    }

    /// Runs `fn` every `period_millis`, first after `initial_delay_millis`, until stop(). An exception from
    /// `fn` does not cancel the schedule (the callee logs its own errors).
    void every(std::int64_t initial_delay_millis, std::int64_t period_millis, std::function<void()> fn) {
        auto shared = std::make_shared<std::function<void()>>(std::move(fn));
        schedule_periodic(initial_delay_millis, period_millis, std::move(shared));
    }

private:
    void
    schedule_periodic(std::int64_t delay, std::int64_t period, std::shared_ptr<std::function<void()>> fn) {
        post_after(delay, [this, period, fn] {
            try {
                (*fn)();
            } catch (const std::exception& e) {
                fmt::print(stderr, "rmq: periodic task failed: {}\n", e.what());
            }
            schedule_periodic(period, period, fn);
        });
    }

    boost::asio::io_context io_;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{io_.get_executor()};
    std::mutex mutex_;
    std::thread thread_;
    std::atomic<bool> stopped_{false};
    std::atomic<std::thread::id> loop_thread_id_{};
};

}  // namespace rmq::detail
