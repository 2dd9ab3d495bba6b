#pragma once

/// @file detail/broker/dispatcher.hpp
/// The embedded broker's dispatcher thread: runs pull completions and notifications in order, outside the
/// broker's lock, and (with a real clock) wakes the broker for its next deadline.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/error.hpp>

namespace rmq::detail {

/// A callback the broker owes a client (pull completion, notification); never run under the broker's lock.
using BrokerTask = std::function<void()>;
using BrokerTasks = std::vector<BrokerTask>;

/// Its state is guarded by the broker's one mutex, passed in: members named `*_locked` need it held, the
/// others take it themselves.
// Copies deleted, nothing to destroy by hand: no special member is missing.
// NOLINTNEXTLINE(cppcoreguidelines-special-member-functions)
class Dispatcher {
public:
    /// The broker's time-driven work, run by the dispatcher thread under the lock (real clocks only).
    struct Timers {
        std::function<void(BrokerTasks&)> tick_locked;
        std::function<std::optional<std::int64_t>()> next_deadline_locked;
        /// Clock steady time.
        std::function<std::int64_t()> now;
    };

    explicit Dispatcher(std::mutex& mutex) noexcept
        : mutex_(mutex) {}

    Dispatcher(const Dispatcher&) = delete;
    Dispatcher& operator=(const Dispatcher&) = delete;

    /// From now on dispatch() queues tasks for the thread (before, it runs them in the caller).
    void mark_started_locked() noexcept { started_ = true; }

    /// Starts the thread. With a manual clock it only runs tasks: the clock's listener drives time.
    void start(bool manual_clock, Timers timers);

    /// Driven mode (rmq::sim, manual clocks): no thread; tasks queue until run_one() runs them on the
    /// driver's thread. Instead of start().
    void start_driven() noexcept { driven_ = true; }

    /// Driven mode: runs the oldest queued task (outside the lock); false when none.
    bool run_one();

    [[nodiscard]] bool stopping_locked() const noexcept { return stopping_; }

    [[nodiscard]] bool driven_locked() const noexcept { return driven_; }

    /// Asks the thread to stop once the queued tasks ran; false when a stop was already asked for.
    bool request_stop_locked();

    /// Waits for the thread to end (without the lock); driven: runs what is queued.
    void join();

    /// After join(): dispatch() runs tasks in the caller from now on; wakes drain().
    void mark_stopped_locked();

    /// The next deadline moved (a pull was held): the thread recomputes its wait.
    void wake_locked() { cv_.notify_all(); }

    /// Hands tasks to the thread; once it has stopped they run here (never under the lock).
    void dispatch(BrokerTasks tasks);

    /// Waits until every task queued so far has run (driven: runs them). Throws rmq::IllegalState on the
    /// dispatcher thread.
    void drain();

    /// Runs one task; a throwing user callback must not kill the broker.
    static void run_task(BrokerTask& task) noexcept;

private:
    void run();
    /// Runs the queued batch without the lock; `lock` is held on entry and on return.
    void run_batch(std::unique_lock<std::mutex>& lock);
    /// Ticks the broker and waits for its next deadline (real clocks).
    void tick_or_wait(std::unique_lock<std::mutex>& lock);

    std::mutex& mutex_;
    std::condition_variable cv_;
    std::condition_variable idle_cv_;
    std::deque<BrokerTask> tasks_;
    Timers timers_;
    bool running_task_ = false;
    bool stopping_ = false;
    bool stopped_ = false;
    bool started_ = false;
    bool manual_ = false;
    bool driven_ = false;
    std::thread thread_;
    std::thread::id thread_id_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/dispatcher.ipp>
#endif
