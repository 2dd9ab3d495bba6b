#pragma once

/// @file detail/remoting_transport/name_servers.hpp
/// GET_ROUTEINFO_BY_TOPIC over the configured NameServers: lookups that try each NameServer in turn, and the
/// periodic background refresh of every cached route.

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/protocol.hpp>
#include <rmq/remoting/bodies/topic_route_data.hpp>

#include <rmq/detail/remoting_transport/caller.hpp>
#include <rmq/detail/remoting_transport/route_cache.hpp>

namespace rmq::detail {

/// Route lookups; answers go into the RouteCache. Thread-safe.
class NameServers {
public:
    /// Called with the broker addresses a stored route named for the first time.
    using NewBrokers = std::function<void(const std::vector<std::string>& addrs)>;

    /// Throws rmq::InvalidArgument for an empty or malformed `namesrv_addr` (`host:port;host:port`).
    NameServers(RemotingCaller& caller, RouteCache& cache, std::string_view namesrv_addr);

    /// Called with a topic whose cached route a new answer changed.
    using RouteChanged = std::function<void(const std::string& topic)>;

    /// Set once, before the first lookup.
    void on_new_brokers(NewBrokers hook) { on_new_brokers_ = std::move(hook); }

    /// Set once, before the first lookup.
    void on_route_changed(RouteChanged hook) { on_route_changed_ = std::move(hook); }

    /// The cached route of `topic`, asking a NameServer when there is none.
    TopicRoute topic_route(const std::string& topic);

    /// Asks the NameServers (the next one after a failure) and caches the answer. rmq::BrokerError for an
    /// error answer (TOPIC_NOT_EXIST...); the last failure when no NameServer answered.
    remoting::TopicRouteData fetch(const std::string& topic);

    /// Asks a NameServer for every cached route; answers update the cache (a missing route keeps the old
    /// one).
    void refresh_async();

    /// `host:port` items of a `;`-separated list.
    static std::vector<std::string> split(std::string_view text);

private:
    void store(const std::string& topic, const remoting::TopicRouteData& data);
    const std::string& next_address();

    RemotingCaller& caller_;
    RouteCache& cache_;
    const std::vector<std::string> addrs_;
    std::atomic<std::size_t> index_{0};
    NewBrokers on_new_brokers_;
    RouteChanged on_route_changed_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/name_servers.ipp>
#endif
