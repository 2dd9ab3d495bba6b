#pragma once

/// @file detail/consumer/life_gate.hpp
/// rmq::detail::LifeGate: how callbacks that outlive a call (a held pull, a broker notification) reach a
/// consumer only while it is alive.

#include <functional>
#include <mutex>
#include <utility>

#include <rmq/detail/consumer/scheduler.hpp>

namespace rmq::detail {

/// Callbacks hold the gate (shared), never the consumer; the consumer closes the gate before tearing anything
/// down.
struct LifeGate {
    std::mutex mutex;
    Scheduler* scheduler = nullptr;

    /// Opens the gate onto `loop`.
    void open(Scheduler& loop) {
        const std::lock_guard lock(mutex);
        scheduler = &loop;
    }

    /// Posts `fn` onto the loop when the gate is open; otherwise drops it.
    void post(std::function<void()> fn) {
        const std::lock_guard lock(mutex);
        if (scheduler != nullptr) {
            scheduler->post(std::move(fn));
        }
    }

    /// Whether the gate is open and the caller runs on its loop (where the consumer is known to be alive).
    [[nodiscard]] bool in_loop() {
        const std::lock_guard lock(mutex);
        return scheduler != nullptr && scheduler->in_loop();
    }

    void close() {
        const std::lock_guard lock(mutex);
        scheduler = nullptr;
    }
};

}  // namespace rmq::detail
