#pragma once

/// @file offset_store/remote.hpp
/// rmq::RemoteOffsetStore: Java's RemoteBrokerOffsetStore, the clustering default. Offsets live in memory and
/// are committed to the queue's master broker (periodically, on queue removal, at shutdown, and piggy-backed
/// on every pull by the consumer).

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/config.hpp>
#include <rmq/consume_context.hpp>
#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/offset_store/offset_table.hpp>

namespace rmq {

/// Broker-backed offset store (docs/policies/offset_store.md). Thread-safe. Reads from the store follow
/// RocketMQ 5.x: QUERY_NOT_FOUND (nullopt, or rmq::BrokerError with that code) → -1, any other failure → -2.
/// (4.9.8 mapped every broker error to -1, which makes a consumer with LastOffset jump to the queue's end on
/// a transient broker error; 5.x's -2 makes it retry instead.)
class RemoteOffsetStore {
public:
    /// Called with the queue and the reason when a oneway update could not be sent (Java logs it).
    /// Optional; set before start.
    std::function<void(const MessageQueue&, std::string_view)> on_persist_error;

    /// Keeps the group and the broker functions.
    void load(const OffsetStoreContext& ctx) { ctx_ = ctx; }

    /// Java's updateOffset: create, or raise only (`increase_only`), or set (memory only).
    void update_offset(const MessageQueue& mq, std::int64_t offset, bool increase_only) {
        table_.update(mq, offset, increase_only);
    }

    /// 5.x updateAndFreezeOffset: set and ignore later updates until remove_offset.
    void update_and_freeze_offset(const MessageQueue& mq, std::int64_t offset) {
        table_.update_and_freeze(mq, offset);
    }

    /// Java's readOffset: memory (-1 when absent), or the broker's committed offset, stored in memory.
    [[nodiscard]] std::int64_t read_offset(const MessageQueue& mq, ReadOffsetType type);

    /// Sends the queue's in-memory offset to its broker (oneway), if there is one.
    void persist(const MessageQueue& mq) {
        if (auto v = table_.get(mq)) {
            send(mq, *v);
        }
    }

    /// Java's persistAll: sends every in-memory offset of a queue in `mqs` (even unchanged ones) and drops
    /// the entries of queues not in `mqs` (no longer owned). An empty `mqs` does nothing.
    void persist_all(std::span<const MessageQueue> mqs);

    /// Forgets the queue's offset.
    void remove_offset(const MessageQueue& mq) { table_.remove(mq); }

    /// A copy of the table.
    [[nodiscard]] std::map<MessageQueue, std::int64_t> offset_table() const { return table_.snapshot(); }

    /// Java's cloneOffsetTable(topic): the entries of `topic` (all when empty).
    [[nodiscard]] std::map<MessageQueue, std::int64_t> clone_offset_table(std::string_view topic) const {
        return table_.snapshot(topic);
    }

private:
    void send(const MessageQueue& mq, std::int64_t offset) const;

    OffsetStoreContext ctx_;
    detail::OffsetTable table_;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/offset_store/impl/remote.ipp>
#endif
