#pragma once

/// @file detail/lite_pull/order.hpp
/// rmq::detail::LitePullOrder: the order policy under rmq::LitePullConsumer. The push consumer's core does
/// the rest as for any policy (rebalance through the allocation policy, pull loops with long polling and flow
/// control, the one pull completion path, caching, offset store, heartbeat); this policy's Service does not
/// call a listener: it parks what a pull found in a PollBuffer, where poll() takes it. The listener
/// vocabulary is Concurrently's, which the core needs to compile and never uses.

#include <cstdint>

#include <rmq/message_queue.hpp>
#include <rmq/order/concurrently.hpp>
#include <rmq/order/consume_queue.hpp>
#include <rmq/order/message_batch.hpp>

#include <rmq/detail/lite_pull/poll_buffer.hpp>

namespace rmq::detail {

struct LitePullOrder {
    using Context = Concurrently::Context;
    using Status = Concurrently::Status;
    using Listener = Concurrently::Listener;

    static constexpr auto listener_signature = Concurrently::listener_signature;
    static constexpr bool requires_queue_lock = false;
    /// Java's consumeMaxSpan: a queue whose cached offsets span too wide is not pulled.
    static constexpr bool span_flow_control = true;
    static constexpr bool unlimited_retries_by_default = false;
    static constexpr Status failure_status = Concurrently::failure_status;
    /// See rmq::detail::PollDriven.
    static constexpr bool poll_driven = true;

    static constexpr bool is_success(Status status) noexcept { return Concurrently::is_success(status); }

    template <class Host>
    class Service {
    public:
        explicit Service(Host& /*host*/) {}

        /// Event loop: the batch waits for poll() (it stays in the queue's cache until polled).
        void on_messages(const ConsumeQueue& q, MessageBatch batch) { buffer_.put(q, std::move(batch)); }

        void on_queue_added(const ConsumeQueue& q) { buffer_.added(q); }

        /// Before the core persists the queue's committed offset: with auto-commit, what was polled of it
        /// is committed first.
        void on_queue_leaving(const ConsumeQueue& q) { buffer_.leaving(q); }

        /// The core persisted the queue's committed offset already; its waiting batches go.
        bool on_queue_removed(const ConsumeQueue& q) {
            buffer_.removed(q);
            return true;
        }

        [[nodiscard]] std::int64_t pull_delay(const MessageQueue& mq) const { return buffer_.pull_delay(mq); }

        /// Shutdown began: pollers wake up empty-handed.
        void stop() { buffer_.stop(); }

        [[nodiscard]] PollBuffer& buffer() noexcept { return buffer_; }

    private:
        PollBuffer buffer_;
    };
};

}  // namespace rmq::detail
