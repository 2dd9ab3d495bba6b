#pragma once

/// @file remoting/bodies/heartbeat_data.hpp
/// The HEART_BEAT body (Java's HeartbeatData: consumer data with subscriptions, producer groups) and the Java
/// enum names it carries.

#include <string>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/protocol.hpp>

namespace rmq::remoting {

/// Java enum names.
std::string_view consume_type_name(ConsumeType t) noexcept;

std::string_view message_model_name(MessageModel m) noexcept;

std::string_view consume_from_where_name(ConsumeFromWhere w) noexcept;

/// The HEART_BEAT body. Tag and code sets are listed in Java's HashSet order; subscriptions, consumers and
/// producers in the given order.
std::string encode_heartbeat_data(const HeartbeatData& hb);

/// Parses a HEART_BEAT body (what a broker or an embedded test peer receives). Throws CodecError on
/// malformed JSON or unknown enum names.
HeartbeatData decode_heartbeat_data(std::string_view json);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/bodies/impl/heartbeat_data.ipp>
#endif
