#pragma once

/// @file detail/producer/async_sender.hpp
/// The threads of rmq::Producer's asynchronous and oneway sends (Java's asyncSenderExecutor) and the bound on
/// sends in flight (backPressureForAsyncSendNum).

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>

namespace rmq::detail {

/// A fixed pool of threads, started on the first task, running tasks in order of submission, and a count of
/// sends in flight. Thread-safe.
class AsyncSender {
public:
    /// `threads` >= 1, `max_in_flight` >= 1.
    AsyncSender(std::size_t threads, std::size_t max_in_flight)
        : thread_count_(threads)
        , max_in_flight_(max_in_flight) {}

    AsyncSender(const AsyncSender&) = delete;
    AsyncSender& operator=(const AsyncSender&) = delete;

    ~AsyncSender() { stop(); }

    /// Takes an in-flight slot, waiting up to `timeout_ms` for one. On one of this pool's threads (a
    /// callback sending again) it never waits: the slots it would wait for may be held by tasks queued
    /// behind that very thread. Throws rmq::TooManyRequests when no slot came free, rmq::IllegalState once
    /// stopped.
    void acquire(std::int64_t timeout_ms) {
        std::unique_lock lock(mutex_);
        const auto free = [this] {
            return stopping_ || in_flight_ < max_in_flight_;
        };
        const bool waited = on_worker_thread_locked()
                                ? free()
                                : cv_slots_.wait_for(lock, std::chrono::milliseconds(timeout_ms), free);
        if (stopping_) {
            throw IllegalState("The producer service state not OK, SHUTDOWN_ALREADY");
        }
        if (!waited) {
            throw TooManyRequests(fmt::format(
                "send message timeout due to asyncSendNum semaphore: {} sends in flight", in_flight_));
        }
        ++in_flight_;
    }

    /// Gives a slot back (before the send's callback runs, so a callback may send again).
    void release() {
        {
            const std::lock_guard lock(mutex_);
            --in_flight_;
        }
        cv_slots_.notify_all();  // a sender waiting for a slot, and wait_idle
    }

    /// Waits until every slot taken was given back (the sends still on the wire finished: their answers
    /// need the pool). On a pool thread it returns at once: what it would wait for may be queued behind it.
    void wait_idle() {
        std::unique_lock lock(mutex_);
        if (!on_worker_thread_locked()) {
            cv_slots_.wait(lock, [this] { return in_flight_ == 0; });
        }
    }

    /// Queues `task` (which must not throw) for a pool thread.
    void post(std::function<void()> task) {
        {
            const std::lock_guard lock(mutex_);
            if (stopping_) {
                throw IllegalState("The producer service state not OK, SHUTDOWN_ALREADY");
            }
            if (threads_.empty()) {
                for (std::size_t i = 0; i < thread_count_; ++i) {
                    threads_.emplace_back([this] { run(); });
                }
            }
            tasks_.push_back(std::move(task));
        }
        cv_tasks_.notify_one();
    }

    /// Runs the tasks already queued, then joins the threads (each send ends within its timeout). Called on
    /// a pool thread it only stops new work: a thread cannot join itself; the destructor then joins.
    void stop() {
        {
            const std::lock_guard lock(mutex_);
            stopping_ = true;
            if (on_worker_thread_locked()) {
                cv_tasks_.notify_all();
                cv_slots_.notify_all();
                return;
            }
        }
        cv_tasks_.notify_all();
        cv_slots_.notify_all();
        std::vector<std::thread> threads;
        {
            const std::lock_guard lock(mutex_);
            threads.swap(threads_);
        }
        for (auto& t : threads) {
            if (t.joinable()) {
                t.join();
            }
        }
    }

    /// Sends taken and not yet released.
    [[nodiscard]] std::size_t in_flight() const {
        const std::lock_guard lock(mutex_);
        return in_flight_;
    }

private:
    [[nodiscard]] bool on_worker_thread_locked() const {
        const auto self = std::this_thread::get_id();
        return std::any_of(
            threads_.begin(), threads_.end(), [&](const std::thread& t) { return t.get_id() == self; });
    }

    void run() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock lock(mutex_);
                cv_tasks_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
                if (tasks_.empty()) {
                    return;
                }
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();
        }
    }

    const std::size_t thread_count_;
    const std::size_t max_in_flight_;
    mutable std::mutex mutex_;
    std::condition_variable cv_tasks_;
    std::condition_variable cv_slots_;
    std::deque<std::function<void()>> tasks_;
    std::vector<std::thread> threads_;
    std::size_t in_flight_ = 0;
    bool stopping_ = false;
};

}  // namespace rmq::detail
