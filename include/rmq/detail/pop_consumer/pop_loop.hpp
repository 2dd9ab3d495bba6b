#pragma once

/// @file detail/pop_consumer/pop_loop.hpp
/// rmq::detail::PopLoop: Java's popMessage / executePopPullRequestImmediately for one POP queue, on a thread
/// of its own (a POP request is synchronous and the broker may hold it for the long-polling time): flow
/// control by pop_threshold_for_queue, then POP_MESSAGE for pop_batch_nums messages invisible for
/// pop_invisible_time, handed to the consume pool in batches of consume_message_batch_max_size.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <rmq/message.hpp>
#include <rmq/pop.hpp>

#include <rmq/detail/consumer/state.hpp>
#include <rmq/detail/pop_consumer/pop_consume.hpp>
#include <rmq/detail/pop_consumer/pop_queue.hpp>

namespace rmq::detail {

template <class T>
class PopLoop {
public:
    /// Starts popping `q` at once.
    PopLoop(ConsumerState<T>& state, PopConsume<T>& consume, std::shared_ptr<PopQueue> q);
    PopLoop(const PopLoop&) = delete;
    PopLoop& operator=(const PopLoop&) = delete;
    /// Halts and joins the thread (which may finish a held POP request first).
    ~PopLoop();

    /// No more POP requests (shutdown): popped messages are still consumed and acked. Returns at once.
    void halt();

    /// Halts and drops the queue (let go): its popped messages are neither consumed nor acked any more.
    void drop();

    [[nodiscard]] const std::shared_ptr<PopQueue>& queue() const noexcept { return q_; }

    /// Whether the thread is done (a let-go loop can then be joined without waiting).
    [[nodiscard]] bool finished() const noexcept { return finished_.load(); }

private:
    void run();
    void pop_once();
    [[nodiscard]] PopArgs pop_args() const;
    void dispatch(std::vector<MessageExt> msgs);
    /// Waits `millis` (wall time) or until dropped.
    void pause(std::int64_t millis);

    /// After an empty answer that came back early (a broker that does not hold POP requests, or one stopped
    /// holding them): the pause before the next POP, so an idle consumer does not spin.
    static constexpr std::int64_t empty_pop_pause_millis = 100;

    ConsumerState<T>& s_;
    PopConsume<T>& consume_;
    std::shared_ptr<PopQueue> q_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::atomic<bool> halted_{false};
    std::atomic<bool> finished_{false};
    std::thread thread_;  // last: started once everything above is built
};

}  // namespace rmq::detail

#include <rmq/detail/pop_consumer/impl/pop_loop.hpp>
