#pragma once

/// @file detail/pop_consumer/async_pop_loop.hpp
/// rmq::detail::AsyncPopLoop: PopLoop's work for one POP queue over a transport with rmq::HasAsyncPop, on the
/// consumer's event loop instead of a thread of its own: each POP_MESSAGE's completion comes back onto the
/// loop, which dispatches the messages and sends the next one (or waits, by a timer). No thread waits on the
/// broker while it holds a pop for long polling, and a driven consumer (rmq::sim) can run it.

#include <atomic>
#include <cstdint>
#include <memory>

#include <rmq/pop.hpp>

#include <rmq/detail/consumer/state.hpp>
#include <rmq/detail/pop_consumer/pop_consume.hpp>
#include <rmq/detail/pop_consumer/pop_loop.hpp>
#include <rmq/detail/pop_consumer/pop_queue.hpp>

namespace rmq::detail {

template <class T>
class AsyncPopLoop : public std::enable_shared_from_this<AsyncPopLoop<T>> {
public:
    /// A loop that starts popping `q` at once (on the event loop).
    static std::shared_ptr<AsyncPopLoop>
    start(ConsumerState<T>& state, PopConsume<T>& consume, std::shared_ptr<PopQueue> q);

    AsyncPopLoop(ConsumerState<T>& state, PopConsume<T>& consume, std::shared_ptr<PopQueue> q)
        : s_(state)
        , consume_(consume)
        , q_(std::move(q)) {}

    AsyncPopLoop(const AsyncPopLoop&) = delete;
    AsyncPopLoop& operator=(const AsyncPopLoop&) = delete;
    ~AsyncPopLoop() = default;

    /// No more POP requests (shutdown): popped messages are still consumed and acked. Any thread.
    void halt() { halted_.store(true); }

    /// Halts and drops the queue (let go): its popped messages are neither consumed nor acked any more.
    void drop() {
        q_->dropped.store(true);
        halt();
    }

    [[nodiscard]] const std::shared_ptr<PopQueue>& queue() const noexcept { return q_; }

    /// Halted and no POP request in flight (a late answer then finds the loop gone: its messages come back
    /// after their invisible time).
    [[nodiscard]] bool finished() const noexcept { return halted_.load() && !in_flight_.load(); }

private:
    /// Event loop: the next POP_MESSAGE, or a timer while suspended or flow-controlled.
    void step();
    /// Event loop: the answer of the pop sent at `begin`.
    void answered(const PopArgs& args, std::int64_t begin, PopAnswer answer);
    /// Event loop: step() after `millis` (0: now, posted).
    void again(std::int64_t millis);

    ConsumerState<T>& s_;
    PopConsume<T>& consume_;
    std::shared_ptr<PopQueue> q_;
    std::atomic<bool> halted_{false};
    std::atomic<bool> in_flight_{false};
};

}  // namespace rmq::detail

#include <rmq/detail/pop_consumer/impl/async_pop_loop.hpp>
