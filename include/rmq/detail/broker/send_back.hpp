#pragma once

/// @file detail/broker/send_back.hpp
/// Send-back, retry topics and the dead-letter queue on the embedded broker: the message
/// CONSUMER_SEND_MSG_BACK stores (to %RETRY%group with a delay level, or to %DLQ%group), and the retry/DLQ
/// rule of a plain send to a %RETRY% topic.

#include <cstdint>

#include <rmq/config.hpp>
#include <rmq/message.hpp>
#include <rmq/protocol.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker/store.hpp>

namespace rmq::detail {

/// SendMessageProcessor.asyncConsumerSendMsgBack (4.9.8): the message a send-back of `original` stores.
/// RETRY_TOPIC is set when absent, ORIGIN_MESSAGE_ID keeps the first offset id, WAIT=false, reconsume times
/// + 1. Level 0 becomes 3 + reconsume times; reconsume times >= max or a level < 0 go to %DLQ%group queue 0
/// with no delay; otherwise %RETRY%group queue 0 with the level. The caller creates that queue.
MessageExt make_send_back_message(const MessageExt& original, const SendBackArgs& args);

/// SendMessageProcessor for a send to a %RETRY% topic: RECONSUME_TIME / MAX_RECONSUME_TIMES move from the
/// properties into the message (the producer puts them in the request header); at the limit
/// (handleRetryAndDLQ) the message goes to %DLQ%group queue 0. Returns true then (the caller creates that
/// queue). `retry_max_times` is the limit when MAX_RECONSUME_TIMES is absent.
bool apply_retry_topic_send(MessageExt& inner, std::int32_t retry_max_times);

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/send_back.ipp>
#endif
