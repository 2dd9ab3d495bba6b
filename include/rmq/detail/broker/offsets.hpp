#pragma once

/// @file detail/broker/offsets.hpp
/// The embedded broker's consumer offsets (ConsumerOffsetManager): one offset per (group, topic, queue).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::detail {

class ConsumerOffsets {
public:
    /// The stored offset, if any.
    [[nodiscard]] std::optional<std::int64_t> find(const std::string& group, const MessageQueue& mq) const;

    /// Stores (overwrites) the group's offset of the queue.
    void store(const std::string& group, const MessageQueue& mq, std::int64_t offset);

    /// Remembers the offsets as flushed to disk (ConsumerOffsetManager.persist; rmq::sim calls it).
    void checkpoint() { flushed_ = offsets_; }

    /// A restart: the offsets go back to the last checkpoint (updates since are lost).
    void restore_checkpoint() { offsets_ = flushed_; }

private:
    /// topic, group, queue id.
    using Key = std::tuple<std::string, std::string, std::int32_t>;

    static Key key(const std::string& group, const MessageQueue& mq) {
        return {mq.topic, group, mq.queue_id};
    }

    std::map<Key, std::int64_t> offsets_;
    std::map<Key, std::int64_t> flushed_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/offsets.ipp>
#endif
