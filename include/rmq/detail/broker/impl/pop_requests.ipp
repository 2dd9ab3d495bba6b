#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker/broker_state.hpp>
#include <rmq/detail/broker/pop.hpp>
#include <rmq/detail/broker/pull.hpp>

namespace rmq::detail {

/// The queues a pop visits: with queue id -1 the group's pop retry queue first (redeliveries are not
/// starved by new messages), then every queue of the topic from a rotating start; else the one queue.
inline std::vector<MessageQueue> pop_queues(const PopArgs& a,
                                            const std::string& broker_name,
                                            std::size_t queue_count,
                                            bool has_retry,
                                            std::size_t rotation) {
    std::vector<MessageQueue> out;
    if (a.queue_id >= 0) {
        out.push_back(MessageQueue{a.topic, broker_name, a.queue_id});
        return out;
    }
    if (has_retry) {
        out.push_back(MessageQueue{pop_retry_topic(a.topic, a.consumer_group), broker_name, 0});
    }
    for (std::size_t i = 0; i < queue_count; ++i) {
        const auto id = static_cast<std::int32_t>((rotation + i) % queue_count);
        out.push_back(MessageQueue{a.topic, broker_name, id});
    }
    return out;
}

RMQ_DECL std::optional<SubscriptionData> BrokerState::pop_filter_locked(const PopArgs& a) {
    subscription_groups_.require(a.consumer_group);
    const auto queue_count = store_.queue_count(a.topic);
    if (!queue_count) {
        throw BrokerError(response_code::topic_not_exist,
                          fmt::format("topic[{}] not exist, apply first please!", a.topic));
    }
    if (a.queue_id >= static_cast<std::int32_t>(*queue_count)) {
        throw BrokerError(response_code::system_error,
                          fmt::format("queueId[{}] is illegal, topic:[{}]", a.queue_id, a.topic));
    }
    PullArgs filter;
    filter.consumer_group = a.consumer_group;
    filter.mq = MessageQueue{a.topic, config_.broker_name, 0};
    filter.sys_flag = pull_sys_flag::subscription;
    filter.subscription = a.expression;
    filter.expression_type = a.expression_type;
    auto parsed = pull_subscription(filter, membership_, config_);
    if (!parsed.ok()) {
        throw BrokerError(parsed.code(), parsed.remark());
    }
    return std::optional<SubscriptionData>(std::move(parsed).value());
}

RMQ_DECL PopResult BrokerState::pop_locked(const PopArgs& a, const std::optional<SubscriptionData>& sub) {
    PopResult result;
    result.pop_time = clock_->wall_millis();
    result.invisible_time = a.invisible_time_millis;
    const auto queue_count = *store_.queue_count(a.topic);
    // An orderly pop reads the topic's queues only (5.3.3 pops no retry topic for order).
    const bool has_retry = !a.order && store_.has_topic(pop_retry_topic(a.topic, a.consumer_group));
    for (const auto& mq : pop_queues(a, config_.broker_name, queue_count, has_retry, pop_rotation_++)) {
        pop_queue_locked(a, mq, sub, result);
    }
    result.status = result.msg_found_list.empty() ? PopStatus::PollingNotFound : PopStatus::Found;
    if (!result.msg_found_list.empty()) {
        dispatcher_.wake_locked();  // a new invisibility deadline
    }
    return result;
}

RMQ_DECL void BrokerState::pop_queue_locked(const PopArgs& a,
                                            const MessageQueue& mq,
                                            const std::optional<SubscriptionData>& sub,
                                            PopResult& result) {
    if (a.order) {
        pop_queue_orderly_locked(a, mq, sub, result);
        return;
    }
    const QueueLog* q = store_.find_queue(mq.topic, mq.queue_id);
    if (q == nullptr) {
        return;
    }
    // The pop offset is the group's consumer offset (Java commits it at once; check points keep the rest).
    std::int64_t offset = pop_offset_locked(a, mq, *q);
    const auto wanted = static_cast<std::int32_t>(a.max_msg_nums - result.msg_found_list.size());
    if (wanted > 0 && offset < q->next) {
        PullArgs scan;
        scan.consumer_group = a.consumer_group;
        scan.mq = mq;
        scan.queue_offset = offset;
        scan.max_msg_nums = wanted;
        int code = response_code::success;
        PullResult found =
            get_message(*q, scan, is_retry_topic(mq.topic) ? std::nullopt : sub, config_, code);
        const std::int64_t steady = clock_->steady_millis();
        for (auto& m : found.msg_found_list) {
            PopCheckPoint ck{a.consumer_group,
                             mq.topic,
                             a.topic,
                             mq.queue_id,
                             m.queue_offset(),
                             result.pop_time,
                             a.invisible_time_millis,
                             steady + a.invisible_time_millis};
            // The check point starts where the pop began reading the queue (Java's startOffsetInfo).
            const PopReceipt receipt{offset,
                                     result.pop_time,
                                     a.invisible_time_millis,
                                     0,
                                     is_retry_topic(mq.topic),
                                     config_.broker_name,
                                     mq.queue_id,
                                     m.queue_offset()};
            m.set_property(property::pop_ck, receipt.to_string());
            if (!m.has_property(property::first_pop_time)) {
                m.set_property(property::first_pop_time, fmt::format("{}", result.pop_time));
            }
            m.set_topic(a.topic);
            m.set_broker_name(config_.broker_name);
            pops_.add(std::move(ck));
            result.msg_found_list.push_back(std::move(m));
        }
        offset = found.next_begin_offset;
        offsets_.store(a.consumer_group, mq, offset);
    }
    result.rest_num += q->next - offset;
}

RMQ_DECL std::int64_t
BrokerState::pop_offset_locked(const PopArgs& a, const MessageQueue& mq, const QueueLog& q) const {
    std::int64_t offset = 0;
    if (const auto stored = offsets_.find(a.consumer_group, mq)) {
        offset = *stored;
    } else if (a.init_mode == ConsumeInitMode::Min || q.base <= 0 || is_retry_topic(mq.topic)) {
        offset = q.base;  // MAX with the first message still in memory also starts at it
    } else {
        offset = q.next;
    }
    return std::max(offset, q.base);
}

RMQ_DECL void BrokerState::ack_message(const AckArgs& a) {
    check_group(a.consumer_group);
    const auto r = PopReceipt::parse(a.extra_info);
    BrokerTasks out;  // asynchronous pops an orderly ack unblocked
    {
        const std::lock_guard lock(mutex_);
        check_running_locked();
        faults_.take(BrokerRequest::Ack);
        if (r.order()) {
            const MessageQueue mq{r.real_topic(a.topic, a.consumer_group), config_.broker_name, r.queue_id};
            if (auto error = ack_orderly_locked(a.consumer_group, mq, r.queue_offset, r.pop_time, out)) {
                throw BrokerError(response_code::message_illegal, *error);
            }
        } else {
            // An ack of a receipt that is spent (acked, revived, replaced) changes nothing, as on a Java
            // broker.
            (void)pops_.take(a.consumer_group,
                             r.real_topic(a.topic, a.consumer_group),
                             r.queue_id,
                             r.queue_offset,
                             r.pop_time);
        }
    }
    dispatch(std::move(out));
}

RMQ_DECL void BrokerState::batch_ack_message(const BatchAckArgs& a) {
    const auto body = BatchAckRequest::of(a);
    for (const auto& ack : body.acks) {
        check_group(ack.consumer_group);
    }
    BrokerTasks out;  // asynchronous pops an orderly ack unblocked
    std::unique_lock lock(mutex_);
    check_running_locked();
    faults_.take(BrokerRequest::BatchAck);
    // AckMessageProcessor's batch path: each set bit acks start offset + bit of that pop's check point; a
    // spent one changes nothing, and the answer is SUCCESS whatever the bits found, except that an orderly
    // bit out of its batch makes it MESSAGE_ILLEGAL after the others are acked.
    std::optional<std::string> illegal;
    for (const auto& ack : body.acks) {
        const std::string topic = ack.retry == "0"   ? ack.topic
                                  : ack.retry == "2" ? pop_retry_topic_v2(ack.topic, ack.consumer_group)
                                                     : pop_retry_topic(ack.topic, ack.consumer_group);
        for (const auto bit : ack.bits) {
            if (ack.revive_queue_id == pop_order_revive_queue) {
                const MessageQueue mq{topic, config_.broker_name, ack.queue_id};
                if (auto error = ack_orderly_locked(
                        ack.consumer_group, mq, ack.start_offset + bit, ack.pop_time, out)) {
                    illegal = std::move(error);
                }
                continue;
            }
            (void)pops_.take(ack.consumer_group, topic, ack.queue_id, ack.start_offset + bit, ack.pop_time);
        }
    }
    lock.unlock();
    dispatch(std::move(out));
    if (illegal) {
        throw BrokerError(response_code::message_illegal, *illegal);
    }
}

RMQ_DECL std::string BrokerState::change_invisible_time(const ChangeInvisibleTimeArgs& a) {
    check_group(a.consumer_group);
    if (a.invisible_time_millis < 0) {
        throw BrokerError(response_code::invalid_parameter,
                          fmt::format("invisible time {} ms is negative", a.invisible_time_millis));
    }
    auto r = PopReceipt::parse(a.extra_info);
    std::unique_lock lock(mutex_);
    check_running_locked();
    faults_.take(BrokerRequest::ChangeInvisibleTime);
    if (r.order()) {
        BrokerTasks out;  // asynchronous pops the change unblocked
        auto receipt = change_invisible_time_orderly_locked(a, std::move(r), out);
        lock.unlock();
        dispatch(std::move(out));
        return receipt;
    }
    auto ck = pops_.take(
        a.consumer_group, r.real_topic(a.topic, a.consumer_group), r.queue_id, r.queue_offset, r.pop_time);
    if (!ck) {
        throw BrokerError(response_code::no_message,
                          fmt::format("the receipt of {} queue {} offset {} is spent (acked, redelivered or "
                                      "changed already)",
                                      a.topic,
                                      r.queue_id,
                                      r.queue_offset));
    }
    ck->pop_time = clock_->wall_millis();
    ck->invisible_time = a.invisible_time_millis;
    ck->deadline = clock_->steady_millis() + a.invisible_time_millis;
    r.ck_queue_offset = r.queue_offset;
    r.pop_time = ck->pop_time;
    r.invisible_time = ck->invisible_time;
    pops_.add(std::move(*ck));
    dispatcher_.wake_locked();
    return r.to_string();
}

RMQ_DECL std::size_t BrokerState::pop_in_flight(const std::string& group) const {
    const std::lock_guard lock(mutex_);
    return pops_.count(group);
}

RMQ_DECL void BrokerState::revive_locked(BrokerTasks& out) {
    for (const auto& ck : pops_.take_expired(clock_->steady_millis())) {
        const QueueLog* q = store_.find_queue(ck.topic, ck.queue_id);
        if (q == nullptr || ck.offset < q->base || ck.offset >= q->next) {
            continue;  // expired from the store meanwhile
        }
        const auto& original = *q->entries[static_cast<std::size_t>(ck.offset - q->base)].msg;
        MessageExt inner = make_revive_message(original, ck, config_.retry_max_times);
        store_.ensure_queue(inner.topic(), 0);
        store_locked(std::move(inner), out);
    }
}

}  // namespace rmq::detail
