#pragma once

/// @file detail/broker/send.hpp
/// SEND_MESSAGE on the embedded broker (SendMessageProcessor): which topics accept sends and the message the
/// broker stores for a producer's send.

#include <cstdint>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker/delays.hpp>

namespace rmq::detail {

/// Born host of messages sent through an in-process transport.
inline constexpr std::string_view in_process_born_host = "127.0.0.1:0";
/// BrokerConfig.brokerClusterName default, stored in the CLUSTER property of sent messages.
inline constexpr std::string_view broker_cluster_name = "DefaultCluster";
/// MessageConst.PROPERTY_CLUSTER.
inline constexpr std::string_view property_cluster = "CLUSTER";

/// Throws rmq::BrokerError for a topic no producer may send to: an illegal name (SYSTEM_ERROR), TBW102 or
/// SCHEDULE_TOPIC_XXXX (NO_PERMISSION).
void check_sendable_topic(std::string_view topic);

/// The message the broker stores for a send of `msg` to `mq` (before store stamping): flag, properties,
/// body, born time and host, and the CLUSTER property.
MessageExt make_sent_message(const Message& msg, const MessageQueue& mq, std::int64_t born_timestamp);

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/send.ipp>
#endif
