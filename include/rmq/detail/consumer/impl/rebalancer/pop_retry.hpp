#pragma once

/// @file detail/consumer/impl/rebalancer/pop_retry.hpp
/// Rebalancer's definition for the POP retry subscription of a broker-side assignment (the subscription part
/// of Java 5.x's updateMessageQueueAssignment).

#include <string>

#include <rmq/pop.hpp>
#include <rmq/subscription.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/rebalancer.hpp>

namespace rmq::detail {

/// A topic the broker now assigns only in PULL mode (switched from POP) subscribes its POP retry topic
/// `%RETRY%<group>_<topic>`, so the queue table pulls what the POP side left there (redeliveries of
/// unacked messages) and the heartbeat reports it; a topic assigned only in POP mode unsubscribes it (the
/// broker's POP with queue id -1 reads that topic itself). A mixed or empty answer changes nothing, nor does
/// a retry topic. Unlike Java, which puts a new SubscriptionData at every such rebalance, an existing one is
/// kept: a new sub_version each time would run the pulls ahead of the broker's copy (SUBSCRIPTION_NOT_LATEST)
/// until the next heartbeat.
template <class T>
void Rebalancer<T>::follow_pop_retry_subscription(const std::string& topic, bool any_pull, bool any_pop) {
    if (is_retry_topic(topic) || any_pull == any_pop) {
        return;
    }
    const auto retry = pop_retry_topic(topic, s_.group);
    if (any_pop) {
        s_.subscriptions.erase(retry);
        return;
    }
    if (s_.subscriptions.find(retry)) {
        return;
    }
    auto sd = parse_subscription(retry, sub_all);
    sd.sub_version = s_.clock->wall_millis();
    s_.subscriptions.put(std::move(sd));
}

}  // namespace rmq::detail
