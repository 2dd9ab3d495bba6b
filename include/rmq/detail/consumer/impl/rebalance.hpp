#pragma once

/// @file detail/consumer/impl/rebalance.hpp
/// ConsumerCore's rebalance (Java's RebalanceImpl), on the event loop: periodically, on a membership
/// notification and at start. For each subscribed topic (and %RETRY%group in clustering) the queues and
/// client ids are sorted, the allocation policy picks this member's queues, and the queue table follows:
/// dropped queues have their offsets persisted and are released by the order policy; new queues (under an
/// order policy that requires it: once the broker lock is held) get a start offset and a pull loop.

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/core.hpp>

namespace rmq::detail {

/// With a transport that reports route changes (rmq::HasRouteChangeHandler): a changed route of a subscribed
/// topic (a broker went away or came back) is rebalanced within rebalance_later's delay rather than at the
/// next periodic rebalance, so members that saw the change converge at once (otherwise they own different
/// queue sets, some twice, for up to rebalance_interval). The handler touches only the gate until it runs on
/// the loop, as the notification handler.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::watch_route_changes(bool on) {
    if constexpr (HasRouteChangeHandler<Tr>) {
        const auto key = fmt::format("consumer {} {}", group_, static_cast<const void*>(this));
        if (!on) {
            transport_.set_route_change_handler(key, RouteChangeHandler{});
            return;
        }
        transport_.set_route_change_handler(key, [gate = gate_, this](const std::string& topic) {
            gate->post([this, topic] {
                if (subscriptions_.find(topic)) {
                    rebalance_later();
                }
            });
        });
    } else {
        (void)on;
    }
}

/// Java 5.x's rebalanceLater(500): a queue allocated to this member whose broker lock is still held by the
/// previous owner is retried shortly, not at the next periodic rebalance (20 s), so an orderly handover takes
/// about the time the old owner needs to release it. At most one retry is pending.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::rebalance_later() {
    if (rebalance_later_pending_.exchange(true)) {
        return;
    }
    schedule(rebalance_later_delay_millis, [this] {
        rebalance_later_pending_.store(false);
        do_rebalance();
    });
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::do_rebalance() {
    if (stopping_.load() || paused_.load()) {
        return;
    }
    const auto subs = subscriptions_.copy();
    for (const auto& [topic, sd] : subs) {
        try {
            rebalance_topic(topic);
        } catch (const std::exception& e) {
            if (!is_retry_topic(topic)) {
                log_repeated(LogLevel::Warn,
                             fmt::format("rebalance {} {}", group_, topic),
                             "group [{}]: rebalance of {} failed: {}",
                             group_,
                             topic,
                             e.what());
            }
        }
    }
    truncate_not_my_topic(subs);
    if (clustering_) {
        check_group_subscriptions(subs);
    }
}

/// Members of one group must subscribe identically, or messages are silently skipped (docs/semantics.md):
/// compares this member's subscriptions with every other member's when the transport can list the group
/// (rmq::HasGroupMembers); pull answers SUBSCRIPTION_NOT_EXIST are the fallback signal.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::check_group_subscriptions(
    const std::map<std::string, SubscriptionData>& mine) {
    if constexpr (HasGroupMembers<Tr>) {
        std::vector<std::string> differences;
        try {
            differences = subscription_differences(mine);
        } catch (const std::exception& e) {
            log_repeated(LogLevel::Warn,
                         fmt::format("members {}", group_),
                         "group [{}]: listing the group's members failed: {}",
                         group_,
                         e.what());
            return;
        }
        if (!differences.empty()) {
            std::string why;
            for (const auto& d : differences) {
                why += why.empty() ? d : "; " + d;
            }
            note_subscription_inconsistency(why);
        } else if (subscription_inconsistent_.exchange(false)) {
            stats_.set_subscription_inconsistent(false);
            log_line(LogLevel::Info, "group [{}]: subscriptions are consistent again", group_);
        }
    } else {
        (void)mine;
    }
}

