#pragma once

/// @file detail/broker/store.hpp
/// The embedded broker's message store: topics -> queues -> an append-only log of stored messages (each with
/// its consume-queue tag hash code), the commit log that finds a message by its commit-log offset, and the
/// stamping of CommitLog.putMessage (offsets, store time, ids, body CRC).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message.hpp>
#include <rmq/subscription.hpp>

namespace rmq::detail {

/// The store host every message of the embedded broker carries.
inline constexpr std::string_view broker_store_host = "127.0.0.1:10911";

/// MessageDecoder.createMessageId for store host 127.0.0.1:10911: hex of ip (4 bytes), port (4 bytes) and
/// commit log offset (8 bytes), upper case.
std::string offset_message_id(std::int64_t commit_log_offset);

/// CommitLog.calMsgLength for IPv4 hosts: 91 bytes of fixed fields plus body, topic and properties.
std::int32_t stored_message_size(const MessageExt& m, std::size_t properties_length);

/// MessageExtBrokerInner.tagsString2tagsCode: Java's hashCode of TAGS, 0 without tags.
std::int64_t tags_code_of(const Message& m);

/// ExpressionMessageFilter.isMatchedByConsumeQueue: the tag-code check of TAG subscriptions (no subscription,
/// and SQL92 without a bloom filter, match all).
bool matched_by_consume_queue(const std::optional<SubscriptionData>& sub, std::int64_t tags_code);

/// A decimal int property (REAL_QID, RECONSUME_TIME, MAX_RECONSUME_TIMES); `fallback` when empty or not a
/// number.
std::int32_t parse_int_or(std::string_view text, std::int32_t fallback);

/// One consume-queue unit: the message and the tag hash code (a delayed message's: its due wall time).
struct StoredEntry {
    std::shared_ptr<const MessageExt> msg;
    std::int64_t tags_code = 0;
};

/// One queue: offsets [base, next) are in `entries`; base moves up only by delete_before.
struct QueueLog {
    std::int64_t base = 0;
    std::int64_t next = 0;
    std::deque<StoredEntry> entries;
};

class MessageStore {
public:
    explicit MessageStore(std::string broker_name)
        : broker_name_(std::move(broker_name)) {}

    /// Creates the topic with `count` queues, or grows it to `count`.
    void add_queues(const std::string& topic, std::size_t count);

    [[nodiscard]] bool has_topic(const std::string& topic) const { return topics_.contains(topic); }

    /// The topic's queue count; nullopt for an unknown topic.
    [[nodiscard]] std::optional<std::size_t> queue_count(const std::string& topic) const;

    /// The queue, or nullptr when the topic or queue does not exist.
    QueueLog* find_queue(const std::string& topic, std::int32_t queue_id);
    [[nodiscard]] const QueueLog* find_queue(const std::string& topic, std::int32_t queue_id) const;

    /// The queue, creating the topic and growing it as needed.
    QueueLog& ensure_queue(const std::string& topic, std::int32_t queue_id);

    /// The offset the queue's next message gets (0 for a missing queue).
    [[nodiscard]] std::int64_t max_offset(const std::string& topic, std::int32_t queue_id) const;

    /// CommitLog.putMessage: appends to the message's own topic and queue (created as needed), stamping queue
    /// and commit-log offsets, store time, store host, broker name, body CRC, stored size and offset id.
    std::shared_ptr<const MessageExt>
    append(MessageExt m, std::int64_t tags_code, std::int64_t store_timestamp);

    /// The stored message at a commit-log offset, or nullptr.
    [[nodiscard]] const MessageExt* find_by_commit_offset(std::int64_t commit_log_offset) const;

    /// Every message of a queue from `from` on (none for a missing queue).
    [[nodiscard]] std::vector<MessageExt>
    messages(const std::string& topic, std::int32_t queue_id, std::int64_t from) const;

    /// First offset stored at or after `timestamp`; the max offset when every message is older (0 for a
    /// missing queue).
    [[nodiscard]] std::int64_t
    search(const std::string& topic, std::int32_t queue_id, std::int64_t timestamp) const;

    /// Drops the queue's messages below `offset` (file expiry); false when the queue does not exist.
    bool delete_before(const std::string& topic, std::int32_t queue_id, std::int64_t offset);

private:
    std::string broker_name_;
    std::map<std::string, std::vector<QueueLog>> topics_;
    std::unordered_map<std::int64_t, std::shared_ptr<const MessageExt>> commit_log_;
    std::int64_t commit_log_offset_ = 0;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/store.ipp>
#endif
