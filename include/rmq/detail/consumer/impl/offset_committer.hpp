#pragma once

/// @file detail/consumer/impl/offset_committer.hpp
/// OffsetCommitter's definitions.

#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/error.hpp>
#include <rmq/protocol.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/offset_committer.hpp>

namespace rmq::detail {

template <class T>
void OffsetCommitter<T>::load() {
    store_.load(OffsetStoreContext{
        .group = s_.group,
        .client_id = s_.client_id,
        .query_broker =
            [this](const MessageQueue& mq) { return s_.transport.query_consumer_offset(s_.group, mq); },
        .update_broker =
            [this](const MessageQueue& mq, std::int64_t offset) {
                s_.transport.update_consumer_offset(s_.group, mq, offset);
            },
    });
}

/// Whether this member may commit the queue's offset. Under a policy that holds broker locks, not once the
/// lock expired (the member was paused, or cut off from the broker): the queue may have a new owner by now,
/// and this member's older offset would rewind that owner's progress. It commits again once the lock is
/// renewed. (Java commits it regardless: from its persist task, with each pull, and when a rebalance drops
/// the queue.)
template <class T>
bool OffsetCommitter<T>::may_commit(const ProcessQueue& pq) const {
    if constexpr (T::Order::requires_queue_lock) {
        return !s_.clustering || (pq.locked() && !pq.is_lock_expired());
    } else {
        (void)pq;
        return true;
    }
}

template <class T>
std::optional<std::int64_t> OffsetCommitter<T>::piggyback(const MessageQueue& mq,
                                                          const ProcessQueue& pq) const {
    if (!s_.clustering || !may_commit(pq)) {
        return std::nullopt;
    }
    const std::int64_t commit = store_.read_offset(mq, ReadOffsetType::ReadFromMemory);
    return commit > 0 ? std::optional<std::int64_t>(commit) : std::nullopt;
}

template <class T>
void OffsetCommitter<T>::commit(const MessageQueue& mq, std::int64_t offset, bool increase_only) {
    store_.update_offset(mq, offset, increase_only);
}

template <class T>
void OffsetCommitter<T>::skip_to(const MessageQueue& mq, std::int64_t offset) {
    store_.update_offset(mq, offset, false);
    store_.persist(mq);
}

template <class T>
void OffsetCommitter<T>::reset(const MessageQueue& mq, std::int64_t offset) {
    store_.update_offset(mq, offset, false);
}

template <class T>
void OffsetCommitter<T>::persist_all() {
    std::vector<MessageQueue> mqs;
    for (const auto& [mq, pq] : s_.table_snapshot()) {
        if (may_commit(*pq)) {  // else the store forgets it, like any queue it no longer persists
            mqs.push_back(mq);
        }
    }
    try {
        store_.persist_all(std::span<const MessageQueue>(mqs));
    } catch (const std::exception& e) {
        log_repeated(LogLevel::Warn,
                     fmt::format("persist {}", s_.group),
                     "group [{}]: persisting offsets failed: {}",
                     s_.group,
                     e.what());
    }
}

/// A queue this member no longer holds: its offset goes to the store's backing (the broker; not when the
/// queue's lock expired, see may_commit) and out of the store, and is kept in dropped_offsets_ for a while in
/// case that persist was lost (see continue_from).
template <class T>
void OffsetCommitter<T>::persist_dropped(const MessageQueue& mq, const ProcessQueue& pq) {
    try {
        if (const std::int64_t v = store_.read_offset(mq, ReadOffsetType::ReadFromMemory); v >= 0) {
            dropped_offsets_[mq] = {v, s_.clock->steady_millis()};
        }
        if (may_commit(pq)) {
            store_.persist(mq);
        }
        store_.remove_offset(mq);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: persisting {} failed: {}", s_.group, mq, e.what());
    }
}

template <class T>
std::int64_t OffsetCommitter<T>::memory_offset(const MessageQueue& mq) const {
    return store_.read_offset(mq, ReadOffsetType::ReadFromMemory);
}

/// Java's computePullFromWhereWithException (5.x: an unreadable store throws rather than starting anywhere).
/// `fresh`: the queue is taken on now, so the store's memory of it (an earlier ownership) goes first.
template <class T>
std::int64_t OffsetCommitter<T>::start_offset(const MessageQueue& mq, bool fresh) {
    if (fresh) {
        store_.remove_offset(mq);
    }
    const std::int64_t last = store_.read_offset(mq, ReadOffsetType::ReadFromStore);
    if (last >= 0) {
        return last;
    }
    if (last != -1) {
        throw BrokerError(
            response_code::query_not_found,
            fmt::format("cannot read the committed offset of {} (store answered {})", mq, last));
    }
    const bool retry = is_retry_topic(mq.topic);
    switch (s_.config.consume_from_where) {
    case ConsumeFromWhere::FirstOffset:
        return 0;
    case ConsumeFromWhere::Timestamp:
        if (retry) {
            return s_.transport.max_offset(mq);
        }
        return s_.transport.search_offset(mq, s_.config.consume_timestamp_millis(s_.clock->wall_millis()));
    default:
        return retry ? 0 : s_.transport.max_offset(mq);
    }
}

template <class T>
std::pair<std::int64_t, std::int64_t> OffsetCommitter<T>::take_kept(const MessageQueue& mq) {
    const auto kept = dropped_offsets_.find(mq);
    if (kept == dropped_offsets_.end()) {
        return {-1, 0};
    }
    const auto out = kept->second;
    dropped_offsets_.erase(kept);
    return out;
}

/// The start of a queue this member takes back: the offset it had consumed the queue up to when it dropped
/// it (`kept_offset`, kept at steady ms `kept_at`; -1: none), when that is newer than the broker's committed
/// `broker_offset` and less than dropped_offset_keep_millis old, else the broker's. The kept offset is this
/// member's own progress, and nobody else's can be lost by taking it: a member that consumed the queue
/// meanwhile committed past it (the broker's offset is then the newer one), an offset reset erases it
/// (forget_kept). The line is logged only when the kept offset is the start.
template <class T>
std::int64_t OffsetCommitter<T>::continue_from(const MessageQueue& mq,
                                               std::int64_t broker_offset,
                                               std::int64_t kept_offset,
                                               std::int64_t kept_at) const {
    if (kept_offset <= broker_offset || s_.clock->steady_millis() - kept_at >= dropped_offset_keep_millis) {
        return broker_offset;
    }
    log_line(
        LogLevel::Info,
        "group [{}]: {} continues from offset {}, consumed here before it was dropped (the broker has {})",
        s_.group,
        mq,
        kept_offset,
        broker_offset);
    return kept_offset;
}

}  // namespace rmq::detail
