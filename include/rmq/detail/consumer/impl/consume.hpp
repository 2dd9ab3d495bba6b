#pragma once

/// @file detail/consumer/impl/consume.hpp
/// ConsumerCore's side of a listener call, the same for every order policy: preparing the messages, the
/// hooks, the listener and its timing (consume), and what a policy's verdict does to the cache, the offsets
/// and the broker (settle, ack, the orderly take/commit family). Also the consume-timeout sweep, the broker
/// lock renewal, and the freeing of pulled messages on the loop that allocated them.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <rmq/topic.hpp>

#include <rmq/detail/consumer/core.hpp>

namespace rmq::detail {

/// Messages of a call begin: MIN_OFFSET/MAX_OFFSET when the pull left them unstamped, the retry-topic reset
/// (Java's resetRetryAndNamespace), CONSUME_START_TIME and the start the expiry sweep reads (under the
/// cache's lock, see ProcessQueue::begin_consume); then the hooks and the listener.
template <class Order, class Allocate, class OffsetStore, class Tr>
auto ConsumerCore<Order, Allocate, OffsetStore, Tr>::consume(const ConsumeQueue& q,
                                                             std::span<MessageExt> msgs,
                                                             Context& ctx,
                                                             const std::optional<PullOffsets>& unstamped)
    -> std::optional<ListenerCall<Status>> {
    ProcessQueue& pq = q.cache();
    // Under a queue lock the release waits for running calls; a call never starts on a dropped queue.
    const bool counted = Order::requires_queue_lock && clustering_;
    if (counted ? !pq.begin_listener_call() : pq.dropped()) {
        return std::nullopt;
    }

    const auto end_call = [](ProcessQueue* counted_pq) {
        if (counted_pq != nullptr) {
            counted_pq->end_listener_call();
        }
    };
    const std::unique_ptr<ProcessQueue, decltype(end_call)> end{counted ? &pq : nullptr, end_call};

    pq.begin_consume(msgs, clock_->wall_millis(), [&](std::span<MessageExt> batch) {
        if (unstamped) {
            unstamped->stamp(batch);
        }
        reset_retry_topic(batch);
    });
    const std::span<const MessageExt> view(msgs);
    run_hook(hooks_.before, "before", q.mq(), view);
    const std::int64_t begin = clock_->steady_millis();
    std::optional<Status> status = invoke_listener(q.mq(), view, ctx);
    const std::int64_t rt = clock_->steady_millis() - begin;
    ListenerCall<Status> call{status.value_or(Order::failure_status), status.has_value(), rt};
    if (hooks_.after) {
        try {
            hooks_.after(q.mq(), view, Order::is_success(call.status));
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn, "consume hook (after) failed: {}", e.what());
        }
    }
    stats_.record_consume_rt(q.mq().topic, rt);
    return call;
}

template <class Order, class Allocate, class OffsetStore, class Tr>
template <class Hook>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::run_hook(const Hook& hook,
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

template <class Order, class Allocate, class OffsetStore, class Tr>
auto ConsumerCore<Order, Allocate, OffsetStore, Tr>::invoke_listener(const MessageQueue& mq,
                                                                     std::span<const MessageExt> msgs,
                                                                     Context& ctx) -> std::optional<Status> {
    try {
        return listener_(msgs, ctx);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: listener threw for {}: {}", group_, mq, e.what());
    } catch (...) {
        log_line(LogLevel::Warn, "group [{}]: listener threw for {}", group_, mq);
    }
    return std::nullopt;
}

/// Messages that came through %RETRY%group show their original topic.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::reset_retry_topic(std::span<MessageExt> msgs) const {
    std::string retry;  // built only when a message came through a retry topic (rare, and a heap string)
    for (auto& msg : msgs) {
        const auto original = msg.property_view(property::retry_topic);
        if (original.empty()) {
            continue;
        }
        if (retry.empty()) {
            retry = retry_topic(group_);
        }
        if (msg.topic() == retry) {
            msg.set_topic(std::string(original));
        }
    }
}

/// Java's processConsumeResult (concurrent), for any policy that reports "these succeeded, those failed".
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::settle(const ConsumeQueue& q,
                                                            MessageBatch batch,
                                                            std::size_t acked,
                                                            int delay_level) {
    ProcessQueue& pq = q.cache();
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
        if (i >= acked && !clustering_) {
            log_line(LogLevel::Warn,
                     "group [{}]: broadcasting, message {} of {} failed and is dropped",
                     group_,
                     msg.msg_id(),
                     q.mq());
        } else if (i >= acked && pq.contains_message(msg.queue_offset()) && !send_back(msg, delay_level)) {
            // (not cached any more: the expiry sweep sent it back already.) A copy: the batch is shared.
            back_failed.push_back(msg);
            back_failed.back().set_reconsume_times(msg.reconsume_times() + 1);
            continue;
        }
        done.push_back(msg.queue_offset());
    }
    if (!back_failed.empty()) {
        schedule(local_retry_delay_millis, [this, q, retry = MessageBatch(std::move(back_failed))] {
            if (!q.dropped()) {
                service_.on_messages(q, retry);
            }
        });
    }
    ack(q, done);
    retire(std::move(batch));
}

