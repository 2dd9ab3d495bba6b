#pragma once

/// @file detail/pop_consumer/impl/pop_loop.hpp
/// PopLoop's definitions.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <iterator>
#include <utility>

#include <rmq/error.hpp>

#include <rmq/detail/pop_consumer/pop_loop.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

template <class T>
PopLoop<T>::PopLoop(ConsumerState<T>& state, PopConsume<T>& consume, std::shared_ptr<PopQueue> q)
    : s_(state)
    , consume_(consume)
    , q_(std::move(q))
    , thread_([this] { run(); }) {}

template <class T>
PopLoop<T>::~PopLoop() {
    halt();
    if (thread_.joinable()) {
        thread_.join();
    }
}

template <class T>
void PopLoop<T>::halt() {
    {
        const std::lock_guard lock(mutex_);
        halted_.store(true);
    }
    wake_.notify_all();
}

template <class T>
void PopLoop<T>::drop() {
    q_->dropped.store(true);
    halt();
}

template <class T>
void PopLoop<T>::pause(std::int64_t millis) {
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, std::chrono::milliseconds(millis), [this] { return halted_.load(); });
}

/// executePopPullRequestImmediately, again and again: suspended and flow-controlled queues wait.
template <class T>
void PopLoop<T>::run() {
    while (!halted_.load()) {
        if (s_.paused.load()) {
            pause(s_.config.pull_time_delay_mills_when_suspend);
        } else if (q_->in_flight.load() > s_.config.pop_threshold_for_queue) {  // Java: waitAckMsgCount >
            pause(s_.config.pull_time_delay_mills_when_flow_control);
        } else {
            pop_once();
        }
    }
    finished_.store(true);
}

/// One POP_MESSAGE. A 4.x broker (rmq::PopUnsupported) stops this queue's loop with an error in the log.
template <class T>
void PopLoop<T>::pop_once() {
    const PopArgs args = pop_args();
    const std::int64_t begin = s_.clock->steady_millis();
    PopResult result;
    try {
        result = s_.transport.pop_message(args);
    } catch (const PopUnsupported& e) {
        log_line(
            LogLevel::Error,
            "group [{}]: broker {} has no POP (RocketMQ 4.x?): message_request_mode Pop needs 5.x; {} is "
            "not consumed: {}",
            s_.group,
            q_->mq.broker_name,
            q_->mq,
            e.what());
        halted_.store(true);
        return;
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: pop of {} failed: {}", s_.group, q_->mq, e.what());
        pause(s_.config.pull_time_delay_mills_when_exception);
        return;
    }
    if (result.status == PopStatus::PollingFull) {
        pause(s_.config.pull_time_delay_mills_when_exception);  // Java: executePopPullRequestLater
        return;
    }
    if (result.msg_found_list.empty()) {
        if (s_.clock->steady_millis() - begin < args.poll_time_millis / 2) {
            pause(empty_pop_pause_millis);
        }
        return;
    }
    s_.stats.record_pull_rt(q_->mq.topic, s_.clock->steady_millis() - begin);
    s_.stats.record_pulled(q_->mq.topic, static_cast<std::int64_t>(result.msg_found_list.size()));
    dispatch(std::move(result.msg_found_list));
}

/// PopMessageRequestHeader of this queue: the subscription's expression, Java's init mode (MIN only for
/// CONSUME_FROM_FIRST_OFFSET).
template <class T>
PopArgs PopLoop<T>::pop_args() const {
    PopArgs args;
    args.consumer_group = s_.group;
    args.topic = q_->mq.topic;
    args.broker_name = q_->mq.broker_name;
    args.queue_id = q_->mq.queue_id;
    args.max_msg_nums = s_.config.pop_batch_nums;
    args.invisible_time_millis = s_.config.pop_invisible_time;
    args.poll_time_millis = s_.config.broker_suspend_max_time_millis;
    args.init_mode = s_.config.consume_from_where == ConsumeFromWhere::FirstOffset ? ConsumeInitMode::Min
                                                                                   : ConsumeInitMode::Max;
    if (const auto sub = s_.subscriptions.find(q_->mq.topic)) {
        args.expression_type = sub->expression_type;
        args.expression = sub->sub_string;
    }
    return args;
}

/// submitPopConsumeRequest: batches of consume_message_batch_max_size, each a listener call on the consume
/// pool (submitted from the event loop, the pool's one producer).
template <class T>
void PopLoop<T>::dispatch(std::vector<MessageExt> msgs) {
    q_->in_flight.fetch_add(static_cast<std::int64_t>(msgs.size()));
    const auto size = static_cast<std::size_t>(std::max(1, s_.config.consume_message_batch_max_size));
    for (std::size_t i = 0; i < msgs.size(); i += size) {
        const auto end = std::min(msgs.size(), i + size);
        std::vector<MessageExt> batch(
            std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(i)),
            std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(end)));
        // The tasks name the consumer's boxes, not this loop, which may be let go before they run.
        auto task = [&consume = consume_, q = q_, batch = std::move(batch)]() mutable {
            consume.run(q, std::move(batch));
        };
        s_.gate->post([&s = s_, task = std::move(task)]() mutable { s.submit(std::move(task)); });
    }
}

}  // namespace rmq::detail
