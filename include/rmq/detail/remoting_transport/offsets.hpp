#pragma once

/// @file detail/remoting_transport/offsets.hpp
/// QUERY_CONSUMER_OFFSET, UPDATE_CONSUMER_OFFSET, GET_MIN_OFFSET, GET_MAX_OFFSET and
/// SEARCH_OFFSET_BY_TIMESTAMP, each on the queue's master.

#include <cstdint>
#include <optional>
#include <string>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/remoting_transport/parts.hpp>

namespace rmq::detail::remoting_ops {

/// nullopt on QUERY_NOT_FOUND.
std::optional<std::int64_t>
query_consumer_offset(TransportParts& parts, const std::string& group, const MessageQueue& mq);

/// Two-way, so failures surface.
void update_consumer_offset(TransportParts& parts,
                            const std::string& group,
                            const MessageQueue& mq,
                            std::int64_t offset);

std::int64_t min_offset(TransportParts& parts, const MessageQueue& mq);

std::int64_t max_offset(TransportParts& parts, const MessageQueue& mq);

std::int64_t search_offset(TransportParts& parts, const MessageQueue& mq, std::int64_t timestamp);

}  // namespace rmq::detail::remoting_ops

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/offsets.ipp>
#endif
