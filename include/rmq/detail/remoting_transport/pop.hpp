#pragma once

/// @file detail/remoting_transport/pop.hpp
/// POP_MESSAGE, ACK_MESSAGE, BATCH_ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME (5.x), each on the master of
/// the broker the pop names or the receipt says, with a JSON header (their codes do not fit the binary one).

#include <string>

#include <rmq/config.hpp>
#include <rmq/pop.hpp>

#include <rmq/detail/remoting_transport/parts.hpp>
#include <rmq/detail/remoting_transport/pop_waits.hpp>

namespace rmq::detail::remoting_ops {

/// Synchronous; the request waits poll time + the api timeout, or until `waits` interrupts its group (then
/// nothing found). rmq::PopUnsupported on a 4.x broker.
PopResult pop_message(TransportParts& parts, PopWaits& waits, const PopArgs& args);

/// Asynchronous (rmq::HasAsyncPop): nobody waits; `done` runs on the io thread with the decoded answer or the
/// failure (rmq::PopUnsupported on a 4.x broker), on the caller's thread before return when nothing could be
/// sent (no route) or `waits` has the group interrupted (then nothing found).
void pop_message(TransportParts& parts, PopWaits& waits, const PopArgs& args, PopCompletion done);

void ack_message(TransportParts& parts, const AckArgs& args);

/// Asynchronous: throws before sending (no route, a malformed receipt); `done` runs on the io thread.
void ack_message(TransportParts& parts, const AckArgs& args, AckCompletion done);

/// BATCH_ACK_MESSAGE of receipts of one broker, to its master (no header, as Java's client: the body names
/// the broker). Throws rmq::InvalidArgument before sending for receipts of several brokers or a malformed
/// one.
void batch_ack_message(TransportParts& parts, const BatchAckArgs& args);

/// Asynchronous: throws before sending (bad receipts, no route); `done` runs on the io thread.
void batch_ack_message(TransportParts& parts, const BatchAckArgs& args, AckCompletion done);

/// The new receipt.
std::string change_invisible_time(TransportParts& parts, const ChangeInvisibleTimeArgs& args);

}  // namespace rmq::detail::remoting_ops

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/pop.ipp>
#endif
