#pragma once

/// @file detail/consumer/impl/heartbeat.hpp
/// ConsumerCore's periodic reports to brokers: the heartbeat (client id, group, subscriptions, message model)
/// and offset persistence.

#include <span>
#include <utility>
#include <vector>

#include <rmq/detail/consumer/core.hpp>

namespace rmq::detail {

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::send_heartbeat() {
    if (stopping_.load()) {
        return;
    }
    ConsumerData data;
    data.group_name = group_;
    data.consume_type = ConsumeType::ConsumePassively;
    data.message_model = config_.message_model;
    data.consume_from_where = config_.consume_from_where;
    data.unit_mode = config_.unit_mode;
    for (auto& [topic, sd] : subscriptions_.copy()) {
        data.subscription_data_set.push_back(std::move(sd));
    }
    HeartbeatData hb;
    hb.client_id = client_id_;
    hb.consumer_data_set.push_back(std::move(data));
    try {
        transport_.heartbeat(hb);
    } catch (const std::exception& e) {
        log_repeated(LogLevel::Warn,
                     fmt::format("heartbeat {}", group_),
                     "group [{}]: heartbeat failed: {}",
                     group_,
                     e.what());
    }
}

/// Whether this member may commit the queue's offset. Under a policy that holds broker locks, not once the
/// lock expired (the member was paused, or cut off from the broker): the queue may have a new owner by now,
/// and this member's older offset would rewind that owner's progress. It commits again once the lock is
/// renewed. (Java commits it regardless: from its persist task, with each pull, and when a rebalance drops
/// the queue.)
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::may_commit(const ProcessQueue& pq) const {
    if constexpr (Order::requires_queue_lock) {
        return !clustering_ || (pq.locked() && !pq.is_lock_expired());
    } else {
        return true;
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::persist_all() {
    std::vector<MessageQueue> mqs;
    for (const auto& [mq, pq] : table_snapshot()) {
        if (may_commit(*pq)) {  // else the store forgets it, like any queue it no longer persists
            mqs.push_back(mq);
        }
    }
    try {
        offset_store_.persist_all(std::span<const MessageQueue>(mqs));
    } catch (const std::exception& e) {
        log_repeated(LogLevel::Warn,
                     fmt::format("persist {}", group_),
                     "group [{}]: persisting offsets failed: {}",
                     group_,
                     e.what());
    }
}

}  // namespace rmq::detail
