#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker/assignment.hpp>
#include <rmq/detail/broker/broker_state.hpp>

namespace rmq::detail {

/// The mode of (topic, group): set by SET_MESSAGE_REQUEST_MODE, else PULL for a retry topic and the
/// configured default otherwise (QueryAssignmentProcessor.queryAssignment).
RMQ_DECL SetMessageRequestModeArgs BrokerState::request_mode_locked(const std::string& topic,
                                                                    const std::string& group) const {
    if (const auto it = request_modes_.find({topic, group}); it != request_modes_.end()) {
        return it->second;
    }
    SetMessageRequestModeArgs mode{.topic = topic, .consumer_group = group};
    mode.mode = is_retry_topic(topic) ? MessageRequestMode::Pull : config_.default_message_request_mode;
    if (mode.mode == MessageRequestMode::Pop) {
        mode.pop_share_queue_num = config_.default_pop_share_queue_num;
    }
    return mode;
}

/// QueryAssignmentProcessor.doLoadBalance: the queues of `args.topic` (sorted) given to the member, or
/// nullopt for no answer (unknown topic, no member, unknown strategy).
RMQ_DECL std::optional<std::vector<MessageQueue>>
BrokerState::assigned_queues_locked(const QueryAssignmentArgs& args,
                                    const SetMessageRequestModeArgs& mode) const {
    const auto count = store_.queue_count(args.topic);
    if (!count) {
        return std::nullopt;
    }
    std::vector<MessageQueue> mq_all;
    for (std::size_t i = 0; i < *count; ++i) {
        mq_all.push_back(MessageQueue{args.topic, config_.broker_name, static_cast<std::int32_t>(i)});
    }
    if (args.message_model == MessageModel::Broadcasting || !config_.server_load_balancer_enable) {
        return mq_all;
    }
    std::vector<std::string> cid_all;
    for (const auto& m : membership_.members(args.consumer_group)) {
        cid_all.push_back(m.client_id);
    }
    std::sort(cid_all.begin(), cid_all.end());
    return assign_queues(args.strategy_name, args.consumer_group, args.client_id, mq_all, cid_all, mode);
}

RMQ_DECL std::optional<std::vector<MessageQueueAssignment>>
BrokerState::query_assignment(const QueryAssignmentArgs& args) const {
    const std::lock_guard lock(mutex_);
    faults_.take(BrokerRequest::QueryAssignment);
    const auto mode = request_mode_locked(args.topic, args.consumer_group);
    const auto queues = assigned_queues_locked(args, mode);
    if (!queues) {
        return std::nullopt;
    }
    std::vector<MessageQueueAssignment> out;
    out.reserve(queues->size());
    for (const auto& mq : *queues) {
        out.push_back(MessageQueueAssignment{.message_queue = mq, .mode = mode.mode, .attachments = {}});
    }
    return out;
}

RMQ_DECL void BrokerState::set_message_request_mode(const SetMessageRequestModeArgs& args) {
    const std::lock_guard lock(mutex_);
    faults_.take(BrokerRequest::SetMessageRequestMode);
    if (is_retry_topic(args.topic)) {
        throw AccessDenied(response_code::no_permission, "retry topic is not allowed to set mode");
    }
    if (!store_.queue_count(args.topic)) {
        throw BrokerError(response_code::topic_not_exist, fmt::format("topic[{}] not exist", args.topic));
    }
    request_modes_.insert_or_assign(std::make_pair(args.topic, args.consumer_group), args);
}

}  // namespace rmq::detail
