#pragma once

// Helpers shared by the consumer and scenario tests (whole consumer stories on the embedded broker): a fast
// configuration, a thread-safe recorder with condition-variable waits, polling for broker-side state. Each
// test area wraps these with its own default timeouts (scenario stories run longer than single-consumer
// tests).

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <rmq/consumer_config.hpp>

namespace consumer_fixture {

/// Every interval shortened so rebalances, lock renewals, retries and offset persistence happen within
/// milliseconds.
inline rmq::ConsumerConfig fast_config(std::string group,
                                       std::int64_t await_termination_millis_when_shutdown) {
    rmq::ConsumerConfig c;
    c.consumer_group = std::move(group);
    c.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    c.consume_thread_min = 4;
    c.consume_thread_max = 4;
    c.rebalance_interval = 100;
    c.lock_renewal_interval = 100;
    c.persist_consumer_offset_interval = 100;
    c.heartbeat_broker_interval = 200;
    c.broker_suspend_max_time_millis = 200;
    c.consumer_timeout_millis_when_suspend = 3000;
    c.pull_time_delay_mills_when_exception = 50;
    c.pull_time_delay_mills_when_suspend = 50;
    c.suspend_current_queue_time_millis = 10;
    c.await_termination_millis_when_shutdown = await_termination_millis_when_shutdown;
    return c;
}

/// Shared state between listener threads and the test thread: every access under one mutex, waits on a
/// condition variable with a generous timeout (a timeout is a failure, never a measurement).
template <int DefaultWaitSeconds>
class BasicRecorder {
public:
    /// Runs `fn` under the lock and wakes waiters.
    template <class F>
    void update(F&& fn) {
        {
            const std::lock_guard lock(mutex_);
            fn();
        }
        cv_.notify_all();
    }

    /// Waits until `pred()` holds under the lock; false on timeout.
    template <class P>
    bool wait(P&& pred, std::chrono::milliseconds timeout = std::chrono::seconds(DefaultWaitSeconds)) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, timeout, std::forward<P>(pred));
    }

    /// Runs `fn` under the lock and returns its result.
    template <class F>
    auto read(F&& fn) {
        const std::lock_guard lock(mutex_);
        return fn();
    }

    /// Wakes waiters whose predicate depends on state outside the recorder.
    void poke() { cv_.notify_all(); }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
};

/// Polls `pred` every 5 ms for up to `timeout` (for state that lives in the broker or the consumer).
template <class P>
bool eventually(P&& pred, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (pred()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return pred();
}

/// Waits until the pull loop of every queue of `topic` the consumer caches has come round `rounds` times.
/// Each run of a queue's loop stamps last_pull_timestamp first (pulling, paused or flow-controlled alike) and
/// a queue has one loop, so a stamp newer than the one read means a run that began after the read; after
/// `rounds` >= 2 runs, every pull sent before the first of them has been processed. Negative checks ("nothing
/// was pulled / consumed") wait for this instead of sleeping.
template <class C>
bool pull_loops_ran(C& consumer, const std::string& topic, int rounds, std::chrono::milliseconds timeout) {
    const auto stamps = [&] {
        std::vector<std::pair<std::string, std::int64_t>> out;  // (queue, stamp)
        for (const auto& q : consumer.stats().queues) {
            if (q.mq.topic == topic) {
                out.emplace_back(q.mq.broker_name + "/" + std::to_string(q.mq.queue_id),
                                 q.last_pull_timestamp);
            }
        }
        return out;
    };
    for (int i = 0; i < rounds; ++i) {
        // A queue can be assigned a moment before its cache shows in stats(): wait for it, do not fail.
        std::vector<std::pair<std::string, std::int64_t>> before;
        if (!eventually(
                [&] {
                    before = stamps();
                    return !before.empty();
                },
                timeout)) {
            return false;
        }
        const bool ran = eventually(
            [&] {
                const auto now = stamps();
                for (const auto& [mq, stamp] : before) {
                    const auto it =
                        std::find_if(now.begin(), now.end(), [&](const auto& e) { return e.first == mq; });
                    if (it == now.end() || it->second <= stamp) {
                        return false;
                    }
                }
                return true;
            },
            timeout);
        if (!ran) {
            return false;
        }
    }
    return true;
}

}  // namespace consumer_fixture