/// One line per other member whose subscriptions (retry topics aside) differ from this member's.
template <class Order, class Allocate, class OffsetStore, class Tr>
std::vector<std::string> ConsumerCore<Order, Allocate, OffsetStore, Tr>::subscription_differences(
    const std::map<std::string, SubscriptionData>& mine) {
    const auto describe = [](const std::map<std::string, std::string>& subs) {
        std::string out;
        for (const auto& [topic, expr] : subs) {
            out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", topic, expr);
        }
        return out;
    };
    std::map<std::string, std::string> ours;
    for (const auto& [topic, sd] : mine) {
        if (!is_retry_topic(topic)) {
            ours[topic] = sd.sub_string;
        }
    }
    std::vector<std::string> differences;
    for (const auto& member : transport_.group_members(group_)) {
        if (member.client_id == client_id_) {
            continue;
        }
        std::map<std::string, std::string> theirs;
        for (const auto& sd : member.consumer_data.subscription_data_set) {
            if (!is_retry_topic(sd.topic)) {
                theirs[sd.topic] = sd.sub_string;
            }
        }
        if (theirs != ours) {
            differences.push_back(fmt::format("member {} subscribes {{{}}}, this member {} subscribes {{{}}}",
                                              member.client_id,
                                              describe(theirs),
                                              client_id_,
                                              describe(ours)));
        }
    }
    return differences;
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::rebalance_topic(const std::string& topic) {
    std::vector<MessageQueue> mq_all;
    try {
        mq_all = transport_.topic_route(topic).read_queues;
    } catch (const std::exception& e) {
        if (!is_retry_topic(topic)) {
            log_repeated(LogLevel::Warn,
                         fmt::format("no route {} {}", group_, topic),
                         "group [{}]: no route for {}: {}",
                         group_,
                         topic,
                         e.what());
        }
        return;
    }
    std::sort(mq_all.begin(), mq_all.end());
    std::vector<MessageQueue> mine;
    if (!clustering_) {
        mine = mq_all;
    } else {
        auto cids = transport_.consumer_id_list(topic, group_);
        if (cids.empty()) {
            return;
        }
        std::sort(cids.begin(), cids.end());
        try {
            mine = allocate(topic, mq_all, cids);
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn, "group [{}]: allocation of {} failed: {}", group_, topic, e.what());
            return;
        }
    }
    if (update_process_queue_table(topic, mine)) {
        message_queue_changed();
    }
}

/// The allocation policy's answer; a sticky policy (rmq::StickyAllocatePolicy) also sees the queues of
/// `topic` this member owns now.
template <class Order, class Allocate, class OffsetStore, class Tr>
std::vector<MessageQueue> ConsumerCore<Order, Allocate, OffsetStore, Tr>::allocate(
    const std::string& topic, const std::vector<MessageQueue>& mq_all, const std::vector<std::string>& cids) {
    const std::span<const MessageQueue> all(mq_all);
    const std::span<const std::string> ids(cids);
    if constexpr (StickyAllocatePolicy<Allocate>) {
        std::vector<MessageQueue> previous;
        for (const auto& [mq, pq] : table_snapshot()) {
            if (mq.topic == topic && !pq->dropped()) {
                previous.push_back(mq);
            }
        }
        return allocate_.allocate(group_, client_id_, all, ids, std::span<const MessageQueue>(previous));
    } else {
        (void)topic;
        return allocate_.allocate(group_, client_id_, all, ids);
    }
}

/// Java's updateProcessQueueTableInRebalance: true when the set of owned queues of `topic` changed.
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::update_process_queue_table(
    const std::string& topic, const std::vector<MessageQueue>& mine) {
    bool changed = drop_unwanted_queues(topic, mine);
    for (const auto& mq : mine) {
        if (!find_pq(mq) && add_queue(mq)) {
            changed = true;
        }
    }
    return changed;
}

/// Drops the queues of `topic` that are no longer this member's (or whose pulls stalled) once the order
/// policy released them.
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::drop_unwanted_queues(
    const std::string& topic, const std::vector<MessageQueue>& mine) {
    const std::set<MessageQueue> wanted(mine.begin(), mine.end());
    bool changed = false;
    for (const auto& [mq, pq] : table_snapshot()) {
        // A dropped queue still here (an illegal offset whose removal its policy deferred) goes too.
        if (mq.topic != topic || (wanted.contains(mq) && !pq->is_pull_expired() && !pq->dropped())) {
            continue;
        }
        pq->set_dropped(true);
        if (remove_unnecessary_queue(mq, pq)) {
            const std::lock_guard lock(table_mutex_);
            table_.erase(mq);
            changed = true;
        }
    }
    return changed;
}

/// Takes `mq` on: its broker lock first when the order policy requires one (else retried in 500 ms), then a
/// start offset, a cache and a pull loop. False when it could not be taken now.
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::add_queue(const MessageQueue& mq) {
    const bool need_lock = Order::requires_queue_lock && clustering_;
    // Not locked (another member still holds it, releasing it right now) or the request failed: retried.
    if (need_lock && !lock_queue(mq)) {
        rebalance_later();
        return false;
    }
    offset_store_.remove_offset(mq);
    auto pq = std::make_shared<ProcessQueue>(clock_);
    pq->set_locked(true);
    pq->set_last_lock_timestamp(clock_->steady_millis());
    std::int64_t next = -1;
    try {
        next = compute_pull_from_where(mq);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: no start offset for {}: {}", group_, mq, e.what());
    }
    if (next < 0) {
        if (need_lock) {
            unlock_queues({mq});
        }
        return false;  // the kept offset, if any, stays for the next try
    }
    std::int64_t kept_offset = -1;
    std::int64_t kept_at = 0;
    if (const auto kept = dropped_offsets_.find(mq); kept != dropped_offsets_.end()) {
        std::tie(kept_offset, kept_at) = kept->second;
        dropped_offsets_.erase(kept);
    }
    // Under the lock the first pull re-reads the broker's offset (ready_after_lock) and decides there, with
    // the kept offset as its floor: deciding (and logging) here would be undone by that re-read.
    if (!need_lock) {
        next = continue_from(mq, next, kept_offset, kept_at);
        kept_offset = -1;
    }
    {
        const std::lock_guard lock(table_mutex_);
        table_.emplace(mq, pq);
    }
    if constexpr (ServiceObservesQueueAdded<Service>) {
        service_.on_queue_added(handle(mq, pq));
    }
    auto st = std::make_shared<PullState>(PullState{mq, pq, next, false, kept_offset, kept_at});
    scheduler_.post([this, st] { pull(st); });
    return true;
}

