#pragma once

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/broker/subscription_groups.hpp>

namespace rmq::detail {

RMQ_DECL bool SubscriptionGroups::ensure(const std::string& group) {
    if (groups_.contains(group)) {
        return true;
    }
    if (!auto_create_) {
        return false;
    }
    groups_.insert(group);
    return true;
}

RMQ_DECL void SubscriptionGroups::require(const std::string& group) {
    if (!ensure(group)) {
        throw BrokerError(response_code::subscription_group_not_exist,
                          fmt::format("subscription group [{}] does not exist", group));
    }
}

}  // namespace rmq::detail
