#pragma once

/// @file concepts/offset_store_policy.hpp
/// The OffsetStorePolicy concept: where a consumer keeps its consume progress (Java's OffsetStore).

#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>

#include <rmq/consume_context.hpp>
#include <rmq/message_queue.hpp>

namespace rmq {

/// What a store learns at start: the group, the client id and, for broker-backed stores, how to reach the
/// broker. The Consumer fills the functions from its transport.
struct OffsetStoreContext {
    /// The consumer group (namespace applied).
    std::string group;
    /// The client id (ConsumerConfig::build_client_id at start); part of the local file path.
    std::string client_id;
    /// QUERY_CONSUMER_OFFSET to the queue's master: the committed offset, nullopt when the broker has none
    /// (QUERY_NOT_FOUND). Throws on any other failure (rmq::BrokerError with the code, rmq::Error for
    /// transport).
    std::function<std::optional<std::int64_t>(const MessageQueue&)> query_broker;
    /// UPDATE_CONSUMER_OFFSET (oneway) to the queue's master. May throw; stores catch and count failures.
    std::function<void(const MessageQueue&, std::int64_t)> update_broker;
};

/// `p.load(ctx)`: start the store (a file store reads its file; may throw rmq::Error, aborting start).
template <class P>
concept HasLoad = requires(P& p, const OffsetStoreContext& ctx) { p.load(ctx); };

/// `p.update_offset(mq, offset, increase_only)`: set (or only raise) the in-memory offset of a queue.
template <class P>
concept HasUpdateOffset = requires(P& p, const MessageQueue& mq, std::int64_t offset, bool increase_only) {
    p.update_offset(mq, offset, increase_only);
};

/// `p.read_offset(mq, type) -> std::int64_t`: Java's readOffset (-1 none, -2 error reaching the store).
template <class P>
concept HasReadOffset = requires(P& p, const MessageQueue& mq, ReadOffsetType type) {
    { p.read_offset(mq, type) } -> std::same_as<std::int64_t>;
};

/// `p.persist(mq)`: write one queue's in-memory offset to the backing store.
template <class P>
concept HasPersist = requires(P& p, const MessageQueue& mq) { p.persist(mq); };

/// `p.persist_all(mqs)`: the periodic persist of the queues the consumer currently owns.
template <class P>
concept HasPersistAll = requires(P& p, std::span<const MessageQueue> mqs) { p.persist_all(mqs); };

/// `p.remove_offset(mq)`: forget a queue's in-memory offset (queue moved to another consumer).
template <class P>
concept HasRemoveOffset = requires(P& p, const MessageQueue& mq) { p.remove_offset(mq); };

/// `p.offset_table() -> std::map<MessageQueue, std::int64_t>`: a copy of the in-memory table (stats, admin).
template <class P>
concept HasOffsetTable = requires(const P& p) {
    { p.offset_table() } -> std::same_as<std::map<MessageQueue, std::int64_t>>;
};

/// Where consume progress lives (Java's OffsetStore; docs/policies/offset_store.md). The Consumer
/// default-constructs or moves the store in, calls load() once at start, update_offset() from consume
/// threads, persist_all() from its scheduler every persist_consumer_offset_interval and at shutdown, and
/// persist()+remove_offset() when a queue leaves. Every member must be thread-safe. read_offset returns
/// Java's values: the offset, -1 when there is none, -2 when the store could not be read (the consumer then
/// retries later instead of guessing).
///
/// Valid:
/// @code
/// static_assert(rmq::OffsetStorePolicy<rmq::MemoryOffsetStore>);
/// static_assert(rmq::OffsetStorePolicy<rmq::RemoteOffsetStore>);
/// static_assert(rmq::OffsetStorePolicy<rmq::LocalFileOffsetStore>);
/// @endcode
/// Invalid (the diagnostic names the missing fragment, e.g. HasReadOffset):
/// @code
/// struct NoRead { void load(const rmq::OffsetStoreContext&); void update_offset(const rmq::MessageQueue&,
///     std::int64_t, bool); void persist(const rmq::MessageQueue&); void persist_all(std::span<const
///     rmq::MessageQueue>); void remove_offset(const rmq::MessageQueue&);
///     std::map<rmq::MessageQueue, std::int64_t> offset_table() const; };
/// static_assert(!rmq::OffsetStorePolicy<NoRead>);   // no read_offset
/// @endcode
template <class P>
concept OffsetStorePolicy =
    std::default_initializable<P> && std::move_constructible<P> && HasLoad<P> && HasUpdateOffset<P> &&
    HasReadOffset<P> && HasPersist<P> && HasPersistAll<P> && HasRemoveOffset<P> && HasOffsetTable<P>;

}  // namespace rmq