/// CONSUME_OK_TPS / CONSUME_FAILED_TPS; zero counts are not recorded.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::record_outcome(std::string_view topic,
                                                                    std::int64_t ok,
                                                                    std::int64_t failed) {
    if (ok > 0) {
        stats_.record_consume_ok(topic, ok);
    }
    if (failed > 0) {
        stats_.record_consume_failed(topic, failed);
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::ack(const ConsumeQueue& q,
                                                         std::span<const std::int64_t> offsets) {
    ProcessQueue& pq = q.cache();
    if (offsets.empty() || pq.dropped()) {
        return;
    }
    const std::int64_t offset = pq.remove_messages(offsets);
    if (offset >= 0 && !pq.dropped()) {
        offset_store_.update_offset(q.mq(), offset, true);
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::commit_taken(const ConsumeQueue& q) {
    ProcessQueue& pq = q.cache();
    const std::int64_t offset = pq.commit();
    if (offset >= 0 && !pq.dropped()) {
        offset_store_.update_offset(q.mq(), offset, false);
    }
}

/// A consume thread is done with pulled messages: the loop, which allocated them, frees them (free_retired)
/// when pulls complete there (glibc's arenas: two threads freeing each other's memory take each other's
/// locks). A transport that completes pulls on its own threads leaves the freeing to the consume thread.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::retire(MessageBatch batch) {
    if constexpr (HasPullPostingToCaller<Tr>) {
        if (batch.storage_) {
            const std::lock_guard lock(retired_mutex_);
            retired_.push_back(std::move(batch.storage_));
        }
    } else {
        (void)batch;
    }
}

/// Loop thread: drops the vectors consume threads are done with (the last reference usually).
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::free_retired() {
    {
        const std::lock_guard lock(retired_mutex_);
        retired_.swap(freeing_);
    }
    freeing_.clear();  // keeps its capacity: the next swap gives the consume threads room again
}

/// Java's cleanExpireMsg for policies without a queue lock (Java: the concurrent service), with a 1 s
/// granularity instead of consume_timeout minutes, so a message is sent back close to its own deadline.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::sweep_expired() {
    if (!clustering_) {
        return;
    }
    const std::int64_t timeout = config_.consume_timeout * 60 * 1000;
    for (const auto& [mq, pq] : table_snapshot()) {
        if (pq->dropped()) {
            continue;
        }
        pq->clean_expired_msg(
            timeout,
            [this](const MessageExt& msg) { return send_back(msg, 3); },
            [this, &mq](const MessageExt& msg, const std::exception_ptr& /*error*/) {
                log_line(LogLevel::Warn,
                         "group [{}]: expired message {} of {} could not be sent back",
                         group_,
                         msg.msg_id(),
                         mq);
            });
    }
}

/// The loop's housekeeping for the data path: freeing retired messages each second, the expiry sweep for
/// policies without a queue lock, and (clustering, policies with one) lock renewal every
/// lock_renewal_interval, the first after 1 s.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::start_consume_timers() {
    scheduler_.every(expiry_sweep_period_millis, expiry_sweep_period_millis, [this] {
        free_retired();
        if constexpr (!Order::requires_queue_lock) {
            sweep_expired();
        }
    });
    if (Order::requires_queue_lock && clustering_) {
        const std::int64_t renew = config_.lock_renewal_interval;
        scheduler_.every(std::min<std::int64_t>(1000, renew), renew, [this] {
            if (!stopping_.load()) {
                lock_all();
            }
        });
    }
}

/// Java's removeUnnecessaryMessageQueue: persist the offset; under a queue lock wait up to 1 s for running
/// listener calls (none can start: the queue is dropped); ask the policy; then release the broker lock.
/// False: retried at the next rebalance.
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::remove_unnecessary_queue(
    const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq) {
    persist_dropped(mq, *pq);
    const bool locked = Order::requires_queue_lock && clustering_;
    if (locked && !wait_listener_calls(*pq)) {
        pq->inc_try_unlock_times();
        return false;
    }
    if constexpr (ServiceObservesQueueRemoved<Service>) {
        if (!service_.on_queue_removed(ConsumeQueue(mq, pq))) {
            pq->inc_try_unlock_times();
            return false;
        }
    }
    if (locked) {
        unlock_queues({mq});
        pq->set_locked(false);
    }
    return true;
}

/// Polls rather than waiting on a condition variable with a timeout: g++ 12's TSan does not intercept the
/// clock-based waits.
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::wait_listener_calls(const ProcessQueue& pq) const {
    if (scheduler_.driven()) {
        return pq.listener_calls() == 0;  // one thread runs everything: nothing can finish meanwhile
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(release_wait_millis);
    while (pq.listener_calls() != 0) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace rmq::detail
