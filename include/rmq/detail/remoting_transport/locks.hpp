#pragma once

/// @file detail/remoting_transport/locks.hpp
/// LOCK_BATCH_MQ and UNLOCK_BATCH_MQ (orderly consumption): one request per broker master.

#include <string>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/remoting_transport/parts.hpp>

namespace rmq::detail::remoting_ops {

/// The union of what the masters locked; throws only when every master failed.
std::vector<MessageQueue> lock_batch(TransportParts& parts,
                                     const std::string& group,
                                     const std::string& client_id,
                                     const std::vector<MessageQueue>& mqs);

/// Throws for the first master that failed.
void unlock_batch(TransportParts& parts,
                  const std::string& group,
                  const std::string& client_id,
                  const std::vector<MessageQueue>& mqs);

}  // namespace rmq::detail::remoting_ops

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/locks.ipp>
#endif
