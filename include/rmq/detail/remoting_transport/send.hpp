#pragma once

/// @file detail/remoting_transport/send.hpp
/// SEND_MESSAGE_V2 and END_TRANSACTION (producers) and CONSUMER_SEND_MSG_BACK (consumers returning a message
/// for redelivery).

#include <span>

#include <rmq/config.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/remoting_transport/parts.hpp>

namespace rmq::detail::remoting_ops {

/// SEND_MESSAGE_V2 to the queue's master: UNIQ_KEY added when absent, zlib above
/// compress_msg_body_over_howmuch, SYSTEM_BUSY retried. rmq::BrokerError for other error codes.
SendResult send(TransportParts& parts, const Message& msg, const MessageQueue& mq);

/// SEND_MESSAGE_V2 without waiting: `done` gets what send() would return or throw (no SYSTEM_BUSY retry, as
/// Java's asynchronous send), on the io thread. Throws before sending as send() does.
void send_async(TransportParts& parts, const Message& msg, const MessageQueue& mq, SendCompletion done);

/// SEND_MESSAGE_V2 as a oneway request (no answer awaited).
void send_oneway(TransportParts& parts, const Message& msg, const MessageQueue& mq);

/// SEND_BATCH_MESSAGE: the messages encoded as MessageDecoder.encodeMessages (UNIQ_KEY added to those
/// without), never compressed, the header's properties without a batch UNIQ_KEY (see send.ipp); msg_id of the
/// result lists their UNIQ_KEYs comma-separated.
SendResult send_batch(TransportParts& parts, std::span<const Message> msgs, const MessageQueue& mq);

/// SEND_BATCH_MESSAGE without waiting: encoded before it returns, `done` gets what send_batch() would return
/// or throw, on the io thread.
void send_batch_async(TransportParts& parts,
                      std::span<const Message> msgs,
                      const MessageQueue& mq,
                      SendCompletion done);

/// END_TRANSACTION, oneway, to the broker that asked (a check-back's answer) or the master of the half
/// message's broker.
void end_transaction(TransportParts& parts, const EndTransactionArgs& args);

/// CONSUMER_SEND_MSG_BACK to the master of the message's broker (its store host when the broker is unnamed).
void send_back(TransportParts& parts, const SendBackArgs& args);

}  // namespace rmq::detail::remoting_ops

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/send.ipp>
#endif
