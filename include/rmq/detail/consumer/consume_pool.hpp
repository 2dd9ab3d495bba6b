#pragma once

/// @file detail/consumer/consume_pool.hpp
/// rmq::detail::ConsumePool: the worker threads that run listener code, fed by a bounded queue. When the
/// queue is full try_submit() says so and the caller backs off (the puller pauses) instead of growing memory.
///
/// Why not a mutex, a deque and one notify per task (Java's ThreadPoolExecutor): with a cheap listener most
/// of the time went into futex wake-ups and context switches (one per message with batch size 1, about half
/// of all CPU samples). Here the submitter hands tasks over through a Boost.Lockfree ring without taking any
/// lock a worker holds, and wakes a sleeping worker only when no worker is already looking for work. A woken
/// worker that finds more work queued wakes the next one (the "spinning thread" rule of Go's scheduler), so a
/// burst of slow tasks still spreads over every thread, while a stream of cheap tasks is run by the few
/// workers that are already awake.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <boost/lockfree/spsc_queue.hpp>
#include <fmt/format.h>

#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

/// A fixed set of worker threads over a bounded FIFO of tasks. Tasks must not throw (an escaping exception is
/// logged and swallowed so a worker never dies). Every member is thread-safe.
class ConsumePool {
public:
    /// How many times a worker that ran out of work polls the queue (yielding in between) before it sleeps.
    static constexpr int spin_rounds = 64;

    /// `threads` workers (at least 1), at most `capacity` queued tasks (at least 1).
    ConsumePool(std::size_t threads, std::size_t capacity)
        : threads_wanted_(threads == 0 ? 1 : threads)
        , capacity_(capacity == 0 ? 1 : capacity)
        , ring_(capacity_)
        , done_(capacity_) {}

    ConsumePool(const ConsumePool&) = delete;
    ConsumePool& operator=(const ConsumePool&) = delete;

    ~ConsumePool() {
        close();
        join();
        const std::lock_guard lock(producer_mutex_);
        free_done_locked();  // what workers finished after close()
    }

    /// Driven mode (rmq::sim): start() starts no worker; whoever drives the consumer runs the queued tasks
    /// with run_one(), on its own thread. Call before start().
    void set_driven() noexcept { driven_ = true; }

    /// Whether set_driven() was called.
    [[nodiscard]] bool driven() const noexcept { return driven_; }

    /// Driven mode: runs the oldest queued task on the caller's thread (a worker meanwhile); false when none.
    bool run_one() {
        Task* task = pop();
        if (task == nullptr) {
            return false;
        }
        const ConsumePool* previous = std::exchange(current_pool(), this);
        run_task(*task);
        current_pool() = previous;
        delete task;
        finished(1);
        return true;
    }

    /// Starts the workers (none in driven mode).
    void start() {
        const std::lock_guard lock(workers_mutex_);
        if (driven_ || !workers_.empty() || closed_.load()) {
            return;
        }
        workers_.reserve(threads_wanted_);
        for (std::size_t i = 0; i < threads_wanted_; ++i) {
            workers_.emplace_back([this] { run(); });
        }
    }

    /// Queues a task; false when the queue is full or the pool is closed. `task` is moved from only when it
    /// was queued, so a refused task can be submitted again later.
    [[nodiscard]] bool try_submit(std::function<void()>&& task) {
        {
            // The ring has one producer side; this lock only serialises submitters (normally the consumer's
            // one loop thread, so it is never contended) and is never taken by a worker.
            const std::lock_guard lock(producer_mutex_);
            if (closed_.load() || pending_.load() >= capacity_) {
                return false;
            }
            free_done_locked();
            auto node = std::make_unique<Task>(Task{std::move(task)});
            // Counted before the push so that a worker never finishes a task it has not seen counted.
            outstanding_.fetch_add(1);
            pending_.fetch_add(1);
            if (!ring_.push(node.get())) {
                pending_.fetch_sub(1);
                outstanding_.fetch_sub(1);
                task = std::move(node->fn);
                return false;
            }
            (void)node.release();
        }
        if (spinning_.load() == 0) {
            wake_one();
        }
        return true;
    }

    /// Whether a try_submit would fail for lack of room.
    [[nodiscard]] bool full() const noexcept { return pending_.load() >= capacity_; }

    /// Queued (not yet started) tasks.
    [[nodiscard]] std::size_t queued() const noexcept { return pending_.load(); }

    /// Whether the calling thread is one of this pool's workers.
    [[nodiscard]] bool on_worker() const noexcept { return current_pool() == this; }

    /// Refuses new tasks and discards the queued ones (their messages stay cached, uncommitted: they are
    /// redelivered later, never reported as failures). Returns how many were discarded.
    std::size_t close() {
        {
            const std::lock_guard lock(producer_mutex_);
            closed_.store(true);
        }
        std::size_t dropped = 0;
        {
            const std::lock_guard lock(consumer_mutex_);
            Task* task = nullptr;
            while (ring_.pop(task)) {
                delete task;
                ++dropped;
            }
            pending_.fetch_sub(dropped);
        }
        {
            const std::lock_guard lock(producer_mutex_);
            free_done_locked();
        }
        if (dropped > 0) {
            finished(dropped);
        }
        {
            const std::lock_guard lock(park_mutex_);
            park_cv_.notify_all();
        }
        return dropped;
    }

    /// Waits until no task is queued or running, up to `timeout_millis`; true when idle.
    bool wait_idle(std::int64_t timeout_millis) {
        std::unique_lock lock(idle_mutex_);
        idle_waiters_.fetch_add(1);
        const bool idle =
            idle_cv_.wait_for(lock,
                              std::chrono::milliseconds(timeout_millis < 0 ? 0 : timeout_millis),
                              [this] { return outstanding_.load() == 0; });
        idle_waiters_.fetch_sub(1);
        return idle;
    }

