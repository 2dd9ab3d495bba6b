#pragma once

#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker/broker_state.hpp>

namespace rmq::detail {

RMQ_DECL std::optional<std::int64_t> BrokerState::query_consumer_offset(const std::string& group,
                                                                        const MessageQueue& mq) const {
    check_own_queue(mq);
    const std::lock_guard lock(mutex_);
    faults_.take(BrokerRequest::QueryConsumerOffset);
    if (const auto stored = offsets_.find(group, mq)) {
        return stored;
    }
    const QueueLog* q = store_.find_queue(mq.topic, mq.queue_id);
    const std::int64_t min = q ? q->base : 0;
    if (min <= 0) {
        return 0;
    }
    return std::nullopt;
}

RMQ_DECL std::optional<std::int64_t> BrokerState::stored_consumer_offset(const std::string& group,
                                                                         const MessageQueue& mq) const {
    const std::lock_guard lock(mutex_);
    return offsets_.find(group, mq);
}

RMQ_DECL void
BrokerState::update_consumer_offset(const std::string& group, const MessageQueue& mq, std::int64_t offset) {
    check_group(group);
    check_own_queue(mq);
    if (offset < 0) {
        throw InvalidArgument(
            fmt::format("illegal consumer offset {} for {} of group {}", offset, mq, group));
    }
    const std::lock_guard lock(mutex_);
    faults_.take(BrokerRequest::UpdateConsumerOffset);
    offsets_.store(group, mq, offset);
}

RMQ_DECL std::uint64_t BrokerState::register_handle(std::shared_ptr<NotificationSlot> slot) {
    const std::lock_guard lock(mutex_);
    return membership_.register_handle(std::move(slot));
}

RMQ_DECL void BrokerState::close_handle(std::uint64_t handle_id) {
    BrokerTasks out;
    {
        const std::lock_guard lock(mutex_);
        membership_.close_handle(handle_id, out);
        std::erase_if(pops_interrupted_, [&](const auto& entry) { return entry.first == handle_id; });
    }
    dispatch(std::move(out));
}

RMQ_DECL void BrokerState::heartbeat(const HeartbeatData& hb, std::uint64_t handle_id) {
    if (hb.client_id.empty()) {
        throw InvalidArgument("heartbeat without client id");
    }
    for (const auto& cd : hb.consumer_data_set) {
        check_group(cd.group_name);
    }
    BrokerTasks out;
    {
        const std::lock_guard lock(mutex_);
        check_running_locked();
        faults_.take(BrokerRequest::Heartbeat);
        for (const auto& cd : hb.consumer_data_set) {
            // ClientManageProcessor.heartBeat: the retry topic only when the group config exists (or is
            // auto-created); the client is registered either way.
            if (subscription_groups_.ensure(cd.group_name)) {
                store_.ensure_queue(retry_topic(cd.group_name), 0);
            }
            membership_.register_consumer(hb.client_id, cd, handle_id, clock_->steady_millis(), out);
        }
    }
    dispatch(std::move(out));
}

RMQ_DECL void BrokerState::unregister_client(const std::string& client_id,
                                             const std::string& /*producer_group*/,
                                             const std::string& consumer_group) {
    BrokerTasks out;
    {
        const std::lock_guard lock(mutex_);
        if (consumer_group.empty()) {
            return;
        }
        membership_.unregister(client_id, consumer_group, out);
    }
    dispatch(std::move(out));
}

RMQ_DECL std::vector<std::string> BrokerState::consumer_id_list(const std::string& group) const {
    const std::lock_guard lock(mutex_);
    faults_.take(BrokerRequest::ConsumerIdList);
    return membership_.consumer_ids(group);
}

RMQ_DECL std::vector<GroupMember> BrokerState::group_members(const std::string& group) const {
    const std::lock_guard lock(mutex_);
    return membership_.members(group);
}

RMQ_DECL std::optional<SubscriptionData> BrokerState::subscription(const std::string& group,
                                                                   const std::string& topic) const {
    const std::lock_guard lock(mutex_);
    if (const SubscriptionData* s = membership_.find_subscription(group, topic)) {
        return *s;
    }
    return std::nullopt;
}

RMQ_DECL std::vector<MessageQueue> BrokerState::lock_batch(const std::string& group,
                                                           const std::string& client_id,
                                                           const std::vector<MessageQueue>& mqs) {
    check_group(group);
    const std::lock_guard lock(mutex_);
    faults_.take(BrokerRequest::LockBatch);
    return locks_.lock_batch(group, client_id, mqs, clock_->steady_millis());
}

RMQ_DECL void BrokerState::unlock_batch(const std::string& group,
                                        const std::string& client_id,
                                        const std::vector<MessageQueue>& mqs) {
    const std::lock_guard lock(mutex_);
    faults_.take(BrokerRequest::UnlockBatch);
    locks_.unlock_batch(group, client_id, mqs);
}

RMQ_DECL std::optional<std::string> BrokerState::lock_owner(const std::string& group,
                                                            const MessageQueue& mq) const {
    const std::lock_guard lock(mutex_);
    return locks_.owner(group, mq, clock_->steady_millis());
}

RMQ_DECL std::uint64_t BrokerState::lock_requests(const std::string& group) const {
    const std::lock_guard lock(mutex_);
    return locks_.requests(group);
}

RMQ_DECL void BrokerState::create_subscription_group(const std::string& group) {
    check_group(group);
    const std::lock_guard lock(mutex_);
    subscription_groups_.add(group);
}

RMQ_DECL void BrokerState::inject_failure(BrokerRequest request, int code, int times) {
    const std::lock_guard lock(mutex_);
    faults_.set(request, code, times);
}

}  // namespace rmq::detail
