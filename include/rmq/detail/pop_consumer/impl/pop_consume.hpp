#pragma once

/// @file detail/pop_consumer/impl/pop_consume.hpp
/// PopConsume's definitions.

#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <rmq/concepts/transport.hpp>
#include <rmq/pop.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/pop_consumer/delay.hpp>
#include <rmq/detail/pop_consumer/pop_consume.hpp>
#include <rmq/detail/trace/hooks.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

/// ConsumeRequest.run: nothing for a dropped queue or messages whose invisible time has passed (another
/// member may have them by now); the listener sees the original topic of a %RETRY%group message; the verdict
/// counts only while the queue is kept and the messages are still invisible.
template <class T>
void PopConsume<T>::run(const std::shared_ptr<PopQueue>& q, std::vector<MessageExt> msgs) {
    const auto count = static_cast<std::int64_t>(msgs.size());
    const auto done = [&q, count] {
        q->in_flight.fetch_sub(count);
    };
    if (msgs.empty() || q->dropped.load() || s_.stopping.load() || pop_timed_out(msgs.front())) {
        done();
        return;
    }
    std::vector<std::string> pop_topics;
    pop_topics.reserve(msgs.size());
    for (const auto& msg : msgs) {
        pop_topics.push_back(msg.topic());
    }
    reset_retry_topic(msgs);
    ConsumeConcurrentlyContext ctx(q->mq);
    const auto status = call_listener(q->mq, msgs, ctx);
    if (!q->dropped.load() && !pop_timed_out(msgs.front())) {
        process_result(status.value_or(ConsumeConcurrentlyStatus::ReconsumeLater), ctx, msgs, pop_topics);
    } else {
        log_line(LogLevel::Info,
                 "group [{}]: {} messages of {} done after their invisible time or their queue: not acked",
                 s_.group,
                 count,
                 q->mq);
    }
    done();
}

/// ConsumeRequest.isPopTimeout, on the consumer's clock.
template <class T>
bool PopConsume<T>::pop_timed_out(const MessageExt& first) const {
    try {
        const auto receipt = PopReceipt::of(first);
        return receipt.pop_time <= 0 || receipt.invisible_time <= 0 ||
               s_.clock->wall_millis() - receipt.pop_time >= receipt.invisible_time;
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: popped message without receipt: {}", s_.group, e.what());
        return true;
    }
}

/// The hooks, the trace records (SubBefore / SubAfter, as Java's ConsumeMessageTraceHookImpl sees a POP
/// consumer's calls) and the listener; an exception is Java's null status.
template <class T>
auto PopConsume<T>::call_listener(const MessageQueue& mq,
                                  std::span<const MessageExt> msgs,
                                  ConsumeConcurrentlyContext& ctx)
    -> std::optional<ConsumeConcurrentlyStatus> {
    if (s_.hooks.before) {
        try {
            s_.hooks.before(mq, msgs);
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn, "consume hook (before) failed: {}", e.what());
        }
    }
    auto traced = s_.tracer ? s_.tracer->before(msgs) : nullptr;
    const std::int64_t begin = s_.clock->steady_millis();
    std::optional<ConsumeConcurrentlyStatus> status;
    try {
        status = s_.listener(msgs, ctx);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: listener threw for {}: {}", s_.group, mq, e.what());
    } catch (...) {
        log_line(LogLevel::Warn, "group [{}]: listener threw for {}", s_.group, mq);
    }
    const std::int64_t rt = s_.clock->steady_millis() - begin;
    s_.stats.record_consume_rt(mq.topic, rt);
    if (s_.tracer) {
        const bool success = status == ConsumeConcurrentlyStatus::ConsumeSuccess;
        s_.tracer->after(
            std::move(traced),
            success,
            trace::consume_return_type(status.has_value(), success, rt, s_.config.consume_timeout),
            msgs.size());
    }
    if (s_.hooks.after) {
        try {
            s_.hooks.after(mq, msgs, status == ConsumeConcurrentlyStatus::ConsumeSuccess);
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn, "consume hook (after) failed: {}", e.what());
        }
    }
    return status;
}

/// Java's resetRetryAndNamespace: a message popped from %RETRY%group shows its original topic. (Messages of
/// the POP retry topic %RETRY%group_topic arrive with the subscribed topic already: rmq::to_pop_result.)
template <class T>
void PopConsume<T>::reset_retry_topic(std::span<MessageExt> msgs) const {
    const std::string retry = retry_topic(s_.group);
    const auto start = std::to_string(s_.clock->wall_millis());
    for (auto& msg : msgs) {
        const auto original = msg.property_view(property::retry_topic);
        if (!original.empty() && msg.topic() == retry) {
            msg.set_topic(std::string(original));
        }
        msg.set_property(property::consume_start_timestamp, start);
    }
}

