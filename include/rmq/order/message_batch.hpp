#pragma once

/// @file order/message_batch.hpp
/// rmq::MessageBatch: pulled messages as the consumer hands them to an order policy. The messages stay where
/// the pull decoded them, shared with the queue's cache; a batch is a range of them, so cutting a pull into
/// listener calls copies nothing.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <rmq/message.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/util/copy_with_room.hpp>

namespace rmq {

namespace detail {
struct QueueAccess;
}  // namespace detail

/// Messages [begin, end) of one pulled (or locally retried) vector. Cheap to copy; the messages live until
/// the last batch and cache entry over them are gone. Read-only for the policy: the consumer prepares them
/// (retry topic, MIN_OFFSET/MAX_OFFSET, CONSUME_START_TIME) when a listener call of them begins.
class MessageBatch {
public:
    MessageBatch() = default;

    /// Messages of the policy's own (e.g. copies kept for a local retry), not shared with any cache.
    explicit MessageBatch(std::vector<MessageExt> msgs)
        : storage_(std::make_shared<std::vector<MessageExt>>(std::move(msgs)))
        , end_(storage_->size()) {}

    [[nodiscard]] std::span<const MessageExt> messages() const noexcept { return span(); }

    [[nodiscard]] std::size_t size() const noexcept { return end_ - begin_; }

    [[nodiscard]] bool empty() const noexcept { return begin_ == end_; }

    [[nodiscard]] const MessageExt& operator[](std::size_t i) const noexcept { return span()[i]; }

    /// A copy of message `i` for a policy that keeps its own (its pull's MIN_OFFSET / MAX_OFFSET stamped):
    /// the host then prepares the copy when a call of it begins (OrderHost::consume with a span).
    [[nodiscard]] MessageExt copy(std::size_t i) const {
        MessageExt out = detail::copy_with_room(span()[i]);
        if (unstamped_) {
            unstamped_->stamp(std::span<MessageExt>(&out, 1));
        }
        return out;
    }

    /// Java's dispatchToConsume: the queue's cache had nothing waiting before these messages, so a policy
    /// that runs one consume task per queue (rmq::Orderly) starts one now.
    [[nodiscard]] bool dispatch_to_consume() const noexcept { return dispatch_; }

    /// Messages [pos, pos + count) of this batch (clamped to its end).
    [[nodiscard]] MessageBatch slice(std::size_t pos, std::size_t count) const {
        MessageBatch out = *this;
        out.begin_ = begin_ + std::min(pos, size());
        out.end_ = out.begin_ + std::min(count, end_ - out.begin_);
        return out;
    }

    /// Consecutive batches of at most `n` messages (n < 1 counts as 1): Java's consumeMessageBatchMaxSize.
    [[nodiscard]] std::vector<MessageBatch> split(std::size_t n) const {
        n = std::max<std::size_t>(1, n);
        std::vector<MessageBatch> out;
        out.reserve((size() + n - 1) / n);
        for (std::size_t i = 0; i < size(); i += n) {
            out.push_back(slice(i, n));
        }
        return out;
    }

private:
    friend struct detail::QueueAccess;

    MessageBatch(std::shared_ptr<std::vector<MessageExt>> storage,
                 std::optional<PullOffsets> unstamped,
                 bool dispatch)
        : storage_(std::move(storage))
        , end_(storage_->size())
        , unstamped_(unstamped)
        , dispatch_(dispatch) {}

    [[nodiscard]] std::span<MessageExt> span() const noexcept {
        return storage_ ? std::span<MessageExt>(*storage_).subspan(begin_, end_ - begin_)
                        : std::span<MessageExt>();
    }

    std::shared_ptr<std::vector<MessageExt>> storage_;
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
    std::optional<PullOffsets> unstamped_;  // the pull's bounds, stamped when a call of the batch begins
    bool dispatch_ = false;
};

}  // namespace rmq
