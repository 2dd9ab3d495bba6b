#pragma once

/// @file detail/broker/pop_order.hpp
/// Orderly POP on the embedded broker (5.x's ConsumerOrderInfoManager): per (group, topic, queue) the batch
/// an orderly pop served last. The queue is blocked for the group while a message of that batch is neither
/// acked nor past its visibility; a later pop serves the same offsets again (from the group's consumer
/// offset, which only acks move) and counts how often each was served. No check points: nothing is revived.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <rmq/config.hpp>

namespace rmq::detail {

/// ConsumerOrderInfoManager.OrderInfo: the last orderly batch of one queue for one group.
struct PopOrderBatch {
    /// Broker wall time (ms) of the pop: receipts with another pop time are stale.
    std::int64_t pop_time = 0;
    /// Clock steady time (ms) the batch's messages become visible again, unless changed per message.
    std::int64_t visible_at = 0;
    std::vector<std::int64_t> offsets;
    /// CHANGE_MESSAGE_INVISIBLETIME per offset: its own steady visibility time.
    std::map<std::int64_t, std::int64_t> visible_at_of;
    /// Times each offset was served before this batch (only those served before).
    std::map<std::int64_t, std::int32_t> consumed;
    /// Bit i: offsets[i] acked (commitOffsetBit).
    std::uint64_t committed = 0;
    /// The long-polling pops of the queue were woken once its block ended by time.
    bool unblock_reported = false;

    /// OrderInfo.needBlock: a message not acked and not yet visible at steady time `now`.
    [[nodiscard]] bool blocks(std::int64_t now) const;
    /// The steady time the block ends (nullopt: not blocking by time, all acked).
    [[nodiscard]] std::optional<std::int64_t> blocked_until() const;
    /// OrderInfo.getNextOffset: the first offset not acked, or one past the last when all are.
    [[nodiscard]] std::int64_t next_offset() const;
};

class PopOrderBatches {
public:
    /// (group, topic, queue id)
    using Key = std::tuple<std::string, std::string, std::int32_t>;

    /// ConsumerOrderInfoManager.checkBlock.
    [[nodiscard]] bool blocked(const Key& key, std::int64_t now) const;

    /// ConsumerOrderInfoManager.update: `offsets` (non-empty, ascending) are the new batch of the queue; an
    /// offset the previous batch had is counted once more. Returns the count of each offset (0: new).
    std::map<std::int64_t, std::int32_t>
    update(const Key& key, std::int64_t pop_time, std::int64_t visible_at, std::vector<std::int64_t> offsets);

    /// ConsumerOrderInfoManager.commitAndNext: marks `offset` of the batch popped at `pop_time` acked and
    /// returns the offset the group's consumer offset moves to; -1 when the batch does not have `offset`,
    /// -2 when `pop_time` is not the batch's (a stale receipt: nothing to commit).
    std::int64_t commit_and_next(const Key& key, std::int64_t offset, std::int64_t pop_time);

    /// ConsumerOrderInfoManager.updateNextVisibleTime; a stale `pop_time` changes nothing.
    void set_visible_at(const Key& key, std::int64_t offset, std::int64_t pop_time, std::int64_t visible_at);

    /// The earliest steady time a blocked queue's block ends and its held pops were not woken for it yet.
    [[nodiscard]] std::optional<std::int64_t> next_unblock() const;

    /// The queues whose block ended by steady time `now` (each reported once per batch).
    std::vector<Key> take_unblocked(std::int64_t now);

private:
    std::map<Key, PopOrderBatch> batches_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/pop_order.ipp>
#endif
