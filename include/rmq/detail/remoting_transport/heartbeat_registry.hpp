#pragma once

/// @file detail/remoting_transport/heartbeat_registry.hpp
/// The heartbeats the transport has sent, merged per client id: what it re-sends to a broker after a
/// reconnect and periodically, and what it knows of its own producer and consumer groups.

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/protocol.hpp>
#include <rmq/remoting/command.hpp>

namespace rmq::detail {

/// Thread-safe.
class HeartbeatRegistry {
public:
    /// Merges `hb` into the stored heartbeat of its client id (a consumer group replaces its older data).
    void remember(const HeartbeatData& hb);

    /// Drops one producer and one consumer group of `client_id` (and the client once it has none).
    void forget(const std::string& client_id,
                const std::string& producer_group,
                const std::string& consumer_group);

    /// One HEART_BEAT request per remembered client.
    std::vector<remoting::Command> commands() const;

    /// The first producer group any remembered client registered.
    std::optional<std::string> first_producer_group() const;

    /// Whether any remembered client has a consumer group.
    [[nodiscard]] bool has_consumers() const;

    /// The remembered data of consumer group `group`.
    std::optional<ConsumerData> consumer(const std::string& group) const;

private:
    mutable std::mutex mutex_;
    std::map<std::string, HeartbeatData> heartbeats_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/heartbeat_registry.ipp>
#endif
