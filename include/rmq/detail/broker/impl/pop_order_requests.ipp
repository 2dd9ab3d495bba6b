#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>

#include <rmq/detail/broker/broker_state.hpp>
#include <rmq/detail/broker/pop_order.hpp>
#include <rmq/detail/broker/pull.hpp>

namespace rmq::detail {

RMQ_DECL void BrokerState::pop_queue_orderly_locked(const PopArgs& a,
                                                    const MessageQueue& mq,
                                                    const std::optional<SubscriptionData>& sub,
                                                    PopResult& result) {
    const QueueLog* q = store_.find_queue(mq.topic, mq.queue_id);
    if (q == nullptr) {
        return;
    }
    const PopOrderBatches::Key key{a.consumer_group, mq.topic, mq.queue_id};
    const std::int64_t steady = clock_->steady_millis();
    if (pop_orders_.blocked(key, steady)) {
        return;  // a batch of this queue is in flight: nothing later, and no backlog counted (5.3.3)
    }
    const std::int64_t offset = pop_offset_locked(a, mq, *q);
    offsets_.store(a.consumer_group, mq, offset);
    const auto wanted = static_cast<std::int32_t>(a.max_msg_nums - result.msg_found_list.size());
    if (wanted <= 0 || offset >= q->next) {
        result.rest_num += q->next - offset;
        return;
    }
    PullArgs scan;
    scan.consumer_group = a.consumer_group;
    scan.mq = mq;
    scan.queue_offset = offset;
    scan.max_msg_nums = wanted;
    int code = response_code::success;
    PullResult found = get_message(*q, scan, sub, config_, code);
    result.rest_num += q->next - found.next_begin_offset;
    if (found.msg_found_list.empty()) {
        offsets_.store(a.consumer_group, mq, found.next_begin_offset);  // none matched: skip them
        return;
    }
    std::vector<std::int64_t> served;
    served.reserve(found.msg_found_list.size());
    for (const auto& m : found.msg_found_list) {
        served.push_back(m.queue_offset());
    }
    // The group's consumer offset stays at the batch's start: only acks move it (ackOrderly).
    const auto counts =
        pop_orders_.update(key, result.pop_time, steady + a.invisible_time_millis, std::move(served));
    for (auto& m : found.msg_found_list) {
        const PopReceipt receipt{offset,
                                 result.pop_time,
                                 a.invisible_time_millis,
                                 pop_order_revive_queue,
                                 false,
                                 config_.broker_name,
                                 mq.queue_id,
                                 m.queue_offset()};
        m.set_property(property::pop_ck, receipt.to_string());
        if (!m.has_property(property::first_pop_time)) {
            m.set_property(property::first_pop_time, fmt::format("{}", result.pop_time));
        }
        // What a client reads from orderCountInfo: how often the message was served before.
        if (const auto count = counts.at(m.queue_offset()); count > 0) {
            m.set_reconsume_times(count);
        }
        m.set_topic(a.topic);
        m.set_broker_name(config_.broker_name);
        result.msg_found_list.push_back(std::move(m));
    }
}

RMQ_DECL std::optional<std::string> BrokerState::ack_orderly_locked(const std::string& group,
                                                                    const MessageQueue& mq,
                                                                    std::int64_t offset,
                                                                    std::int64_t pop_time,
                                                                    BrokerTasks& out) {
    if (const auto committed = offsets_.find(group, mq); committed && offset < *committed) {
        return std::nullopt;  // acked already: the group is past it
    }
    const PopOrderBatches::Key key{group, mq.topic, mq.queue_id};
    const std::int64_t next = pop_orders_.commit_and_next(key, offset, pop_time);
    if (next == -1) {
        return fmt::format(
            "offset is illegal: {} queue {} offset {} is not in the batch the group popped last",
            mq.topic,
            mq.queue_id,
            offset);
    }
    if (next >= 0) {
        offsets_.store(group, mq, next);
        if (!pop_orders_.blocked(key, clock_->steady_millis())) {
            wake_pops_locked(held_pops_.wake_queue(mq.topic, group, mq.queue_id), out);
        }
    }
    return std::nullopt;  // -2: a stale receipt (another batch was popped since) commits nothing
}

RMQ_DECL std::string BrokerState::change_invisible_time_orderly_locked(const ChangeInvisibleTimeArgs& a,
                                                                       PopReceipt r,
                                                                       BrokerTasks& out) {
    const MessageQueue mq{r.real_topic(a.topic, a.consumer_group), config_.broker_name, r.queue_id};
    if (const auto committed = offsets_.find(a.consumer_group, mq);
        committed && r.queue_offset < *committed) {
        throw BrokerError(
            response_code::no_message,
            fmt::format("{} queue {} offset {} is acked already", a.topic, r.queue_id, r.queue_offset));
    }
    const PopOrderBatches::Key key{a.consumer_group, mq.topic, mq.queue_id};
    const std::int64_t steady = clock_->steady_millis();
    pop_orders_.set_visible_at(key, r.queue_offset, r.pop_time, steady + a.invisible_time_millis);
    // The receipt keeps its pop time (the batch's identity); its invisible time reaches the new deadline.
    r.ck_queue_offset = r.queue_offset;
    r.invisible_time = clock_->wall_millis() + a.invisible_time_millis - r.pop_time;
    if (!pop_orders_.blocked(key, steady)) {
        wake_pops_locked(held_pops_.wake_queue(mq.topic, a.consumer_group, mq.queue_id), out);
    }
    dispatcher_.wake_locked();  // the block's end moved
    return r.to_string();
}

RMQ_DECL void BrokerState::wake_unblocked_orders_locked(BrokerTasks& out) {
    for (const auto& [group, topic, queue_id] : pop_orders_.take_unblocked(clock_->steady_millis())) {
        wake_pops_locked(held_pops_.wake_queue(topic, group, queue_id), out);
    }
}

}  // namespace rmq::detail