/// The start of a queue this member takes back: the offset it had consumed the queue up to when it dropped
/// it (`kept_offset`, kept at steady ms `kept_at`; -1: none), when that is newer than the broker's committed
/// `broker_offset` and less than dropped_offset_keep_millis old, else the broker's. The kept offset is this
/// member's own progress, and nobody else's can be lost by taking it: a member that consumed the queue
/// meanwhile committed past it (the broker's offset is then the newer one), an offset reset erases it
/// (reset_offsets). The line is logged only when the kept offset is the start.
template <class Order, class Allocate, class OffsetStore, class Tr>
std::int64_t ConsumerCore<Order, Allocate, OffsetStore, Tr>::continue_from(const MessageQueue& mq,
                                                                           std::int64_t broker_offset,
                                                                           std::int64_t kept_offset,
                                                                           std::int64_t kept_at) {
    if (kept_offset <= broker_offset || clock_->steady_millis() - kept_at >= dropped_offset_keep_millis) {
        return broker_offset;
    }
    log_line(
        LogLevel::Info,
        "group [{}]: {} continues from offset {}, consumed here before it was dropped (the broker has {})",
        group_,
        mq,
        kept_offset,
        broker_offset);
    return kept_offset;
}

/// Java's truncateMessageQueueNotMyTopic: queues of topics no longer subscribed (unsubscribe) are dropped.
/// rmq deviation: their offsets are persisted first, as for any other dropped queue; Java leaves them to the
/// next persistAll, which discards offsets of queues it no longer holds, so a re-subscription there repeats
/// what was consumed since the last persist.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::truncate_not_my_topic(
    const std::map<std::string, SubscriptionData>& subs) {
    for (const auto& [mq, pq] : table_snapshot()) {
        if (subs.contains(mq.topic)) {
            continue;
        }
        pq->set_dropped(true);
        if (remove_unnecessary_queue(mq, pq)) {  // else tried again at the next rebalance
            const std::lock_guard lock(table_mutex_);
            if (const auto it = table_.find(mq); it != table_.end() && it->second == pq) {
                table_.erase(it);
            }
        }
    }
}

/// A queue this member no longer holds: its offset goes to the store's backing (the broker; not when the
/// queue's lock expired, see may_commit) and out of the store, and is kept in dropped_offsets_ for a while in
/// case that persist was lost (see add_queue).
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::persist_dropped(const MessageQueue& mq,
                                                                     const ProcessQueue& pq) {
    try {
        if (const std::int64_t v = offset_store_.read_offset(mq, ReadOffsetType::ReadFromMemory); v >= 0) {
            dropped_offsets_[mq] = {v, clock_->steady_millis()};
        }
        if (may_commit(pq)) {
            offset_store_.persist(mq);
        }
        offset_store_.remove_offset(mq);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: persisting {} failed: {}", group_, mq, e.what());
    }
}

/// Java's messageQueueChanged: per-topic thresholds are split among the owned queues; heartbeat.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::message_queue_changed() {
    std::size_t n = 0;
    {
        const std::lock_guard lock(table_mutex_);
        n = table_.size();
    }
    if (n > 0) {
        const auto count = static_cast<std::int64_t>(n);
        if (config_.pull_threshold_for_topic != -1) {
            pull_threshold_for_queue_.store(
                std::max<std::int64_t>(1, config_.pull_threshold_for_topic / count));
        }
        if (config_.pull_threshold_size_for_topic != -1) {
            pull_threshold_size_for_queue_.store(
                std::max<std::int64_t>(1, config_.pull_threshold_size_for_topic / count));
        }
    }
    send_heartbeat();
}

/// Java's computePullFromWhereWithException (5.x: an unreadable store throws rather than starting anywhere).
template <class Order, class Allocate, class OffsetStore, class Tr>
std::int64_t ConsumerCore<Order, Allocate, OffsetStore, Tr>::compute_pull_from_where(const MessageQueue& mq) {
    const std::int64_t last = offset_store_.read_offset(mq, ReadOffsetType::ReadFromStore);
    if (last >= 0) {
        return last;
    }
    if (last != -1) {
        throw BrokerError(
            response_code::query_not_found,
            fmt::format("cannot read the committed offset of {} (store answered {})", mq, last));
    }
    const bool retry = is_retry_topic(mq.topic);
    switch (config_.consume_from_where) {
    case ConsumeFromWhere::FirstOffset:
        return 0;
    case ConsumeFromWhere::Timestamp:
        if (retry) {
            return transport_.max_offset(mq);
        }
        return transport_.search_offset(mq, config_.consume_timestamp_millis(clock_->wall_millis()));
    default:
        return retry ? 0 : transport_.max_offset(mq);
    }
}

}  // namespace rmq::detail
