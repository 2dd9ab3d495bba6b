#pragma once

/// @file detail/consume_pool.hpp
/// rmq::detail::ConsumePool: the worker threads that run listener code, fed by a bounded queue. When the
/// queue is full try_submit() says so and the caller backs off (the puller pauses) instead of growing memory.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace rmq::detail {

/// A fixed set of worker threads over a bounded FIFO of tasks. Tasks must not throw (an escaping exception is
/// logged and swallowed so a worker never dies).
class ConsumePool {
public:
    /// `threads` workers (at least 1), at most `capacity` queued tasks (at least 1).
    ConsumePool(std::size_t threads, std::size_t capacity)
        : threads_wanted_(threads == 0 ? 1 : threads)
        , capacity_(capacity == 0 ? 1 : capacity) {}

    ConsumePool(const ConsumePool&) = delete;
    ConsumePool& operator=(const ConsumePool&) = delete;

    ~ConsumePool() {
        close();
        join();
    }

    /// Starts the workers.
    void start() {
        const std::lock_guard lock(mutex_);
        if (!workers_.empty() || closed_) {
            return;
        }
        workers_.reserve(threads_wanted_);
        for (std::size_t i = 0; i < threads_wanted_; ++i) {
            workers_.emplace_back([this] { run(); });
        }
    }

    /// Queues a task; false when the queue is full or the pool is closed.
    [[nodiscard]] bool try_submit(std::function<void()> task) {
        {
            const std::lock_guard lock(mutex_);
            if (closed_ || tasks_.size() >= capacity_) {
                return false;
            }
            tasks_.push_back(std::move(task));
        }
        cv_.notify_one();
        return true;
    }

    /// Whether a try_submit would fail for lack of room.
    [[nodiscard]] bool full() const {
        const std::lock_guard lock(mutex_);
        return tasks_.size() >= capacity_;
    }

    /// Queued (not yet started) tasks.
    [[nodiscard]] std::size_t queued() const {
        const std::lock_guard lock(mutex_);
        return tasks_.size();
    }

    /// Whether the calling thread is one of the workers.
    [[nodiscard]] bool on_worker() const {
        const std::lock_guard lock(mutex_);
        for (const auto& w : workers_) {
            if (w.get_id() == std::this_thread::get_id()) {
                return true;
            }
        }
        return false;
    }

    /// Refuses new tasks and discards the queued ones (their messages stay cached, uncommitted: they are
    /// redelivered later, never reported as failures). Returns how many were discarded.
    std::size_t close() {
        std::deque<std::function<void()>> dropped;
        {
            const std::lock_guard lock(mutex_);
            closed_ = true;
            dropped.swap(tasks_);
        }
        cv_.notify_all();
        return dropped.size();
    }

    /// Waits until no task runs, up to `timeout_millis`; true when idle.
    bool wait_idle(std::int64_t timeout_millis) {
        std::unique_lock lock(mutex_);
        return idle_cv_.wait_for(lock,
                                 std::chrono::milliseconds(timeout_millis < 0 ? 0 : timeout_millis),
                                 [this] { return active_ == 0 && tasks_.empty(); });
    }

    /// Joins the workers (after close(): each finishes the task it runs). Never call from a worker.
    void join() {
        std::vector<std::thread> workers;
        {
            const std::lock_guard lock(mutex_);
            workers.swap(workers_);
        }
        for (auto& w : workers) {
            if (w.get_id() == std::this_thread::get_id()) {
                w.detach();  // cannot happen through Consumer (it refuses); keeps a misuse from aborting
            } else if (w.joinable()) {
                w.join();
            }
        }
    }

    /// Number of worker threads.
    [[nodiscard]] std::size_t threads() const noexcept { return threads_wanted_; }

private:
    void run() {
        while (true) {
            std::function<void()> task;
            {
                std::unique_lock lock(mutex_);
                cv_.wait(lock, [this] { return closed_ || !tasks_.empty(); });
                if (tasks_.empty()) {
                    return;  // closed and drained
                }
                task = std::move(tasks_.front());
                tasks_.pop_front();
                ++active_;
            }
            try {
                task();
            } catch (const std::exception& e) {
                fmt::print(stderr, "rmq: consume task failed: {}\n", e.what());
            } catch (...) {
                fmt::print(stderr, "rmq: consume task failed with an unknown exception\n");
            }
            task = nullptr;
            {
                const std::lock_guard lock(mutex_);
                --active_;
            }
            idle_cv_.notify_all();
        }
    }

    std::size_t threads_wanted_;
    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::condition_variable idle_cv_;
    std::deque<std::function<void()>> tasks_;
    std::vector<std::thread> workers_;
    std::size_t active_ = 0;
    bool closed_ = false;
};

}  // namespace rmq::detail
