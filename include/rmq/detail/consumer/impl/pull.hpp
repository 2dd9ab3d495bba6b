#pragma once

/// @file detail/consumer/impl/pull.hpp
/// ConsumerCore's pull loops (Java's PullMessageService + pullMessage + PullCallback), on the event loop: one
/// small state per owned queue, not a thread. A pull is held by the broker up to
/// broker_suspend_max_time_millis (long polling); what it finds is tag-filtered, cached and handed to the
/// order policy, and the next pull follows at once unless flow control, suspension or an error asks for a
/// delay.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/core.hpp>

namespace rmq::detail {

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::pull_later(const std::shared_ptr<PullState>& st,
                                                                std::int64_t delay) {
    scheduler_.post_after(delay, [this, st] { pull(st); });
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::pull(const std::shared_ptr<PullState>& st) {
    ProcessQueue& pq = *st->pq;
    if (pq.dropped() || stopping_.load()) {
        return;
    }
    pq.set_last_pull_timestamp(clock_->steady_millis());
    if (paused_.load()) {
        pull_later(st, config_.pull_time_delay_mills_when_suspend);
        return;
    }
    if (flow_controlled(pq)) {
        pull_later(st, config_.pull_time_delay_mills_when_flow_control);
        return;
    }
    if (!ready_after_lock(*st)) {
        pull_later(st, config_.pull_time_delay_mills_when_exception);
        return;
    }
    const auto sd = subscriptions_.find(st->mq.topic);
    if (!sd) {
        pull_later(st, config_.pull_time_delay_mills_when_exception);
        return;
    }
    send_pull(st, pull_args(*st, *sd));
}

/// Java's flow control: too many or too large cached messages, too wide an offset span (policies with
/// span_flow_control), or a full consume pool.
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::flow_controlled(const ProcessQueue& pq) const {
    return pq.msg_count() > pull_threshold_for_queue_.load() ||
           pq.msg_size() / (1024 * 1024) > pull_threshold_size_for_queue_.load() ||
           (Order::span_flow_control && pq.max_span() > config_.consume_concurrently_max_span) ||
           pool_->full();
}

/// Policies that require the queue lock pull only a locked queue; the first pull after the lock was taken
/// re-reads the committed offset (Java's previouslyLocked). rmq deviation: a queue taken back keeps the
/// offset this member had consumed it up to when that is newer (continue_from): with the lock held nobody
/// else consumes it, and the broker's older offset only means a lost commit (a restart), so Java's re-read
/// would consume again what this member already did.
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::ready_after_lock(PullState& st) {
    if constexpr (Order::requires_queue_lock) {
        if (!st.pq->locked()) {
            return false;
        }
        if (!st.previously_locked) {
            try {
                const std::int64_t offset = compute_pull_from_where(st.mq);
                if (offset < 0) {
                    throw IllegalState("negative start offset");
                }
                st.next_offset = continue_from(st.mq, offset, st.kept_offset, st.kept_at);
                st.kept_offset = -1;
                st.previously_locked = true;
            } catch (const std::exception& e) {
                log_line(LogLevel::Warn,
                         "group [{}]: re-reading the offset of {} failed: {}",
                         group_,
                         st.mq,
                         e.what());
                return false;
            }
        }
    }
    return true;
}

template <class Order, class Allocate, class OffsetStore, class Tr>
PullArgs ConsumerCore<Order, Allocate, OffsetStore, Tr>::pull_args(const PullState& st,
                                                                   const SubscriptionData& sd) const {
    PullArgs args;
    args.consumer_group = group_;
    args.mq = st.mq;
    args.queue_offset = st.next_offset;
    args.max_msg_nums = config_.pull_batch_size;
    args.suspend_timeout_millis = config_.broker_suspend_max_time_millis;
    args.sub_version = sd.sub_version;
    args.expression_type = sd.expression_type;
    std::int32_t flags = pull_sys_flag::suspend;
    if (clustering_ && may_commit(*st.pq)) {  // the pull carries the commit, like a persist
        const std::int64_t commit = offset_store_.read_offset(st.mq, ReadOffsetType::ReadFromMemory);
        if (commit > 0) {
            args.commit_offset = commit;
            flags |= pull_sys_flag::commit_offset;
        }
    }
    if (config_.post_subscription_when_pull && !sd.class_filter_mode) {
        args.subscription = sd.sub_string;
        flags |= pull_sys_flag::subscription;
    }
    args.sys_flag = flags;
    return args;
}

/// Sends the pull; its completion comes back to the loop through the gate. A transport that posts ready
/// answers to the caller (rmq::HasPullPostingToCaller) completes them on the loop already: no second hop.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::send_pull(const std::shared_ptr<PullState>& st,
                                                               const PullArgs& args) {
    const std::int64_t begin = clock_->steady_millis();
    try {
        auto complete = [gate = gate_, this, st, begin](Outcome<PullResult> outcome) {
            if constexpr (HasPullPostingToCaller<Tr>) {
                // Only the gate may be touched first: a held pull can complete after the consumer is gone.
                if (gate->in_loop()) {
                    on_pull_result(st, begin, std::move(outcome));
                    return;
                }
            }
            auto shared = std::make_shared<Outcome<PullResult>>(std::move(outcome));
            gate->post([this, st, begin, shared] { on_pull_result(st, begin, std::move(*shared)); });
        };
        if constexpr (HasPullPostingToCaller<Tr>) {
            transport_.pull(args, std::move(complete), [gate = gate_](std::function<void()> task) {
                gate->post(std::move(task));
            });
        } else {
            transport_.pull(args, std::move(complete));
        }
    } catch (const std::exception& e) {
        log_repeated(LogLevel::Warn,
                     fmt::format("pull {} {}", group_, st->mq.broker_name),
                     "group [{}]: pull of {} failed: {}",
                     group_,
                     st->mq,
                     e.what());
        pull_later(st, config_.pull_time_delay_mills_when_exception);
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::on_pull_result(const std::shared_ptr<PullState>& st,
                                                                    std::int64_t begin,
                                                                    Outcome<PullResult> outcome) {
    ProcessQueue& pq = *st->pq;
    if (pq.dropped() || stopping_.load()) {
        return;
    }
    if (!outcome.ok()) {
        on_pull_failed(st, outcome.code(), outcome.remark());
        return;
    }
    PullResult& result = outcome.value();
    {
        const std::lock_guard lock(table_mutex_);
        broker_max_offset_[st->mq] = result.max_offset;
    }
    switch (result.status) {
    case PullStatus::Found:
        on_found(st, begin, result);
        return;
    case PullStatus::NoNewMsg:
    case PullStatus::NoMatchedMsg:
        st->next_offset = result.next_begin_offset;
        if (pq.msg_count() == 0) {
            // Java's correctTagsOffset: nothing in flight, so everything before next_offset was filtered or
            // absent.
            offset_store_.update_offset(st->mq, st->next_offset, true);
        }
        pull(st);
        return;
    case PullStatus::OffsetIllegal:
        on_offset_illegal(st, result);
        return;
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::on_pull_failed(const std::shared_ptr<PullState>& st,
                                                                    int code,
                                                                    const std::string& remark) {
    if (code == response_code::subscription_not_exist) {
        note_subscription_inconsistency(fmt::format(
            "the broker does not know this member's subscription of {} ({})", st->mq.topic, remark));
    }
    if (!is_retry_topic(st->mq.topic) && code != response_code::subscription_not_latest) {
        log_repeated(LogLevel::Warn,
                     fmt::format("pull code {} {} {}", group_, st->mq.broker_name, code),
                     "group [{}]: pull of {} failed with code {}: {}",
                     group_,
                     st->mq,
                     code,
                     remark);
    }
    pull_later(st,
               code == response_code::flow_control ? config_.pull_time_delay_mills_when_broker_flow_control
                                                   : config_.pull_time_delay_mills_when_exception);
}

/// FOUND: filter by tag in place (the pulled vector itself goes on to the cache, no per-message move), cache
/// the messages, hand them to the order policy and pull again. MIN_OFFSET / MAX_OFFSET are stamped when a
/// listener call of them begins (OrderHost::consume) or when they are taken (ProcessQueue::take_messages),
/// not here: this loop is the consumer's one pulling thread and the first to saturate.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::on_found(const std::shared_ptr<PullState>& st,
                                                              std::int64_t begin,
                                                              PullResult& result) {
    const std::int64_t prev = st->next_offset;
    st->next_offset = result.next_begin_offset;
    std::vector<MessageExt>& kept = result.msg_found_list;
    if (const auto sd = subscriptions_.find(st->mq.topic)) {
        std::erase_if(kept, [&sd](const MessageExt& msg) { return !sd->matches_tag(msg.tags()); });
    }
    prepare_found(st->mq, kept);
    stats_.record_pull_rt(st->mq.topic, clock_->steady_millis() - begin);
    if (!kept.empty()) {
        stats_.record_pulled(st->mq.topic, static_cast<std::int64_t>(kept.size()));
    }
    if (result.next_begin_offset < prev) {
        log_line(LogLevel::Error,
                 "[BUG] group [{}]: {} next begin offset {} < previous {}",
                 group_,
                 st->mq,
                 result.next_begin_offset,
                 prev);
    }
    const bool found = !kept.empty();
    if (found) {
        free_retired();
        const PullOffsets bounds{result.min_offset, result.max_offset};
        auto pulled = std::make_shared<std::vector<MessageExt>>(std::move(kept));
        const bool dispatch = st->pq->put_messages_shared(pulled, bounds);
        service_.on_messages(handle(st->mq, st->pq), MessageBatch(std::move(pulled), bounds, dispatch));
    }
    if (!found || config_.pull_interval <= 0) {
        pull(st);
    } else {
        pull_later(st, config_.pull_interval);
    }
}

/// What Java's processPullResult sets on each message: the transaction id of a prepared message, the queue's
/// broker name and queue id. Also room for the three properties the client adds (MIN_OFFSET, MAX_OFFSET,
/// CONSUME_START_TIME), and the CONSUME_START_TIME entry itself, still empty (its name is too long for a
/// string's inline buffer), made here on the loop that allocated the message and frees it: a consume thread
/// that allocated them would have this thread free its memory, and glibc's malloc makes two threads that free
/// each other's memory take each other's arena locks. The empty entry is never seen: the consume service
/// fills it before the listener runs, and nothing reads it before (rmq::ProcessQueue::begin_consume).
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::prepare_found(const MessageQueue& mq,
                                                                   std::vector<MessageExt>& msgs) const {
    for (auto& msg : msgs) {
        msg.reserve_properties(msg.properties().size() + 3);
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
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::on_offset_illegal(const std::shared_ptr<PullState>& st,
                                                                       const PullResult& result) {
    log_line(LogLevel::Warn,
             "group [{}]: offset {} of {} is illegal, continuing from {}",
             group_,
             st->next_offset,
             st->mq,
             result.next_begin_offset);
    st->next_offset = result.next_begin_offset;
    st->pq->set_dropped(true);
    offset_store_.update_offset(st->mq, st->next_offset, false);
    offset_store_.persist(st->mq);
    // Not removed yet (its policy deferred it): the rebalance removes dropped queues before re-adding them.
    if (remove_unnecessary_queue(st->mq, st->pq)) {
        const std::lock_guard lock(table_mutex_);
        if (auto it = table_.find(st->mq); it != table_.end() && it->second == st->pq) {
            table_.erase(it);
        }
    }
    scheduler_.post([this] { do_rebalance(); });
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::note_subscription_inconsistency(const std::string& why) {
    stats_.set_subscription_inconsistent(true, why);
    if (!subscription_inconsistent_.exchange(true)) {
        log_line(LogLevel::Warn,
                 "group [{}]: subscription inconsistency: {}. All consumers of a group must subscribe "
                 "identically, otherwise messages are skipped (docs/semantics.md)",
                 group_,
                 why);
    }
}

}  // namespace rmq::detail
