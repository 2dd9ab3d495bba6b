#pragma once

/// @file detail/consumer/call_spreader.hpp
/// rmq::detail::CallSpreader: runs independent listener calls (OrderHost::submit_each: the batches of one
/// pull) on the consume pool in as few tasks as their cost allows.
///
/// Why: Java submits one task per batch, so a pull of 32 messages at consume_message_batch_max_size 1 is 32
/// hand-offs to the pool and as many wake-ups, which cost more than a cheap listener. Here a task is given
/// about `task_budget_ns` of calls, from the measured cost of recent calls: slow calls still get one task
/// each (and run in parallel, as in Java), cheap ones share a task. The tasks of one run claim calls from a
/// shared cursor, and a watchdog on the event loop adds helper tasks to a run whose calls stopped finishing
/// (a listener that blocks, or waits for another message of the same pull), so no call waits behind a
/// stalled one for more than about `watch_period_millis`.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace rmq::detail {

class CallSpreader {
public:
    /// About how long one task runs calls: a hand-off and wake-up cost a few microseconds each.
    static constexpr std::int64_t task_budget_ns = 100'000;
    /// How often runs are checked for stalled calls while any run has calls left to claim.
    static constexpr std::int64_t watch_period_millis = 5;

    using Task = std::function<void()>;
    using Call = std::function<void(std::size_t)>;

    /// Where tasks go. A task that started runs the calls it claims to the end, also once shutdown began
    /// (as a running task did before): skipping some while a later pull's task of the same queue ran would
    /// leave holes below the committed offset, redelivered although consumed.
    struct Hooks {
        std::function<void(Task)> submit;                    // to the consume pool
        std::function<void(std::int64_t, Task)> post_after;  // to the event loop
    };

    explicit CallSpreader(Hooks hooks)
        : hooks_(std::move(hooks)) {}

    /// Runs call(0) ... call(count - 1) on up to `threads` pool threads; `spread`: false runs one task per
    /// call (a driven consumer, whose schedule must not depend on real time).
    void run(std::size_t count, Call call, std::size_t threads, bool spread) {
        if (count == 0) {
            return;
        }
        if (!spread) {
            auto shared = std::make_shared<Call>(std::move(call));
            for (std::size_t i = 0; i < count; ++i) {
                hooks_.submit([shared, i] { (*shared)(i); });
            }
            return;
        }
        const std::size_t per_task = calls_per_task(count);
        const std::size_t tasks = (count + per_task - 1) / per_task;
        auto r = std::make_shared<Run>(std::move(call), count, threads);
        if (tasks < count) {
            watch_over(r);  // with a task per call no call can wait behind another
        }
        for (std::size_t t = 0; t < tasks; ++t) {
            hooks_.submit([this, r] { drain(*r); });
        }
    }

    /// The cost of one call as measured lately (ns); for tests and diagnostics.
    [[nodiscard]] std::int64_t call_cost_ns() const noexcept {
        return cost_ns_.load(std::memory_order_relaxed);
    }

private:
    struct Run {
        Run(Call c, std::size_t n, std::size_t t)
            : call(std::move(c))
            , count(n)
            , threads(t) {}

        Call call;
        std::size_t count;
        std::size_t threads;
        std::atomic<std::size_t> next{0};       // the next call to claim (may pass count)
        std::atomic<std::size_t> finished{0};   // calls returned
        std::size_t finished_at_last_look = 0;  // the watchdog's, on the event loop
    };

    [[nodiscard]] std::size_t calls_per_task(std::size_t count) const noexcept {
        const std::int64_t cost = std::max<std::int64_t>(1, cost_ns_.load(std::memory_order_relaxed));
        return std::clamp<std::size_t>(static_cast<std::size_t>(task_budget_ns / cost), 1, count);
    }

    static std::int64_t now_ns() noexcept {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

    // An exponential average over recent tasks (1/8 weight): a racy read-modify-write is fine for a hint.
    void learn(std::int64_t per_call_ns) noexcept {
        const std::int64_t old = cost_ns_.load(std::memory_order_relaxed);
        cost_ns_.store(old + (per_call_ns - old) / 8, std::memory_order_relaxed);
    }

    void drain(Run& r) {
        const std::int64_t begin = now_ns();
        std::size_t done = 0;
        for (std::size_t i = r.next.fetch_add(1); i < r.count; i = r.next.fetch_add(1)) {
            r.call(i);
            r.finished.fetch_add(1);
            ++done;
        }
        if (done > 0) {
            learn((now_ns() - begin) / static_cast<std::int64_t>(done));
        }
    }

    void watch_over(std::shared_ptr<Run> r) {
        const std::lock_guard lock(mutex_);
        runs_.push_back(std::move(r));
        if (!watching_) {
            watching_ = true;
            hooks_.post_after(watch_period_millis, [this] { watch(); });
        }
    }

    // Event loop: a run with calls left whose claimed calls made no progress since the last look gets
    // helpers, enough for every call left (each claims from the cursor; extra ones find nothing).
    void watch() {
        std::vector<std::shared_ptr<Run>> stalled;
        {
            const std::lock_guard lock(mutex_);
            std::erase_if(runs_, [&](const std::shared_ptr<Run>& r) {
                const std::size_t claimed = std::min(r->next.load(), r->count);
                if (claimed >= r->count) {
                    return true;  // every call claimed: the tasks running them finish it
                }
                const std::size_t finished = r->finished.load();
                if (claimed > finished && finished == r->finished_at_last_look) {
                    stalled.push_back(r);
                }
                r->finished_at_last_look = finished;
                return false;
            });
            watching_ = !runs_.empty();
            if (watching_) {
                hooks_.post_after(watch_period_millis, [this] { watch(); });
            }
        }
        for (const auto& r : stalled) {
            const std::size_t left = r->count - std::min(r->next.load(), r->count);
            for (std::size_t h = 0; h < std::min(left, r->threads); ++h) {
                hooks_.submit([this, r] { drain(*r); });
            }
        }
    }

    Hooks hooks_;
    std::atomic<std::int64_t> cost_ns_{task_budget_ns};  // unknown at first: one call per task, as in Java
    std::mutex mutex_;
    std::vector<std::shared_ptr<Run>> runs_;  // runs with calls left to claim
    bool watching_ = false;                   // a watch() is scheduled
};

}  // namespace rmq::detail
