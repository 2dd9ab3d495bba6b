#pragma once

/// @file detail/pop_consumer/pop_loop.hpp
/// rmq::detail::PopLoop: Java's popMessage / executePopPullRequestImmediately for one POP queue, on a thread
/// of its own (a POP request is synchronous and the broker may hold it for the long-polling time; a transport
/// with rmq::HasAsyncPop gets rmq::detail::AsyncPopLoop instead, async_pop_loop.hpp): flow
/// control by pop_threshold_for_queue, then POP_MESSAGE for pop_batch_nums messages invisible for
/// pop_invisible_time, handed to the consume pool in batches of consume_message_batch_max_size.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <rmq/message.hpp>
#include <rmq/pop.hpp>

#include <rmq/detail/consumer/state.hpp>
#include <rmq/detail/pop_consumer/pop_consume.hpp>
#include <rmq/detail/pop_consumer/pop_queue.hpp>

namespace rmq::detail {

/// A POP_MESSAGE's outcome as plain data (a failure crosses threads as text, not as an exception_ptr).
struct PopAnswer {
    PopResult result;
    bool failed = false;
    /// The broker has no POP (rmq::PopUnsupported: a 4.x broker).
    bool unsupported = false;
    std::string what;

    /// On the thread that got `error` (null: `result` stands).
    static PopAnswer of(PopResult result, const std::exception_ptr& error);
};

/// What a pop loop does next: pop again after `pause_millis` (0: at once), or stop for good.
struct PopNext {
    bool stop = false;
    std::int64_t pause_millis = 0;
};

/// PopMessageRequestHeader of `q`: the subscription's expression, Java's init mode (MIN only for
/// CONSUME_FROM_FIRST_OFFSET).
template <class T>
PopArgs pop_args_of(const ConsumerState<T>& s, const PopQueue& q);

/// Java's PopCallback.onSuccess / onException for `q`: the popped messages to the consume pool, and the pause
/// before the next pop. `begin`: the clock's steady time the pop was sent at.
template <class T>
PopNext after_pop(ConsumerState<T>& s,
                  PopConsume<T>& consume,
                  const std::shared_ptr<PopQueue>& q,
                  const PopArgs& args,
                  std::int64_t begin,
                  PopAnswer answer);

/// submitPopConsumeRequest: batches of consume_message_batch_max_size, each a listener call on the consume
/// pool (submitted from the event loop, the pool's one producer).
template <class T>
void dispatch_popped(ConsumerState<T>& s,
                     PopConsume<T>& consume,
                     const std::shared_ptr<PopQueue>& q,
                     std::vector<MessageExt> msgs);

/// After an empty answer that came back early (a broker that does not hold POP requests, or one stopped
/// holding them): the pause before the next POP, so an idle consumer does not spin.
inline constexpr std::int64_t empty_pop_pause_millis = 100;

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
    /// Waits `millis` (wall time) or until dropped.
    void pause(std::int64_t millis);

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
