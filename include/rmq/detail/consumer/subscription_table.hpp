#pragma once

/// @file detail/consumer/subscription_table.hpp
/// rmq::detail::SubscriptionTable: a consumer's subscriptions, topic → SubscriptionData (Java's
/// RebalanceImpl.subscriptionInner). Written by the owning thread, read by the event loop.

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/subscription.hpp>

namespace rmq::detail {

class SubscriptionTable {
public:
    /// Adds or replaces the subscription of `sd.topic`.
    void put(SubscriptionData sd) {
        const std::lock_guard lock(mutex_);
        std::string topic = sd.topic;
        subscriptions_[std::move(topic)] = std::move(sd);
    }

    void erase(std::string_view topic) {
        const std::lock_guard lock(mutex_);
        subscriptions_.erase(std::string(topic));
    }

    [[nodiscard]] std::map<std::string, SubscriptionData> copy() const {
        const std::lock_guard lock(mutex_);
        return subscriptions_;
    }

    [[nodiscard]] std::optional<SubscriptionData> find(const std::string& topic) const {
        const std::lock_guard lock(mutex_);
        const auto it = subscriptions_.find(topic);
        if (it == subscriptions_.end()) {
            return std::nullopt;
        }
        return it->second;
    }

private:
    mutable std::mutex mutex_;
    std::map<std::string, SubscriptionData> subscriptions_;
};

}  // namespace rmq::detail
