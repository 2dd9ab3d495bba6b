#pragma once

/// @file detail/consumer/offset_committer.hpp
/// rmq::detail::OffsetCommitter: the one door between the consumer and its offset store. Every read and
/// write of an offset goes through it: loading at start, the start offset of a new queue (Java's
/// computePullFromWhere), the offsets consumed messages advance (ack, settle, orderly commit, filtered
/// pulls), the commit piggybacked on each pull, the periodic persist, the persist when a queue is dropped
/// (and the memory of that offset for a queue taken back soon), offset resets, and may_commit, which refuses
/// commits for a queue whose broker lock expired.

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include <rmq/message_queue.hpp>
#include <rmq/process_queue.hpp>

#include <rmq/detail/consumer/state.hpp>

namespace rmq::detail {

template <class T>
class OffsetCommitter {
public:
    using OffsetStore = typename T::OffsetStore;

    OffsetCommitter(ConsumerState<T>& state, OffsetStore store)
        : s_(state)
        , store_(std::move(store)) {}

    [[nodiscard]] OffsetStore& store() noexcept { return store_; }

    /// The store's start (group and client id known, start()).
    void load();

    /// Whether this member may commit the queue's offset (see the definition).
    [[nodiscard]] bool may_commit(const ProcessQueue& pq) const;
    /// The commit a pull of `mq` carries, like a persist; nullopt: none.
    [[nodiscard]] std::optional<std::int64_t> piggyback(const MessageQueue& mq, const ProcessQueue& pq) const;
    /// Consumed up to `offset` (exclusive); `increase_only`: never lowers the stored offset.
    void commit(const MessageQueue& mq, std::int64_t offset, bool increase_only);
    /// The broker said the offset was illegal: continue from `offset`, persisted at once.
    void skip_to(const MessageQueue& mq, std::int64_t offset);
    /// An admin reset: `offset` replaces what was consumed (and what a dropped queue remembered).
    void reset(const MessageQueue& mq, std::int64_t offset);

    /// Forgets what a dropped `mq` was consumed up to (a reset: the queue starts from the reset).
    void forget_kept(const MessageQueue& mq) { dropped_offsets_.erase(mq); }

    /// Java's persistAll, of the owned queues this member may commit.
    void persist_all();
    /// A queue this member no longer holds: persisted, removed from the store, remembered for a while.
    void persist_dropped(const MessageQueue& mq, const ProcessQueue& pq);
    /// The in-memory offset (-1: none); never asks the broker.
    [[nodiscard]] std::int64_t memory_offset(const MessageQueue& mq) const;

    /// Java's computePullFromWhereWithException for a queue this member takes on; forgets the store's
    /// in-memory offset of it first.
    [[nodiscard]] std::int64_t start_offset(const MessageQueue& mq, bool fresh);
    /// What this member had consumed `mq` up to when it dropped it, and when (steady ms); {-1, 0}: nothing.
    [[nodiscard]] std::pair<std::int64_t, std::int64_t> take_kept(const MessageQueue& mq);
    [[nodiscard]] std::int64_t continue_from(const MessageQueue& mq,
                                             std::int64_t broker_offset,
                                             std::int64_t kept_offset,
                                             std::int64_t kept_at) const;

private:
    ConsumerState<T>& s_;
    // mutable: stats and the admin read memory offsets; stores are thread-safe and some declare read_offset
    // non-const.
    mutable OffsetStore store_;
    // Loop only: the offset each queue was consumed up to when this member dropped it, and when (steady ms).
    // The persist on a drop fails silently when the broker is down (a restart): re-taken soon, the queue
    // continues from here rather than from the broker's older committed offset (which would repeat messages).
    std::map<MessageQueue, std::pair<std::int64_t, std::int64_t>> dropped_offsets_;
    static constexpr std::int64_t dropped_offset_keep_millis = 120000;
};

}  // namespace rmq::detail

#include <rmq/detail/consumer/impl/offset_committer.hpp>
