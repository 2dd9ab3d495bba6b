#pragma once

/// @file order/concurrently.hpp
/// rmq::Concurrently: Java's ConsumeMessageConcurrentlyService (docs/policies/order.md). Batches of a queue
/// run in parallel on the consume pool; the host sends failed messages back, sweeps expired ones and commits
/// by the min-offset rule.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include <rmq/consume_context.hpp>
#include <rmq/message.hpp>
#include <rmq/order/consume_queue.hpp>
#include <rmq/order/host.hpp>
#include <rmq/order/message_batch.hpp>

namespace rmq {

/// Order policy for concurrent consumption: no ordering within a queue, failed messages go back to the broker
/// (`%RETRY%group`, then `%DLQ%group`) in clustering and are dropped in broadcasting.
struct Concurrently {
    using Context = ConsumeConcurrentlyContext;
    using Status = ConsumeConcurrentlyStatus;
    using Listener = std::function<std::optional<Status>(std::span<const MessageExt>, Context&)>;

    static constexpr std::string_view listener_signature =
        "(std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) -> "
        "rmq::ConsumeConcurrentlyStatus";
    static constexpr bool requires_queue_lock = false;
    static constexpr bool span_flow_control = true;
    static constexpr bool unlimited_retries_by_default = false;
    /// An exception or nullopt from the listener: the whole batch failed.
    static constexpr Status failure_status = Status::ReconsumeLater;

    static constexpr bool is_success(Status status) noexcept { return status == Status::ConsumeSuccess; }

    /// The dispatcher the Consumer instantiates; Host is rmq::OrderHost<Concurrently> (order/host.hpp).
    template <class Host>
    class Service {
    public:
        explicit Service(Host& host)
            : host_(host) {}

        /// Cached messages (event loop): batches of consume_message_batch_max_size run in parallel, each a
        /// range of the pulled messages (no copy), Java's ConsumeRequest; cheap ones share a task.
        void on_messages(const ConsumeQueue& q, const MessageBatch& msgs) {
            const int size = std::max(1, host_.config().consume_message_batch_max_size);
            auto batches = msgs.split(static_cast<std::size_t>(size));
            const std::size_t count = batches.size();
            host_.submit_each(count, [this, q, batches = std::move(batches)](std::size_t i) mutable {
                consume(q, std::move(batches[i]));
            });
        }

    private:
        /// Java's ConsumeRequest.run and processConsumeResult (consume thread): messages after the ack index
        /// failed; the host sends them back and commits the smallest offset still cached.
        void consume(const ConsumeQueue& q, MessageBatch batch) {
            Context ctx(q.mq());
            const auto call = host_.consume(q, batch, ctx);
            if (!call) {
                return;  // the queue was dropped
            }
            const auto last = static_cast<int>(batch.size()) - 1;
            const int ack =
                call->status == Status::ConsumeSuccess ? std::clamp(ctx.ack_index(), -1, last) : -1;
            host_.settle(
                q, std::move(batch), static_cast<std::size_t>(ack + 1), ctx.delay_level_when_next_consume());
        }

        Host& host_;
    };
};

}  // namespace rmq
