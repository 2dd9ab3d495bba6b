#pragma once

/// @file offset_store/memory.hpp
/// rmq::MemoryOffsetStore: progress kept in memory only (tests, embedded brokers, consumers that track
/// offsets elsewhere). A restart starts every queue from ConsumeFromWhere again.

#include <cstdint>
#include <map>
#include <span>
#include <string_view>

#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/consume_context.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/offset_store/offset_table.hpp>

namespace rmq {

/// An OffsetStorePolicy with no backing store: every ReadOffsetType reads memory (-1 when absent) and the
/// persist members do nothing. Thread-safe.
class MemoryOffsetStore {
public:
    /// Nothing to load.
    void load(const OffsetStoreContext& /*ctx*/) {}

    /// Java's updateOffset: create, or raise only (`increase_only`), or set.
    void update_offset(const MessageQueue& mq, std::int64_t offset, bool increase_only) {
        table_.update(mq, offset, increase_only);
    }

    /// 5.x updateAndFreezeOffset: set and ignore later updates until remove_offset.
    void update_and_freeze_offset(const MessageQueue& mq, std::int64_t offset) {
        table_.update_and_freeze(mq, offset);
    }

    /// The in-memory offset, -1 when absent, whatever the type.
    [[nodiscard]] std::int64_t read_offset(const MessageQueue& mq, ReadOffsetType /*type*/) const {
        return table_.get(mq).value_or(-1);
    }

    /// No backing store.
    void persist(const MessageQueue& /*mq*/) {}

    /// No backing store.
    void persist_all(std::span<const MessageQueue> /*mqs*/) {}

    /// Forgets the queue's offset.
    void remove_offset(const MessageQueue& mq) { table_.remove(mq); }

    /// A copy of the table.
    [[nodiscard]] std::map<MessageQueue, std::int64_t> offset_table() const { return table_.snapshot(); }

    /// Java's cloneOffsetTable(topic): the entries of `topic` (all when empty).
    [[nodiscard]] std::map<MessageQueue, std::int64_t> clone_offset_table(std::string_view topic) const {
        return table_.snapshot(topic);
    }

private:
    detail::OffsetTable table_;
};

}  // namespace rmq
