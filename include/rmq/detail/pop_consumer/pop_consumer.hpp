#pragma once

/// @file detail/pop_consumer/pop_consumer.hpp
/// rmq::detail::PopConsumer: the push consumer's POP mode (Java's DefaultMQPushConsumerImpl with POP
/// assignments and ConsumeMessagePopConcurrentlyService): a PopLoop per POP queue feeding the consume pool
/// (an AsyncPopLoop on the event loop when the transport has rmq::HasAsyncPop),
/// PopConsume for the verdicts. No rebalance and no offsets: the broker hands each message to one member.
///
/// The entry point is update_pop_queues(topic, queues): whoever decides the POP queues of a topic (the
/// broker's assignment, or pop_subscriptions under ConsumerConfig::message_request_mode Pop) calls it.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <rmq/concepts/transport.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/consumer/state.hpp>
#include <rmq/detail/pop_consumer/async_pop_loop.hpp>
#include <rmq/detail/pop_consumer/pop_consume.hpp>
#include <rmq/detail/pop_consumer/pop_loop.hpp>

namespace rmq::detail {

template <class T>
class PopConsumer {
public:
    explicit PopConsumer(ConsumerState<T>& state)
        : s_(state)
        , consume_(state) {}

    PopConsumer(const PopConsumer&) = delete;
    PopConsumer& operator=(const PopConsumer&) = delete;

    ~PopConsumer() { stop(); }

    /// The POP queues of `topic` become `queues` (topic, broker, queue id or -1 for "the broker picks, its
    /// POP retry queue included"): new ones start popping at once, the others are let go (their messages not
    /// done yet are not acked: they come back after their invisible time). Any thread but a consume thread;
    /// does not block (a let-go loop may finish a held POP request, it is joined later). Ignored once
    /// stopping.
    void update_pop_queues(const std::string& topic, const std::vector<MessageQueue>& queues);

    /// ConsumerConfig::message_request_mode Pop: every subscribed topic (%RETRY%group included) is popped
    /// from every broker of its route with queue id -1 (a topic without route is skipped). Periodic, like
    /// rebalance.
    void pop_subscriptions();

    /// Lets every queue go and joins the loops (shutdown, before listeners are drained).
    void stop();

    /// No ack after this (shutdown, once it stops waiting for listeners).
    void close_acks() { consume_.close_acks(); }

    /// The POP queues being popped.
    [[nodiscard]] std::vector<MessageQueue> pop_queues() const;

private:
    /// A thread per POP queue only when the transport's pops must be waited for.
    using Loop = std::conditional_t<HasAsyncPop<typename T::Transport>, AsyncPopLoop<T>, PopLoop<T>>;

    [[nodiscard]] std::shared_ptr<Loop> start_loop(const MessageQueue& mq);
    [[nodiscard]] std::vector<MessageQueue> broker_queues(const std::string& topic) const;
    /// Joins the let-go loops whose thread has finished.
    void reap_locked();

    ConsumerState<T>& s_;
    PopConsume<T> consume_;
    mutable std::mutex mutex_;
    std::map<MessageQueue, std::shared_ptr<Loop>> loops_;  // guarded by mutex_
    std::vector<std::shared_ptr<Loop>> let_go_;            // guarded by mutex_
    bool stopped_ = false;                                 // guarded by mutex_
};

}  // namespace rmq::detail

#include <rmq/detail/pop_consumer/impl/pop_consumer.hpp>
