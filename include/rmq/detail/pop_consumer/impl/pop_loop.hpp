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

/// One POP_MESSAGE, waited for on this thread.
template <class T>
void PopLoop<T>::pop_once() {
    const PopArgs args = pop_args_of(s_, *q_);
    const std::int64_t begin = s_.clock->steady_millis();
    PopAnswer answer;
    try {
        answer.result = s_.transport.pop_message(args);
    } catch (...) {
        answer = PopAnswer::of({}, std::current_exception());
    }
    const PopNext next = after_pop(s_, consume_, q_, args, begin, std::move(answer));
    if (next.stop) {
        halted_.store(true);
    } else if (next.pause_millis > 0) {
        pause(next.pause_millis);
    }
}

inline PopAnswer PopAnswer::of(PopResult result, const std::exception_ptr& error) {
    PopAnswer answer;
    answer.result = std::move(result);
    if (!error) {
        return answer;
    }
    answer.failed = true;
    try {
        std::rethrow_exception(error);
    } catch (const PopUnsupported& e) {
        answer.unsupported = true;
        answer.what = e.what();
    } catch (const std::exception& e) {
        answer.what = e.what();
    } catch (...) {
        answer.what = "unknown error";
    }
    return answer;
}

/// A 4.x broker (rmq::PopUnsupported) stops this queue's loop with an error in the log; another failure and
/// POLLING_FULL pause it (Java: executePopPullRequestLater); an empty answer that came back early pauses it a
/// little.
template <class T>
PopNext after_pop(ConsumerState<T>& s,
                  PopConsume<T>& consume,
                  const std::shared_ptr<PopQueue>& q,
                  const PopArgs& args,
                  std::int64_t begin,
                  PopAnswer answer) {
    if (answer.unsupported) {
        log_line(
            LogLevel::Error,
            "group [{}]: broker {} has no POP (RocketMQ 4.x?): message_request_mode Pop needs 5.x; {} is "
            "not consumed: {}",
            s.group,
            q->mq.broker_name,
            q->mq,
            answer.what);
        return PopNext{true, 0};
    }
    if (answer.failed) {
        log_line(LogLevel::Warn, "group [{}]: pop of {} failed: {}", s.group, q->mq, answer.what);
        return PopNext{false, s.config.pull_time_delay_mills_when_exception};
    }
    PopResult& result = answer.result;
    if (result.status == PopStatus::PollingFull) {
        return PopNext{false, s.config.pull_time_delay_mills_when_exception};
    }
    if (result.msg_found_list.empty()) {
        const bool early = s.clock->steady_millis() - begin < args.poll_time_millis / 2;
        return PopNext{false, early ? empty_pop_pause_millis : 0};
    }
    s.stats.record_pull_rt(q->mq.topic, s.clock->steady_millis() - begin);
    s.stats.record_pulled(q->mq.topic, static_cast<std::int64_t>(result.msg_found_list.size()));
    dispatch_popped(s, consume, q, std::move(result.msg_found_list));
    return PopNext{};
}

template <class T>
PopArgs pop_args_of(const ConsumerState<T>& s, const PopQueue& q) {
    PopArgs args;
    args.consumer_group = s.group;
    args.topic = q.mq.topic;
    args.broker_name = q.mq.broker_name;
    args.queue_id = q.mq.queue_id;
    args.max_msg_nums = s.config.pop_batch_nums;
    args.invisible_time_millis = s.config.pop_invisible_time;
    args.poll_time_millis = s.config.broker_suspend_max_time_millis;
    args.init_mode = s.config.consume_from_where == ConsumeFromWhere::FirstOffset ? ConsumeInitMode::Min
                                                                                  : ConsumeInitMode::Max;
    if (const auto sub = s.subscriptions.find(q.mq.topic)) {
        args.expression_type = sub->expression_type;
        args.expression = sub->sub_string;
    }
    return args;
}

template <class T>
void dispatch_popped(ConsumerState<T>& s,
                     PopConsume<T>& consume,
                     const std::shared_ptr<PopQueue>& q,
                     std::vector<MessageExt> msgs) {
    q->in_flight.fetch_add(static_cast<std::int64_t>(msgs.size()));
    const auto size = static_cast<std::size_t>(std::max(1, s.config.consume_message_batch_max_size));
    for (std::size_t i = 0; i < msgs.size(); i += size) {
        const auto end = std::min(msgs.size(), i + size);
        std::vector<MessageExt> batch(
            std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(i)),
            std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(end)));
        // The tasks name the consumer's boxes, not the loop, which may be let go before they run.
        auto task = [&consume, q, batch = std::move(batch)]() mutable {
            consume.run(q, std::move(batch));
        };
        s.gate->post([&s, task = std::move(task)]() mutable { s.submit(std::move(task)); });
    }
}

}  // namespace rmq::detail
