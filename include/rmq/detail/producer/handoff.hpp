#pragma once

/// @file detail/producer/handoff.hpp
/// Hands items from a transport's thread to a thread pool in batches: the item that finds no batch open
/// posts one drain task, which takes every item queued until none is left. A burst of answers read at once
/// then costs one wake-up of the pool, not one per answer. A mutex, held only to append or to take the whole
/// batch (Boost.Lockfree's queue was measured first; ThreadSanitizer reports races inside its freelist).

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace rmq::detail {

/// Thread-safe. `T` is owned by its caller; the handoff only passes the pointer on. The drain runs the items
/// of a batch one after another on one pool thread, in the order they were pushed.
// Copies deleted, nothing to destroy by hand: no special member is missing.
template <typename T>
// NOLINTNEXTLINE(cppcoreguidelines-special-member-functions)
class BatchedHandoff {
public:
    /// `post` queues a task on the pool (throwing when the pool stopped: the drain then runs on the pushing
    /// thread); `handle` takes one item and must not throw.
    BatchedHandoff(std::function<void(std::function<void()>)> post, std::function<void(T*)> handle)
        : post_(std::move(post))
        , handle_(std::move(handle)) {}

    BatchedHandoff(const BatchedHandoff&) = delete;
    BatchedHandoff& operator=(const BatchedHandoff&) = delete;

    void push(T* item) {
        {
            const std::lock_guard lock(mutex_);
            queued_.push_back(item);
            if (std::exchange(scheduled_, true)) {
                return;  // a drain is queued or running: it will take this item too
            }
        }
        try {
            post_([this] { drain(); });
        } catch (...) {
            drain();
        }
    }

private:
    // The batch is taken under the lock and run outside it; the drain ends when it finds nothing left, under
    // the same lock that a push checks `scheduled_` with, so no item is left behind.
    void drain() {
        std::vector<T*> batch;
        for (;;) {
            {
                const std::lock_guard lock(mutex_);
                if (queued_.empty()) {
                    scheduled_ = false;
                    return;
                }
                batch.swap(queued_);
            }
            for (T* item : batch) {
                handle_(item);
            }
            batch.clear();
        }
    }

    std::function<void(std::function<void()>)> post_;
    std::function<void(T*)> handle_;
    std::mutex mutex_;
    std::vector<T*> queued_;
    bool scheduled_ = false;
};

}  // namespace rmq::detail
