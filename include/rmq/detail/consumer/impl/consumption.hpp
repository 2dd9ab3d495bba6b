#pragma once

/// @file detail/consumer/impl/consumption.hpp
/// Consumption's definitions.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <rmq/topic.hpp>

#include <rmq/detail/consumer/consumption.hpp>
#include <rmq/detail/consumer/queue_access.hpp>

namespace rmq::detail {

/// Messages of a call begin: MIN_OFFSET/MAX_OFFSET when the pull left them unstamped, the retry-topic reset
/// (Java's resetRetryAndNamespace), CONSUME_START_TIME and the start the expiry sweep reads (under the
/// cache's lock, see ProcessQueue::begin_consume); then the hooks and the listener.
template <class T>
auto Consumption<T>::consume(const ConsumeQueue& q,
                             std::span<MessageExt> msgs,
                             Context& ctx,
                             const std::optional<PullOffsets>& unstamped)
    -> std::optional<ListenerCall<Status>> {
    ProcessQueue& pq = QueueAccess::cache(q);
    // Under a queue lock the release waits for running calls; a call never starts on a dropped queue.
    const bool counted = Order::requires_queue_lock && s_.clustering;
    if (counted ? !pq.begin_listener_call() : pq.dropped()) {
        return std::nullopt;
    }

    const auto end_call = [](ProcessQueue* counted_pq) {
        if (counted_pq != nullptr) {
            counted_pq->end_listener_call();
        }
    };
    const std::unique_ptr<ProcessQueue, decltype(end_call)> end{counted ? &pq : nullptr, end_call};

    pq.begin_consume(msgs, s_.clock->wall_millis(), [&](std::span<MessageExt> batch) {
        if (unstamped) {
            unstamped->stamp(batch);
        }
        reset_retry_topic(batch);
    });
    const std::span<const MessageExt> view(msgs);
    run_hook(s_.hooks.before, "before", q.mq(), view);
    auto traced = s_.tracer ? s_.tracer->before(view) : nullptr;
    const std::int64_t begin = s_.clock->steady_millis();
    std::optional<Status> status = invoke_listener(q.mq(), view, ctx);
    const std::int64_t rt = s_.clock->steady_millis() - begin;
    ListenerCall<Status> call{status.value_or(Order::failure_status), status.has_value(), rt};
    if (s_.tracer) {
        s_.tracer->after(std::move(traced), Order::is_success(call.status), return_type(call), view.size());
    }
    if (s_.hooks.after) {
        try {
            s_.hooks.after(q.mq(), view, Order::is_success(call.status));
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn, "consume hook (after) failed: {}", e.what());
        }
    }
    s_.stats.record_consume_rt(q.mq().topic, rt);
    return call;
}

/// Java's ConsumeReturnType of a listener call, a SubAfter record's context code.
template <class T>
ConsumeReturnType Consumption<T>::return_type(const ListenerCall<Status>& call) const {
    return trace::consume_return_type(
        call.answered, Order::is_success(call.status), call.rt_millis, s_.config.consume_timeout);
}

template <class T>
template <class Hook>
void Consumption<T>::run_hook(const Hook& hook,
                              const char* which,
                              const MessageQueue& mq,
                              std::span<const MessageExt> msgs) const {
    if (hook) {
        try {
            hook(mq, msgs);
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn, "consume hook ({}) failed: {}", which, e.what());
        }
    }
}

template <class T>
auto Consumption<T>::invoke_listener(const MessageQueue& mq, std::span<const MessageExt> msgs, Context& ctx)
    -> std::optional<Status> {
    try {
        return s_.listener(msgs, ctx);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: listener threw for {}: {}", s_.group, mq, e.what());
    } catch (...) {
        log_line(LogLevel::Warn, "group [{}]: listener threw for {}", s_.group, mq);
    }
    return std::nullopt;
}

/// Messages that came through %RETRY%group show their original topic.
template <class T>
void Consumption<T>::reset_retry_topic(std::span<MessageExt> msgs) const {
    std::string retry;  // built only when a message came through a retry topic (rare, and a heap string)
    for (auto& msg : msgs) {
        const auto original = msg.property_view(property::retry_topic);
        if (original.empty()) {
            continue;
        }
        if (retry.empty()) {
            retry = retry_topic(s_.group);
        }
        if (msg.topic() == retry) {
            msg.set_topic(std::string(original));
        }
    }
}

