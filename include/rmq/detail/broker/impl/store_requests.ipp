#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker/broker_state.hpp>
#include <rmq/detail/broker/send.hpp>
#include <rmq/detail/broker/send_back.hpp>
#include <rmq/detail/broker/timers.hpp>
#include <rmq/detail/wire/batch_size.hpp>

namespace rmq::detail {

RMQ_DECL void BrokerState::create_topic(std::string_view topic, std::int32_t queue_count) {
    check_topic(topic);
    if (queue_count <= 0 || queue_count > 1024) {
        throw InvalidArgument(
            fmt::format("create_topic {}: queue count {} is not in [1, 1024]", topic, queue_count));
    }
    const std::lock_guard lock(mutex_);
    store_.add_queues(std::string(topic), static_cast<std::size_t>(queue_count));
}

RMQ_DECL bool BrokerState::has_topic(std::string_view topic) const {
    const std::lock_guard lock(mutex_);
    return store_.has_topic(std::string(topic));
}

RMQ_DECL TopicRoute BrokerState::topic_route(const std::string& topic) const {
    const std::lock_guard lock(mutex_);
    faults_.take(BrokerRequest::TopicRoute);
    const auto queue_count = store_.queue_count(topic);
    if (!queue_count) {
        throw BrokerError(response_code::topic_not_exist,
                          fmt::format("No topic route info in name server for the topic: {}", topic));
    }
    TopicRoute route;
    for (std::size_t i = 0; i < *queue_count; ++i) {
        MessageQueue mq{topic, config_.broker_name, static_cast<std::int32_t>(i)};
        route.read_queues.push_back(mq);
        route.write_queues.push_back(std::move(mq));
    }
    return route;
}

RMQ_DECL void BrokerState::check_send(const Message& msg, const MessageQueue& mq) const {
    check_own_queue(mq);
    if (msg.topic() != mq.topic) {
        throw InvalidArgument(
            fmt::format("message's topic [{}] is not the queue's topic [{}]", msg.topic(), mq.topic));
    }
    check_sendable_topic(mq.topic);
    if (msg.body().size() > static_cast<std::size_t>(config_.max_message_size)) {
        throw BrokerError(response_code::message_illegal,
                          fmt::format("the message is illegal: body size {} exceeds max_message_size {}",
                                      msg.body().size(),
                                      config_.max_message_size));
    }
}

RMQ_DECL std::int32_t BrokerState::send_queue_nums_locked(const std::string& topic) {
    if (const auto count = store_.queue_count(topic)) {
        return static_cast<std::int32_t>(*count);
    }
    if (!config_.auto_create_topic_enable) {
        throw BrokerError(response_code::topic_not_exist,
                          fmt::format("topic[{}] not exist, apply first please!", topic));
    }
    store_.add_queues(topic, static_cast<std::size_t>(config_.default_topic_queue_nums));
    return config_.default_topic_queue_nums;
}

RMQ_DECL void BrokerState::check_queue_id_locked(const MessageQueue& mq) {
    const std::int32_t queue_nums = send_queue_nums_locked(mq.topic);
    if (mq.queue_id < 0 || mq.queue_id >= queue_nums) {
        throw BrokerError(response_code::system_error,
                          fmt::format("request queueId[{}] is illegal, Topic :{} TopicConfig: "
                                      "writeQueueNums {} Producer: {}",
                                      mq.queue_id,
                                      mq.topic,
                                      queue_nums,
                                      in_process_born_host));
    }
}

RMQ_DECL SendResult BrokerState::send(const Message& msg, const MessageQueue& mq) {
    check_send(msg, mq);
    BrokerTasks out;
    SendResult result;
    {
        const std::lock_guard lock(mutex_);
        check_running_locked();
        faults_.take(BrokerRequest::Send);
        check_queue_id_locked(mq);
        MessageExt inner = make_sent_message(msg, mq, clock_->wall_millis());
        std::shared_ptr<const MessageExt> stored;
        if (is_half_message(inner)) {
            stored = store_half_locked(std::move(inner), out);
        } else {
            // HookUtils.handleScheduleMessage: a timer is checked (and may be refused) before anything is
            // stored.
            std::optional<DelaySchedule::Wait> timer;
            if (const auto due = timer_due(inner, clock_->wall_millis(), config_)) {
                timer = redirect_timer(inner, *due, *clock_);
            }
            if (is_retry_topic(mq.topic) && apply_retry_topic_send(inner, config_.retry_max_times)) {
                store_.ensure_queue(inner.topic(), 0);
            }
            stored = store_locked(std::move(inner), out, true, timer);
        }
        result.transaction_id = std::string(stored->property_view(property::uniq_client_message_id_keyidx));
        result.status = SendStatus::SendOk;
        result.msg_id = stored->msg_id();
        result.offset_msg_id = stored->offset_msg_id();
        result.message_queue = mq;
        result.queue_offset = stored->queue_offset();
    }
    dispatch(std::move(out));
    return result;
}

RMQ_DECL void BrokerState::check_send_batch(std::span<const Message> msgs, const MessageQueue& mq) const {
    check_own_queue(mq);
    check_sendable_topic(mq.topic);
    if (msgs.empty()) {
        throw BrokerError(response_code::message_illegal, "the batch is empty");
    }
    if (is_retry_topic(mq.topic)) {
        throw BrokerError(response_code::message_illegal,
                          "[BATCH] Sending Message to retry topic is forbidden");
    }
    for (const auto& m : msgs) {
        if (m.topic() != mq.topic) {
            throw InvalidArgument(
                fmt::format("message's topic [{}] is not the queue's topic [{}]", m.topic(), mq.topic));
        }
        if (m.delay_time_level() > 0 || m.is_timer_message()) {
            throw BrokerError(response_code::message_illegal,
                              "the message is illegal: a batch cannot carry a delay level or a timer");
        }
    }
    if (const auto size = batch_body_size(msgs); size > static_cast<std::size_t>(config_.max_message_size)) {
        throw BrokerError(
            response_code::message_illegal,
            fmt::format("the message is illegal: batch body size {} exceeds max_message_size {}",
                        size,
                        config_.max_message_size));
    }
}

RMQ_DECL SendResult BrokerState::send_batch(std::span<const Message> msgs, const MessageQueue& mq) {
    check_send_batch(msgs, mq);
    BrokerTasks out;
    SendResult result;
    result.status = SendStatus::SendOk;
    result.message_queue = mq;
    {
        const std::lock_guard lock(mutex_);
        check_running_locked();
        faults_.take(BrokerRequest::Send);
        check_queue_id_locked(mq);
        const std::int64_t born = clock_->wall_millis();
        for (std::size_t i = 0; i < msgs.size(); ++i) {
            const auto stored = store_locked(make_sent_message(msgs[i], mq, born), out, false);
            const std::string_view sep = i == 0 ? "" : ",";
            result.msg_id += fmt::format("{}{}", sep, stored->msg_id());
            result.offset_msg_id += fmt::format("{}{}", sep, stored->offset_msg_id());
            if (i == 0) {
                result.queue_offset = stored->queue_offset();
            }
        }
    }
    dispatch(std::move(out));
    return result;
}

RMQ_DECL void BrokerState::send_back(const SendBackArgs& args) {
    check_group(args.group);
    BrokerTasks out;
    {
        const std::lock_guard lock(mutex_);
        check_running_locked();
        faults_.take(BrokerRequest::SendBack);
        subscription_groups_.require(args.group);
        const MessageExt* original = store_.find_by_commit_offset(args.message.commit_log_offset());
        if (original == nullptr) {
            throw BrokerError(
                response_code::system_error,
                fmt::format("look message by offset failed, {}", args.message.commit_log_offset()));
        }
        MessageExt inner = make_send_back_message(*original, args);
        store_.ensure_queue(inner.topic(), 0);
        store_locked(std::move(inner), out);
    }
    dispatch(std::move(out));
}

RMQ_DECL std::int64_t BrokerState::min_offset(const MessageQueue& mq) const {
    check_own_queue(mq);
    const std::lock_guard lock(mutex_);
    const QueueLog* q = store_.find_queue(mq.topic, mq.queue_id);
    return q ? q->base : 0;
}

RMQ_DECL std::int64_t BrokerState::max_offset(const MessageQueue& mq) const {
    check_own_queue(mq);
    const std::lock_guard lock(mutex_);
    return store_.max_offset(mq.topic, mq.queue_id);
}

RMQ_DECL std::int64_t BrokerState::search_offset(const MessageQueue& mq, std::int64_t timestamp) const {
    check_own_queue(mq);
    const std::lock_guard lock(mutex_);
    return store_.search(mq.topic, mq.queue_id, timestamp);
}

RMQ_DECL void BrokerState::delete_messages_before(const MessageQueue& mq, std::int64_t offset) {
    check_own_queue(mq);
    const std::lock_guard lock(mutex_);
    if (!store_.delete_before(mq.topic, mq.queue_id, offset)) {
        throw InvalidArgument(fmt::format("delete_messages_before: no queue {}", mq));
    }
}

RMQ_DECL std::vector<MessageExt>
BrokerState::messages(std::string_view topic, std::int32_t queue_id, std::int64_t from) const {
    const std::lock_guard lock(mutex_);
    return store_.messages(std::string(topic), queue_id, from);
}

RMQ_DECL std::size_t BrokerState::scheduled_count() const {
    const std::lock_guard lock(mutex_);
    return delays_.count();
}

RMQ_DECL std::shared_ptr<const MessageExt> BrokerState::store_locked(
    MessageExt m, BrokerTasks& out, bool apply_delay, std::optional<DelaySchedule::Wait> timer) {
    std::int64_t tags_code = tags_code_of(m);
    std::optional<DelaySchedule::Wait> wait = timer;
    if (!wait && apply_delay) {
        wait = delays_.redirect(m, *clock_);
    }
    if (wait) {
        tags_code = wait->tags_code;
    }
    auto stored = store_.append(std::move(m), tags_code, clock_->wall_millis());
    if (wait) {
        delays_.add(wait->due, stored);
    } else {
        notify_arrival_locked(stored->topic(), stored->queue_id(), tags_code, out);
    }
    return stored;
}

RMQ_DECL void BrokerState::deliver_due_locked(BrokerTasks& out) {
    for (auto& m : delays_.take_due(clock_->steady_millis())) {
        store_locked(std::move(m), out, false);
    }
}

}  // namespace rmq::detail
