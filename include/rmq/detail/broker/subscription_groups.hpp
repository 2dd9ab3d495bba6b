#pragma once

/// @file detail/broker/subscription_groups.hpp
/// The consumer groups the embedded broker knows (SubscriptionGroupManager); an unknown group is created on
/// first use when BrokerConfig::auto_create_subscription_group is on.

#include <set>
#include <string>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/protocol.hpp>

namespace rmq::detail {

class SubscriptionGroups {
public:
    explicit SubscriptionGroups(bool auto_create) noexcept
        : auto_create_(auto_create) {}

    /// Registers a group (what an admin does when auto-creation is off).
    void add(const std::string& group) { groups_.insert(group); }

    /// Whether the group exists now, creating it first when auto-creation is on.
    bool ensure(const std::string& group);

    /// ensure(), or throws rmq::BrokerError(SUBSCRIPTION_GROUP_NOT_EXIST).
    void require(const std::string& group);

private:
    bool auto_create_;
    std::set<std::string> groups_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/subscription_groups.ipp>
#endif