    /// Joins the workers (after close(): each finishes the task it runs). Never call from a worker.
    void join() {
        std::vector<std::thread> workers;
        {
            const std::lock_guard lock(workers_mutex_);
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
    struct Task {
        std::function<void()> fn;
    };

    static const ConsumePool*& current_pool() noexcept {
        thread_local const ConsumePool* pool = nullptr;
        return pool;
    }

    // The consumer side of the single-producer ring is shared by the workers, one at a time. `done` (may be
    // null) is the task the caller finished: it goes back to the submitting side to be freed there.
    Task* pop(Task* done = nullptr) {
        Task* task = nullptr;
        const std::lock_guard lock(consumer_mutex_);
        if (done != nullptr && !done_.push(done)) {
            delete done;  // the submitters have not collected for a while: free it here
        }
        if (ring_.pop(task)) {
            pending_.fetch_sub(1);
            return task;
        }
        return nullptr;
    }

    // Hands one parked worker a wake-up permit; it counts as spinning from now on so that submitters do not
    // wake a second one for the same work.
    void wake_one() {
        if (sleepers_.load() == 0) {
            return;
        }
        const std::lock_guard lock(park_mutex_);
        if (sleepers_.load() <= permits_) {
            return;  // every parked worker is already on its way
        }
        ++permits_;
        spinning_.fetch_add(1);
        park_cv_.notify_one();
    }

    // Sleeps until woken; true when woken by a permit (the caller is then counted in spinning_). Returns
    // false at once when work arrived between the last poll and now, and on close.
    bool park() {
        std::unique_lock lock(park_mutex_);
        // Registered before looking at pending_: a submitter that pushes after this load sees the sleeper.
        sleepers_.fetch_add(1);
        if (pending_.load() > 0 || closed_.load()) {
            sleepers_.fetch_sub(1);
            return false;
        }
        park_cv_.wait(lock, [this] { return permits_ > 0 || closed_.load(); });
        sleepers_.fetch_sub(1);
        if (permits_ > 0) {
            --permits_;
            return true;
        }
        return false;
    }

    void finished(std::size_t count) {
        if (outstanding_.fetch_sub(count) == count && idle_waiters_.load() > 0) {
            const std::lock_guard lock(idle_mutex_);
            idle_cv_.notify_all();
        }
    }

    // Frees the tasks workers are done with; caller holds producer_mutex_ (the done ring's consumer side).
    void free_done_locked() {
        Task* done = nullptr;
        while (done_.pop(done)) {
            delete done;
        }
    }

    static void run_task(Task& task) {
        try {
            task.fn();
        } catch (const std::exception& e) {
            log_line(LogLevel::Error, "consume task failed: {}", e.what());
        } catch (...) {
            log_message(LogLevel::Error, "consume task failed with an unknown exception");
        }
    }

    void run() {
        current_pool() = this;
        bool spinning = false;
        Task* done = nullptr;
        while (true) {
            Task* task = pop(std::exchange(done, nullptr));
            if (task == nullptr && !closed_.load()) {
                // At most one worker polls on its own initiative; a woken one polls as well.
                if (!spinning && spinning_.load() == 0) {
                    spinning_.fetch_add(1);
                    spinning = true;
                }
                for (int i = 0; spinning && task == nullptr && i < spin_rounds; ++i) {
                    std::this_thread::yield();
                    task = pop();
                }
            }
            if (spinning) {
                spinning = false;
                // The last poller that found work wakes a replacement while work remains (a burst of slow
                // tasks then spreads over the sleeping workers one by one).
                if (spinning_.fetch_sub(1) == 1 && task != nullptr && pending_.load() > 0) {
                    wake_one();
                }
            }
            if (task == nullptr) {
                if (closed_.load() && pending_.load() == 0) {
                    return;
                }
                spinning = park();
                continue;
            }
            run_task(*task);
            // Freed by the next submit, on the thread that allocated it and its closure (see done_).
            done = task;
            finished(1);
        }
    }

    std::size_t threads_wanted_;
    std::size_t capacity_;
    bool driven_ = false;
    boost::lockfree::spsc_queue<Task*> ring_;  // push under producer_mutex_, pop under consumer_mutex_
    // Finished tasks on their way back to the submitting side, which frees them: a task and its closure
    // are allocated by the submitter (the consumer's loop), and freeing them on a worker took the loop's
    // allocator arena lock while the loop was allocating (a quarter of all context switches at batch 32).
    boost::lockfree::spsc_queue<Task*> done_;  // push under consumer_mutex_, pop under producer_mutex_
    std::mutex producer_mutex_;
    std::mutex consumer_mutex_;
    std::atomic<std::size_t> pending_{0};      // pushed, not yet popped
    std::atomic<std::size_t> outstanding_{0};  // pushed, not yet finished (queued or running)
    std::atomic<bool> closed_{false};

    std::mutex park_mutex_;
    std::condition_variable park_cv_;
    std::atomic<int> sleepers_{0};  // parked workers (changed under park_mutex_)
    std::atomic<int> spinning_{0};  // workers polling for work, woken ones included
    int permits_ = 0;               // guarded by park_mutex_: wake-ups not yet consumed

    std::mutex idle_mutex_;
    std::condition_variable idle_cv_;
    std::atomic<int> idle_waiters_{0};

    std::mutex workers_mutex_;
    std::vector<std::thread> workers_;
};

}  // namespace rmq::detail