/// processConsumeResult: messages up to the ack index are acked, the others change their invisible time.
template <class T>
void PopConsume<T>::process_result(ConsumeConcurrentlyStatus status,
                                   const ConsumeConcurrentlyContext& ctx,
                                   std::span<const MessageExt> msgs,
                                   const std::vector<std::string>& pop_topics) {
    const auto size = static_cast<int>(msgs.size());
    const int ack_index =
        status == ConsumeConcurrentlyStatus::ConsumeSuccess ? std::clamp(ctx.ack_index(), -1, size - 1) : -1;
    if (ack_index + 1 > 0) {
        s_.stats.record_consume_ok(msgs.front().topic(), ack_index + 1);
    }
    if (size - ack_index - 1 > 0) {
        s_.stats.record_consume_failed(msgs.front().topic(), size - ack_index - 1);
    }
    const std::shared_lock lock(acks_mutex_);
    if (!acks_open_) {
        return;  // shutdown stopped waiting for this call: the messages come back after their invisible time
    }
    for (int i = 0; i < size; ++i) {
        const auto index = static_cast<std::size_t>(i);
        if (i <= ack_index) {
            ack(msgs[index], pop_topics[index]);
        } else if (msgs[index].reconsume_times() >= s_.max_reconsume_times) {
            give_up_or_delay(msgs[index], pop_topics[index]);
        } else {
            retry_later(msgs[index], pop_topics[index], ctx.delay_level_when_next_consume());
        }
    }
}

/// A failed ack is only logged: the message comes back after its invisible time.
inline void
log_failed_ack(const std::string& group, const std::string& msg_id, const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn,
                 "group [{}]: ack of {} failed (it comes back after its invisible time): {}",
                 group,
                 msg_id,
                 e.what());
    } catch (...) {
        log_line(LogLevel::Warn,
                 "group [{}]: ack of {} failed (it comes back after its invisible time)",
                 group,
                 msg_id);
    }
}

/// ACK_MESSAGE, asynchronous when the transport can (Java's ackAsync: the consume thread goes on to the next
/// call).
template <class T>
void PopConsume<T>::ack(const MessageExt& msg, const std::string& pop_topic) {
    AckArgs args;
    args.consumer_group = s_.group;
    args.topic = pop_topic;
    args.extra_info = std::string(msg.property_view(property::pop_ck));
    try {
        if constexpr (HasAsyncAck<std::remove_cvref_t<decltype(s_.transport)>>) {
            // the completion may outlive this consumer: it holds copies, not the consumer's state
            s_.transport.ack_message(args,
                                     [group = s_.group, id = msg.msg_id()](const std::exception_ptr& e) {
                                         if (e) {
                                             log_failed_ack(group, id, e);
                                         }
                                     });
        } else {
            s_.transport.ack_message(args);
        }
    } catch (...) {
        log_failed_ack(s_.group, msg.msg_id(), std::current_exception());
    }
}

/// changePopInvisibleTime with the context's delay level (0: the message's reconsume times).
template <class T>
void PopConsume<T>::retry_later(const MessageExt& msg, const std::string& pop_topic, int delay_level) {
    change_invisible_time(msg, pop_topic, pop_retry_delay_millis(delay_level, msg.reconsume_times()));
}

/// checkNeedAckOrDelay: a message failed at max reconsume times is given up (acked) once older than twice
/// the last delay level, else made invisible for the level above its age. (A 5.x broker has no DLQ for
/// POP: such a message would come back forever.)
template <class T>
void PopConsume<T>::give_up_or_delay(const MessageExt& msg, const std::string& pop_topic) {
    const std::int64_t age = s_.clock->wall_millis() - msg.born_timestamp();
    const auto level = pop_exhausted_delay_level(age);
    if (!level) {
        log_line(LogLevel::Warn,
                 "group [{}]: message {} failed {} times and is {} ms old: acked (given up), as Java does",
                 s_.group,
                 msg.msg_id(),
                 msg.reconsume_times(),
                 age);
        ack(msg, pop_topic);
        return;
    }
    change_invisible_time(msg, pop_topic, pop_delay_level_seconds[static_cast<std::size_t>(*level)] * 1000);
}

template <class T>
void PopConsume<T>::change_invisible_time(const MessageExt& msg,
                                          const std::string& pop_topic,
                                          std::int64_t millis) {
    ChangeInvisibleTimeArgs args;
    args.consumer_group = s_.group;
    args.topic = pop_topic;
    args.extra_info = std::string(msg.property_view(property::pop_ck));
    args.invisible_time_millis = millis;
    try {
        (void)s_.transport.change_invisible_time(args);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn,
                 "group [{}]: change of invisible time of {} failed (it comes back after the first one): {}",
                 s_.group,
                 msg.msg_id(),
                 e.what());
    }
}

template <class T>
void PopConsume<T>::close_acks() {
    const std::unique_lock lock(acks_mutex_);
    acks_open_ = false;
}

}  // namespace rmq::detail
