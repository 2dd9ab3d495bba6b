#pragma once

/// @file detail/consumer/impl/puller.hpp
/// Puller's definitions.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/poll_hooks.hpp>
#include <rmq/detail/consumer/puller.hpp>
#include <rmq/detail/consumer/queue_access.hpp>
#include <rmq/detail/consumer/rebalancer.hpp>

namespace rmq::detail {

template <class T>
void Puller<T>::start(const MessageQueue& mq,
                      std::shared_ptr<ProcessQueue> pq,
                      std::int64_t next_offset,
                      std::int64_t kept_offset,
                      std::int64_t kept_at) {
    auto st =
        std::make_shared<PullState>(PullState{mq, std::move(pq), next_offset, false, kept_offset, kept_at});
    s_.scheduler.post([this, st] { pull(st); });
}

template <class T>
void Puller<T>::pull_later(const Ptr& st, std::int64_t delay) {
    s_.scheduler.post_after(delay, [this, st] { pull(st); });
}

template <class T>
void Puller<T>::pull(const Ptr& st) {
    ProcessQueue& pq = *st->pq;
    if (pq.dropped() || s_.stopping.load()) {
        return;
    }
    pq.set_last_pull_timestamp(s_.clock->steady_millis());
    if (s_.paused.load()) {
        pull_later(st, s_.config.pull_time_delay_mills_when_suspend);
        return;
    }
    if (flow_controlled(pq)) {
        pull_later(st, s_.config.pull_time_delay_mills_when_flow_control);
        return;
    }
    if constexpr (ServiceDelaysPulls<Service>) {
        if (const std::int64_t delay = service_.pull_delay(st->mq); delay > 0) {
            pull_later(st, delay);
            return;
        }
    }
    if (!ready_after_lock(*st)) {
        pull_later(st, s_.config.pull_time_delay_mills_when_exception);
        return;
    }
    const auto sd = s_.subscriptions.find(st->mq.topic);
    if (!sd) {
        pull_later(st, s_.config.pull_time_delay_mills_when_exception);
        return;
    }
    send_pull(st, pull_args(*st, *sd));
}

/// Java's flow control: too many or too large cached messages, too wide an offset span (policies with
/// span_flow_control), or a full consume pool.
template <class T>
bool Puller<T>::flow_controlled(const ProcessQueue& pq) const {
    return pq.msg_count() > s_.pull_threshold_for_queue.load() ||
           pq.msg_size() / (1024 * 1024) > s_.pull_threshold_size_for_queue.load() ||
           (T::Order::span_flow_control && pq.max_span() > s_.config.consume_concurrently_max_span) ||
           s_.pool->full();
}

/// Policies that require the queue lock pull only a locked queue; the first pull after the lock was taken
/// re-reads the committed offset (Java's previouslyLocked). rmq deviation: a queue taken back keeps the
/// offset this member had consumed it up to when that is newer (continue_from): with the lock held nobody
/// else consumes it, and the broker's older offset only means a lost commit (a restart), so Java's re-read
/// would consume again what this member already did.
template <class T>
bool Puller<T>::ready_after_lock(PullState& st) {
    if constexpr (T::Order::requires_queue_lock) {
        if (!st.pq->locked()) {
            return false;
        }
        if (!st.previously_locked) {
            try {
                const std::int64_t offset = committer_.start_offset(st.mq, false);
                if (offset < 0) {
                    throw IllegalState("negative start offset");
                }
                st.next_offset = committer_.continue_from(st.mq, offset, st.kept_offset, st.kept_at);
                st.kept_offset = -1;
                st.previously_locked = true;
            } catch (const std::exception& e) {
                log_line(LogLevel::Warn,
                         "group [{}]: re-reading the offset of {} failed: {}",
                         s_.group,
                         st.mq,
                         e.what());
                return false;
            }
        }
    }
    return true;
}

template <class T>
PullArgs Puller<T>::pull_args(const PullState& st, const SubscriptionData& sd) const {
    PullArgs args;
    args.consumer_group = s_.group;
    args.mq = st.mq;
    args.queue_offset = st.next_offset;
    args.max_msg_nums = s_.config.pull_batch_size;
    args.suspend_timeout_millis = s_.config.broker_suspend_max_time_millis;
    args.sub_version = sd.sub_version;
    args.expression_type = sd.expression_type;
    std::int32_t flags = pull_sys_flag::suspend;
    if (const auto commit = committer_.piggyback(st.mq, *st.pq)) {  // the pull carries the commit
        args.commit_offset = *commit;
        flags |= pull_sys_flag::commit_offset;
    }
    if (s_.config.post_subscription_when_pull && !sd.class_filter_mode) {
        args.subscription = sd.sub_string;
        flags |= pull_sys_flag::subscription;
    }
    args.sys_flag = flags;
    return args;
}

/// Sends the pull. Its answer reaches on_pull_result by one path, complete(), whatever the transport.
template <class T>
void Puller<T>::send_pull(const Ptr& st, const PullArgs& args) {
    const std::int64_t begin = s_.clock->steady_millis();
    auto done = [self = this, gate = s_.gate, st, begin](Outcome<PullResult> outcome) {
        complete(self, gate, st, begin, std::move(outcome));
    };
    st->sending = true;
    try {
        if constexpr (HasPullPostingToCaller<typename T::Transport>) {
            // Answers ready at once come back as a task on this loop, through the gate (no second hop).
            s_.transport.pull(args, std::move(done), [gate = s_.gate](std::function<void()> task) {
                gate->post(std::move(task));
            });
        } else {
            s_.transport.pull(args, std::move(done));
        }
    } catch (const std::exception& e) {
        log_repeated(LogLevel::Warn,
                     fmt::format("pull {} {}", s_.group, st->mq.broker_name),
                     "group [{}]: pull of {} failed: {}",
                     s_.group,
                     st->mq,
                     e.what());
        pull_later(st, s_.config.pull_time_delay_mills_when_exception);
    }
    st->sending = false;
}

/// The one completion path of a pull: on the loop (a transport's posted task) it runs at once, anywhere
/// else (a transport's own thread, or inside send_pull: never re-entered) it is posted to the loop through
/// the gate. Only the gate may be touched first: a held pull can complete after the consumer is gone, and
/// `sending` is read only on the loop, its one writer.
template <class T>
void Puller<T>::complete(Puller* self,
                         const std::shared_ptr<LifeGate>& gate,
                         const Ptr& st,
                         std::int64_t begin,
                         Outcome<PullResult> outcome) {
    if (gate->in_loop() && !st->sending) {
        self->on_pull_result(st, begin, std::move(outcome));
        return;
    }
    auto shared = std::make_shared<Outcome<PullResult>>(std::move(outcome));
    gate->post([self, st, begin, shared] { self->on_pull_result(st, begin, std::move(*shared)); });
}

template <class T>
void Puller<T>::on_pull_result(const Ptr& st, std::int64_t begin, Outcome<PullResult> outcome) {
    ProcessQueue& pq = *st->pq;
    if (pq.dropped() || s_.stopping.load()) {
        return;
    }
    if (!outcome.ok()) {
        on_pull_failed(st, outcome.code(), outcome.remark());
        return;
    }
    PullResult& result = outcome.value();
    {
        const std::lock_guard lock(s_.table_mutex);
        s_.broker_max_offset[st->mq] = result.max_offset;
    }
    switch (result.status) {
    case PullStatus::Found:
        on_found(st, begin, result);
        return;
    case PullStatus::NoNewMsg:
    case PullStatus::NoMatchedMsg:
        st->next_offset = result.next_begin_offset;
        if (!PollDriven<typename T::Order> && pq.msg_count() == 0) {
            // Java's correctTagsOffset: nothing in flight, so everything before next_offset was filtered or
            // absent.
            committer_.commit(st->mq, st->next_offset, true);
        }
        pull(st);
        return;
    case PullStatus::OffsetIllegal:
        on_offset_illegal(st, result);
        return;
    }
}

template <class T>
void Puller<T>::on_pull_failed(const Ptr& st, int code, const std::string& remark) {
    if (code == response_code::subscription_not_exist) {
        s_.note_subscription_inconsistency(fmt::format(
            "the broker does not know this member's subscription of {} ({})", st->mq.topic, remark));
    }
    if (!is_retry_topic(st->mq.topic) && code != response_code::subscription_not_latest) {
        log_repeated(LogLevel::Warn,
                     fmt::format("pull code {} {} {}", s_.group, st->mq.broker_name, code),
                     "group [{}]: pull of {} failed with code {}: {}",
                     s_.group,
                     st->mq,
                     code,
                     remark);
    }
    pull_later(st,
               code == response_code::flow_control ? s_.config.pull_time_delay_mills_when_broker_flow_control
                                                   : s_.config.pull_time_delay_mills_when_exception);
}

/// FOUND: filter by tag in place (the pulled vector itself goes on to the cache, no per-message move), cache
/// the messages, hand them to the order policy and pull again. MIN_OFFSET / MAX_OFFSET are stamped when a
/// listener call of them begins (OrderHost::consume) or when they are taken (ProcessQueue::take_messages),
/// not here: this loop is the consumer's one pulling thread and the first to saturate.
template <class T>
void Puller<T>::on_found(const Ptr& st, std::int64_t begin, PullResult& result) {
    const std::int64_t prev = st->next_offset;
    st->next_offset = result.next_begin_offset;
    std::vector<MessageExt>& kept = result.msg_found_list;
    if (const auto sd = s_.subscriptions.find(st->mq.topic)) {
        std::erase_if(kept, [&sd](const MessageExt& msg) { return !sd->matches_tag(msg.tags()); });
    }
    prepare_found(st->mq, kept);
    s_.stats.record_pull_rt(st->mq.topic, s_.clock->steady_millis() - begin);
    if (!kept.empty()) {
        s_.stats.record_pulled(st->mq.topic, static_cast<std::int64_t>(kept.size()));
    }
    if (result.next_begin_offset < prev) {
        log_line(LogLevel::Error,
                 "[BUG] group [{}]: {} next begin offset {} < previous {}",
                 s_.group,
                 st->mq,
                 result.next_begin_offset,
                 prev);
    }
    const bool found = !kept.empty();
    if (found) {
        s_.retired.free();
        const PullOffsets bounds{result.min_offset, result.max_offset};
        auto pulled = std::make_shared<std::vector<MessageExt>>(std::move(kept));
        const bool dispatch = st->pq->put_messages_shared(pulled, bounds);
        service_.on_messages(QueueAccess::queue(st->mq, st->pq),
                             QueueAccess::batch(std::move(pulled), bounds, dispatch));
    }
    if (!found || s_.config.pull_interval <= 0) {
        pull(st);
    } else {
        pull_later(st, s_.config.pull_interval);
    }
}

/// What Java's processPullResult sets on each message: the transaction id of a prepared message, the queue's
/// broker name and queue id. Also room for the three properties the client adds (MIN_OFFSET, MAX_OFFSET,
/// CONSUME_START_TIME; RemotingTransport decodes a pull with that room already, so the reserve allocates
/// nothing there), and the CONSUME_START_TIME entry itself, still empty (its name is too long for a
/// string's inline buffer), made here on the loop that allocated the message and frees it: a consume thread
/// that allocated them would have this thread free its memory, and glibc's malloc makes two threads that free
/// each other's memory take each other's arena locks. The empty entry is never seen: the consume service
/// fills it before the listener runs, and nothing reads it before (rmq::ProcessQueue::begin_consume).
template <class T>
void Puller<T>::prepare_found(const MessageQueue& mq, std::vector<MessageExt>& msgs) const {
    for (auto& msg : msgs) {
        msg.reserve_properties(msg.properties().size() + property::consumer_stamped_count);
        msg.set_property(property::consume_start_timestamp, {});
        if (msg.property_view(property::transaction_prepared) == "true") {
            msg.set_transaction_id(std::string(msg.property_view(property::uniq_client_message_id_keyidx)));
        }
        if (msg.broker_name() != mq.broker_name) {
            msg.set_broker_name(mq.broker_name);
        }
        msg.set_queue_id(mq.queue_id);
    }
}

/// OFFSET_ILLEGAL, 5.x: fix the offset at once, drop the queue; the rebalance re-adds it from the corrected
/// offset.
template <class T>
void Puller<T>::on_offset_illegal(const Ptr& st, const PullResult& result) {
    log_line(LogLevel::Warn,
             "group [{}]: offset {} of {} is illegal, continuing from {}",
             s_.group,
             st->next_offset,
             st->mq,
             result.next_begin_offset);
    st->next_offset = result.next_begin_offset;
    st->pq->set_dropped(true);
    committer_.skip_to(st->mq, st->next_offset);
    // Not removed yet (its policy deferred it): the rebalance removes dropped queues before re-adding them.
    (void)rebalancer_.remove_queue(st->mq, st->pq);
    s_.scheduler.post([this] { rebalancer_.do_rebalance(); });
}

}  // namespace rmq::detail
