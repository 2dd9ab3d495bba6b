#pragma once

#include <algorithm>
#include <chrono>
#include <utility>

#include <rmq/error.hpp>

#include <rmq/detail/broker/dispatcher.hpp>

namespace rmq::detail {

RMQ_DECL void Dispatcher::start(bool manual_clock, Timers timers) {
    manual_ = manual_clock;
    timers_ = std::move(timers);
    thread_ = std::thread([this] { run(); });
    thread_id_ = thread_.get_id();
}

RMQ_DECL bool Dispatcher::request_stop_locked() {
    if (stopping_) {
        return false;
    }
    stopping_ = true;
    cv_.notify_all();
    return true;
}

RMQ_DECL bool Dispatcher::run_one() {
    BrokerTask task;
    {
        const std::lock_guard lock(mutex_);
        if (tasks_.empty()) {
            return false;
        }
        task = std::move(tasks_.front());
        tasks_.pop_front();
    }
    run_task(task);
    return true;
}

RMQ_DECL void Dispatcher::join() {
    if (driven_) {
        while (run_one()) {
        }
        return;
    }
    if (thread_.joinable()) {
        thread_.join();
    }
}

RMQ_DECL void Dispatcher::mark_stopped_locked() {
    stopped_ = true;  // the thread set it already if it ran
    idle_cv_.notify_all();
}

RMQ_DECL void Dispatcher::dispatch(BrokerTasks tasks) {
    if (tasks.empty()) {
        return;
    }
    {
        const std::lock_guard lock(mutex_);
        if (!stopped_ && started_) {
            for (auto& t : tasks) {
                tasks_.push_back(std::move(t));
            }
            cv_.notify_all();
            return;
        }
    }
    for (auto& t : tasks) {
        run_task(t);
    }
}

RMQ_DECL void Dispatcher::drain() {
    if (std::this_thread::get_id() == thread_id_) {
        throw IllegalState("InProcessBroker::drain called from a broker callback");
    }
    if (driven_) {
        while (run_one()) {
        }
        return;
    }
    std::unique_lock lock(mutex_);
    idle_cv_.wait(lock, [this] { return stopped_ || (tasks_.empty() && !running_task_); });
}

RMQ_DECL void Dispatcher::run_task(BrokerTask& task) noexcept {
    try {
        task();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a throwing user callback must not kill the broker
    }
}

RMQ_DECL void Dispatcher::run() {
    std::unique_lock lock(mutex_);
    while (true) {
        if (!tasks_.empty()) {
            run_batch(lock);
            continue;
        }
        if (stopping_) {
            stopped_ = true;  // from here on dispatch() runs callbacks itself
            idle_cv_.notify_all();
            break;
        }
        if (manual_) {
            cv_.wait(lock);
            continue;
        }
        tick_or_wait(lock);
    }
}

RMQ_DECL void Dispatcher::run_batch(std::unique_lock<std::mutex>& lock) {
    std::deque<BrokerTask> batch;
    batch.swap(tasks_);
    running_task_ = true;
    lock.unlock();
    for (auto& t : batch) {
        run_task(t);
    }
    batch.clear();
    lock.lock();
    running_task_ = false;
    if (tasks_.empty()) {
        idle_cv_.notify_all();
    }
}

RMQ_DECL void Dispatcher::tick_or_wait(std::unique_lock<std::mutex>& lock) {
    BrokerTasks out;
    timers_.tick_locked(out);
    if (!out.empty()) {
        for (auto& t : out) {
            tasks_.push_back(std::move(t));
        }
        return;
    }
    if (const auto next = timers_.next_deadline_locked()) {
        const std::int64_t wait = std::max<std::int64_t>(*next - timers_.now(), 1);
        cv_.wait_for(lock, std::chrono::milliseconds(wait));
    } else {
        cv_.wait(lock);
    }
}

}  // namespace rmq::detail
