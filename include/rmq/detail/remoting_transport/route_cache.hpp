#pragma once

/// @file detail/remoting_transport/route_cache.hpp
/// The routes the transport knows: topic -> TopicRouteData, the broker addresses merged from all of them and
/// the broker id each queue's last pull answer suggested.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/remoting/bodies/topic_route_data.hpp>

namespace rmq::detail {

/// Thread-safe route and broker-address cache.
class RouteCache {
public:
    /// The cached route of `topic`.
    std::optional<remoting::TopicRouteData> find(const std::string& topic) const;

    [[nodiscard]] bool contains(const std::string& topic) const;

    /// Caches a route and merges its broker addresses; returns the addresses seen for the first time (the
    /// brokers that must hear the heartbeats).
    std::vector<std::string> store(const std::string& topic, const remoting::TopicRouteData& data);

    /// Forgets the route of `topic` (its broker addresses stay known).
    void erase(const std::string& topic);

    /// Every cached topic.
    std::vector<std::string> topics() const;

    /// The master (id 0) address of a broker group.
    std::optional<std::string> master_address(const std::string& broker_name) const;

    /// master_address, or rmq::Error naming the broker group when no master address is known.
    std::string require_master(const std::string& broker_name) const;

    /// One address per broker of `topic`'s route that has one (the master if known), in route order; empty
    /// when the route is not cached.
    std::vector<std::string> brokers_of(const std::string& topic) const;

    /// Where a pull of `broker_name` goes: broker id `id` if known, else the master, else any; with the id
    /// chosen. rmq::Error when no address of the group is known.
    std::pair<std::string, std::int64_t> pull_address(const std::string& broker_name, std::int64_t id) const;

    /// Addresses of every known broker: masters only, or masters and slaves.
    std::vector<std::string> broker_addresses(bool masters_only) const;

    [[nodiscard]] bool is_broker_address(const std::string& addr) const;

    /// The broker id the last pull answer of `mq` suggested (0, the master, before any).
    std::int64_t suggested_broker(const MessageQueue& mq) const;

    void suggest_broker(const MessageQueue& mq, std::int64_t broker_id);

private:
    /// Caller holds mutex_.
    std::optional<std::string>
    pick_address(const std::string& broker_name, std::int64_t id, bool exact) const;

    mutable std::mutex mutex_;
    std::map<std::string, remoting::TopicRouteData> routes_;
    std::map<std::string, std::map<std::int64_t, std::string>> brokers_;
    std::map<MessageQueue, std::int64_t> suggested_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/route_cache.ipp>
#endif
