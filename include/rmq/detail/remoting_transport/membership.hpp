#pragma once

/// @file detail/remoting_transport/membership.hpp
/// HEART_BEAT, UNREGISTER_CLIENT and GET_CONSUMER_LIST_BY_GROUP.

#include <string>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/remoting_transport/parts.hpp>

namespace rmq::detail::remoting_ops {

/// HEART_BEAT to every known broker (consumers: masters and slaves; producers: masters) after looking up the
/// routes of the subscribed topics; remembered for re-sending. Throws only when every broker failed.
void heartbeat(TransportParts& parts, const HeartbeatData& hb);

/// Re-sends every remembered heartbeat to `addr` without waiting (failures are logged).
void send_heartbeats_async(TransportParts& parts, const std::string& addr);

/// UNREGISTER_CLIENT to every known broker (empty group names are left out); failures are logged.
void unregister_client(TransportParts& parts,
                       const std::string& client_id,
                       const std::string& producer_group,
                       const std::string& consumer_group);

/// GET_CONSUMER_LIST_BY_GROUP on every broker of `topic`: the union of the answers; throws only when none
/// answered.
std::vector<std::string>
consumer_id_list(TransportParts& parts, const std::string& topic, const std::string& group);

}  // namespace rmq::detail::remoting_ops

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/membership.ipp>
#endif
