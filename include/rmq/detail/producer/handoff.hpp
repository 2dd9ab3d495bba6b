#pragma once

/// @file detail/producer/handoff.hpp
/// Hands items from a transport's thread to a thread pool in batches: the item that finds no batch open
/// posts one drain task, which takes every item queued until none is left. A burst of answers read at once
/// then costs one wake-up of the pool, not one per answer.

#include <atomic>
#include <cstddef>
#include <functional>
#include <utility>

#include <boost/lockfree/queue.hpp>

namespace rmq::detail {

/// Thread-safe. `T` is owned by its caller; the handoff only passes the pointer on. The drain runs the items
/// of a batch one after another on one pool thread, in the order they were pushed.
template <typename T>
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
        queue_.push(item);  // allocates only while the queue's node pool grows
        if (scheduled_.exchange(true)) {
            return;  // a drain is queued or running: it will take this item too
        }
        try {
            post_([this] { drain(); });
        } catch (...) {
            drain();
        }
    }

private:
    void drain() {
        for (;;) {
            T* item = nullptr;
            while (queue_.pop(item)) {
                handle_(item);
            }
            scheduled_.store(false);
            // An item pushed between the last pop and that store found the batch still open and posted
            // nothing: take it here, unless a new drain was posted meanwhile.
            std::atomic_thread_fence(std::memory_order_seq_cst);
            if (queue_.empty() || scheduled_.exchange(true)) {
                return;
            }
        }
    }

    static constexpr std::size_t initial_nodes = 1024;

    std::function<void(std::function<void()>)> post_;
    std::function<void(T*)> handle_;
    boost::lockfree::queue<T*> queue_{initial_nodes};
    std::atomic<bool> scheduled_{false};
};

}  // namespace rmq::detail
