#pragma once

/// @file detail/remoting_transport/parts.hpp
/// What every client call of the transport works with: the configuration, the caller, the route cache, the
/// NameServers, the heartbeat registry and the message id generator (all owned by RemotingTransportState).

#include <rmq/transport/remoting_config.hpp>
#include <rmq/unique_id.hpp>

#include <rmq/detail/remoting_transport/caller.hpp>
#include <rmq/detail/remoting_transport/heartbeat_registry.hpp>
#include <rmq/detail/remoting_transport/name_servers.hpp>
#include <rmq/detail/remoting_transport/route_cache.hpp>

namespace rmq::detail {

struct TransportParts {
    const RemotingConfig& config;
    RemotingCaller& caller;
    RouteCache& routes;
    NameServers& name_servers;
    HeartbeatRegistry& heartbeats;
    UniqueIdGenerator& ids;
};

}  // namespace rmq::detail
