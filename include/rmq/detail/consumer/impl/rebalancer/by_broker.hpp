#pragma once

/// @file detail/consumer/impl/rebalancer/by_broker.hpp
/// Rebalancer's definitions for broker-side assignment (rmq::BrokerAllocatePolicy, Java 5.x's
/// getRebalanceResultFromBroker and updateMessageQueueAssignment): the broker names this member's queues,
/// PULL ones go to the queue table, POP ones to on_pop_assignment, and the mix decides the POP retry
/// subscription (pop_retry.hpp).

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <rmq/assignment.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/log.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/rebalancer.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

/// No answer (a failed query, a 4.x broker, nullopt) keeps the current assignment, as Java does.
template <class T>
void Rebalancer<T>::rebalance_by_broker(const std::string& topic) {
    const auto assignments = query_assignment(topic);
    if (!assignments) {
        return;
    }
    std::vector<MessageQueue> pull_queues;
    std::vector<MessageQueue> pop_queues;
    for (const auto& a : *assignments) {
        (a.mode == MessageRequestMode::Pop ? pop_queues : pull_queues).push_back(a.message_queue);
    }
    std::sort(pull_queues.begin(), pull_queues.end());
    std::sort(pop_queues.begin(), pop_queues.end());
    follow_pop_retry_subscription(topic, !pull_queues.empty(), !pop_queues.empty());
    on_pop_assignment(topic, pop_queues);
    if (update_process_queue_table(topic, pull_queues)) {
        message_queue_changed();
    }
}

/// QUERY_ASSIGNMENT for this member with the policy's strategy name; nullopt (logged, except for the retry
/// topic, which a broker may not know yet) when there is no usable answer.
template <class T>
std::optional<std::vector<MessageQueueAssignment>> Rebalancer<T>::query_assignment(const std::string& topic) {
    if constexpr (HasAssignment<typename T::Transport>) {
        const QueryAssignmentArgs args{.topic = topic,
                                       .consumer_group = s_.group,
                                       .client_id = s_.client_id,
                                       .strategy_name = std::string(allocate_.broker_strategy_name()),
                                       .message_model = MessageModel::Clustering};
        const auto key = fmt::format("query assignment {} {}", s_.group, topic);
        try {
            auto got = s_.transport.query_assignment(args);
            if (!got && !is_retry_topic(topic)) {
                log_repeated(
                    LogLevel::Warn,
                    key,
                    "group [{}]: the broker gave no assignment of {} (strategy \"{}\" unknown to it, "
                    "topic unknown or no member): keeping the current queues",
                    s_.group,
                    topic,
                    args.strategy_name);
            }
            return got;
        } catch (const std::exception& e) {
            const bool refused = dynamic_cast<const AssignmentUnsupported*>(&e) != nullptr;
            if (refused || !is_retry_topic(topic)) {
                log_repeated(refused ? LogLevel::Error : LogLevel::Warn,
                             key,
                             "group [{}]: QUERY_ASSIGNMENT of {} failed, keeping the current queues: {}",
                             s_.group,
                             topic,
                             e.what());
            }
            return std::nullopt;
        }
    } else {
        (void)topic;
        return std::nullopt;
    }
}

/// The POP queues go to the core's POP mode (PopConsumer::update_pop_queues), which starts and stops their
/// pop loops; a consumer that cannot consume by POP (no sink) reports them once per topic and consumes
/// nothing.
template <class T>
void Rebalancer<T>::on_pop_assignment(const std::string& topic, const std::vector<MessageQueue>& pop_queues) {
    if (pop_sink_) {
        pop_sink_(topic, pop_queues);
        return;
    }
    if (pop_queues.empty() || !pop_assignment_reported_.insert(topic).second) {
        return;
    }
    log_line(LogLevel::Error,
             "group [{}]: the broker assigned {} queue(s) of {} in POP mode (mqadmin setConsumeMode or the "
             "broker's defaultMessageRequestMode); this consumer cannot consume by POP (it needs "
             "rmq::Concurrently and a transport with POP): nothing is consumed from them",
             s_.group,
             pop_queues.size(),
             topic);
}

}  // namespace rmq::detail
