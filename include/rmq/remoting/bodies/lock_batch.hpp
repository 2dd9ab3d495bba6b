#pragma once

/// @file remoting/bodies/lock_batch.hpp
/// LOCK_BATCH_MQ / UNLOCK_BATCH_MQ bodies (Java's LockBatchRequestBody, UnlockBatchRequestBody,
/// LockBatchResponseBody).

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::remoting {

/// Java's LockBatchRequestBody / UnlockBatchRequestBody.
struct LockBatchRequestBody {
    std::string consumer_group;
    std::string client_id;
    /// 5.x: lock only on this broker (no replication in strict lock mode); written only when set.
    std::optional<bool> only_this_broker;
    std::vector<MessageQueue> mq_set;

    friend bool operator==(const LockBatchRequestBody&, const LockBatchRequestBody&) = default;
};

/// The body of UNLOCK_BATCH_MQ has the same fields.
using UnlockBatchRequestBody = LockBatchRequestBody;

/// LOCK_BATCH_MQ / UNLOCK_BATCH_MQ request body; queues in Java's HashSet order.
std::string encode_lock_batch_request(const LockBatchRequestBody& body);

/// Parses a LOCK_BATCH_MQ / UNLOCK_BATCH_MQ request body.
LockBatchRequestBody decode_lock_batch_request(std::string_view json);

/// LOCK_BATCH_MQ response body (LockBatchResponseBody): the queues actually locked.
std::string encode_lock_batch_response(std::span<const MessageQueue> locked);

/// Parses a LOCK_BATCH_MQ response body.
std::vector<MessageQueue> decode_lock_batch_response(std::string_view json);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/bodies/impl/lock_batch.ipp>
#endif
