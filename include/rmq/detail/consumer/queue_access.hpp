#pragma once

/// @file detail/consumer/queue_access.hpp
/// rmq::detail::QueueAccess: the one way into the consumer-only side of rmq::ConsumeQueue and
/// rmq::MessageBatch (both befriend this type alone), so a policy sees the read-only side and the consumer's
/// boxes reach the cache and the pulled storage through one narrow door.

#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/order/consume_queue.hpp>
#include <rmq/order/message_batch.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/protocol.hpp>

namespace rmq::detail {

struct QueueAccess {
    /// The policy's handle of one ownership of `mq`.
    static ConsumeQueue queue(MessageQueue mq, std::shared_ptr<ProcessQueue> pq) {
        return ConsumeQueue(std::move(mq), std::move(pq));
    }

    /// The cache behind a handle, which only the consumer writes.
    static ProcessQueue& cache(const ConsumeQueue& q) noexcept { return q.cache(); }

    /// A pulled vector as a batch; `unstamped`: the pull's bounds, stamped when a call of it begins.
    static MessageBatch batch(std::shared_ptr<std::vector<MessageExt>> storage,
                              std::optional<PullOffsets> unstamped,
                              bool dispatch) {
        return MessageBatch(std::move(storage), unstamped, dispatch);
    }

    static std::span<MessageExt> span(const MessageBatch& batch) noexcept { return batch.span(); }

    static const std::optional<PullOffsets>& unstamped(const MessageBatch& batch) noexcept {
        return batch.unstamped_;
    }

    /// The batch's share of its pulled vector (empty when it has none).
    static std::shared_ptr<std::vector<MessageExt>> release_storage(MessageBatch& batch) noexcept {
        return std::move(batch.storage_);
    }
};

}  // namespace rmq::detail