/// Java's processConsumeResult (concurrent), for any policy that reports "these succeeded, those failed".
template <class T>
void Consumption<T>::settle(const ConsumeQueue& q, MessageBatch batch, std::size_t acked, int delay_level) {
    ProcessQueue& pq = QueueAccess::cache(q);
    const std::span<const MessageExt> msgs = batch.messages();
    acked = std::min(acked, msgs.size());
    if (pq.dropped() || msgs.empty()) {
        retire(std::move(batch));
        return;  // the queue moved on (rebalance or shutdown): no send-back, no offset change
    }
    record_outcome(
        q.mq().topic, static_cast<std::int64_t>(acked), static_cast<std::int64_t>(msgs.size() - acked));
    // Everything leaves the cache but the failed messages whose send-back failed too (consumed here again).
    std::vector<std::int64_t> done;
    done.reserve(msgs.size());
    std::vector<MessageExt> back_failed;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
        const MessageExt& msg = msgs[i];
        if (i >= acked && !s_.clustering) {
            log_line(LogLevel::Warn,
                     "group [{}]: broadcasting, message {} of {} failed and is dropped",
                     s_.group,
                     msg.msg_id(),
                     q.mq());
        } else if (i >= acked && pq.contains_message(msg.queue_offset()) &&
                   !sender_.send_back(msg, delay_level)) {
            // (not cached any more: the expiry sweep sent it back already.) A copy: the batch is shared.
            back_failed.push_back(msg);
            back_failed.back().set_reconsume_times(msg.reconsume_times() + 1);
            continue;
        }
        done.push_back(msg.queue_offset());
    }
    if (!back_failed.empty()) {
        s_.schedule(local_retry_delay_millis, [this, q, retry = MessageBatch(std::move(back_failed))] {
            if (!q.dropped()) {
                service_.on_messages(q, retry);
            }
        });
    }
    ack(q, done);
    retire(std::move(batch));
}

/// CONSUME_OK_TPS / CONSUME_FAILED_TPS; zero counts are not recorded.
template <class T>
void Consumption<T>::record_outcome(std::string_view topic, std::int64_t ok, std::int64_t failed) {
    if (ok > 0) {
        s_.stats.record_consume_ok(topic, ok);
    }
    if (failed > 0) {
        s_.stats.record_consume_failed(topic, failed);
    }
}

template <class T>
void Consumption<T>::ack(const ConsumeQueue& q, std::span<const std::int64_t> offsets) {
    ProcessQueue& pq = QueueAccess::cache(q);
    if (offsets.empty() || pq.dropped()) {
        return;
    }
    const std::int64_t offset = pq.remove_messages(offsets);
    if (offset >= 0 && !pq.dropped()) {
        committer_.commit(q.mq(), offset, true);
    }
}

template <class T>
void Consumption<T>::commit_taken(const ConsumeQueue& q) {
    ProcessQueue& pq = QueueAccess::cache(q);
    const std::int64_t offset = pq.commit();
    if (offset >= 0 && !pq.dropped()) {
        committer_.commit(q.mq(), offset, false);
    }
}

/// A consume thread is done with pulled messages: the loop, which allocated them, frees them (RetiredStorage)
/// when pulls complete there (glibc's arenas: two threads freeing each other's memory take each other's
/// locks). A transport that completes pulls on its own threads leaves the freeing to the consume thread.
template <class T>
void Consumption<T>::retire(MessageBatch batch) {
    if constexpr (HasPullPostingToCaller<typename T::Transport>) {
        if (auto storage = QueueAccess::release_storage(batch)) {
            s_.retired.retire(std::move(storage));
        }
    } else {
        (void)batch;
    }
}

/// Java's cleanExpireMsg for policies without a queue lock (Java: the concurrent service), with a 1 s
/// granularity instead of consume_timeout minutes, so a message is sent back close to its own deadline.
template <class T>
void Consumption<T>::sweep_expired() {
    if (!s_.clustering) {
        return;
    }
    const std::int64_t timeout = s_.config.consume_timeout * 60 * 1000;
    for (const auto& [mq, pq] : s_.table_snapshot()) {
        if (pq->dropped()) {
            continue;
        }
        pq->clean_expired_msg(
            timeout,
            [this](const MessageExt& msg) { return sender_.send_back(msg, 3); },
            [this, &mq](const MessageExt& msg, const std::exception_ptr& /*error*/) {
                log_line(LogLevel::Warn,
                         "group [{}]: expired message {} of {} could not be sent back",
                         s_.group,
                         msg.msg_id(),
                         mq);
            });
    }
}

/// The loop's housekeeping for the data path: freeing retired messages each second, and the expiry sweep for
/// policies without a queue lock (lock renewal: QueueLocker::start_renewal).
template <class T>
void Consumption<T>::start_timers() {
    s_.scheduler.every(expiry_sweep_period_millis, expiry_sweep_period_millis, [this] {
        s_.retired.free();
        if constexpr (!Order::requires_queue_lock) {
            sweep_expired();
        }
    });
}

}  // namespace rmq::detail
