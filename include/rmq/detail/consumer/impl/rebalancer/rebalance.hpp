#pragma once

/// @file detail/consumer/impl/rebalancer/rebalance.hpp
/// Rebalancer's definitions, per topic: the triggers and the allocation.

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <rmq/assignment.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/poll_hooks.hpp>
#include <rmq/detail/consumer/rebalancer.hpp>

namespace rmq::detail {

/// With a transport that reports route changes (rmq::HasRouteChangeHandler): a changed route of a subscribed
/// topic (a broker went away or came back) is rebalanced within rebalance_later's delay rather than at the
/// next periodic rebalance, so members that saw the change converge at once (otherwise they own different
/// queue sets, some twice, for up to rebalance_interval). The handler touches only the gate until it runs on
/// the loop, as the notification handler.
template <class T>
void Rebalancer<T>::watch_route_changes(bool on) {
    if constexpr (HasRouteChangeHandler<typename T::Transport>) {
        const auto key = fmt::format("consumer {} {}", s_.group, static_cast<const void*>(this));
        if (!on) {
            s_.transport.set_route_change_handler(key, RouteChangeHandler{});
            return;
        }
        s_.transport.set_route_change_handler(key, [gate = s_.gate, this](const std::string& topic) {
            gate->post([this, topic] {
                if (s_.subscriptions.find(topic)) {
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
template <class T>
void Rebalancer<T>::rebalance_later() {
    if (rebalance_later_pending_.exchange(true)) {
        return;
    }
    s_.schedule(rebalance_later_delay_millis, [this] {
        rebalance_later_pending_.store(false);
        do_rebalance();
    });
}

template <class T>
void Rebalancer<T>::do_rebalance() {
    if (s_.stopping.load() || s_.paused.load()) {
        return;
    }
    // Under message_request_mode Pop no client rebalance runs (ConsumerCore::rebalance_now pops instead),
    // also not from a route change or an offset reset: pulling the queues it pops would deliver their
    // messages twice and commit pull offsets over the group's pop offsets (the broker keeps one table).
    if (s_.config.message_request_mode == MessageRequestMode::Pop) {
        return;
    }
    const auto subs = s_.subscriptions.copy();
    for (const auto& [topic, sd] : subs) {
        try {
            rebalance_topic(topic);
        } catch (const std::exception& e) {
            if (!is_retry_topic(topic)) {
                log_repeated(LogLevel::Warn,
                             fmt::format("rebalance {} {}", s_.group, topic),
                             "group [{}]: rebalance of {} failed: {}",
                             s_.group,
                             topic,
                             e.what());
            }
        }
    }
    truncate_not_my_topic(subs);
    if (s_.clustering) {
        subscription_check_.check(subs);
    }
}

/// Java 5.x's doRebalance: the broker's answer (getRebalanceResultFromBroker) under a broker allocation
/// policy, else the client's own split (rebalanceByTopic).
template <class T>
void Rebalancer<T>::rebalance_topic(const std::string& topic) {
    if constexpr (BrokerAllocatePolicy<Allocate>) {
        rebalance_by_broker(topic);
    } else {
        rebalance_by_client(topic);
    }
}

template <class T>
void Rebalancer<T>::rebalance_by_client(const std::string& topic) {
    std::vector<MessageQueue> mq_all;
    try {
        mq_all = s_.transport.topic_route(topic).read_queues;
    } catch (const std::exception& e) {
        if (!is_retry_topic(topic)) {
            log_repeated(LogLevel::Warn,
                         fmt::format("no route {} {}", s_.group, topic),
                         "group [{}]: no route for {}: {}",
                         s_.group,
                         topic,
                         e.what());
        }
        return;
    }
    std::sort(mq_all.begin(), mq_all.end());
    std::vector<MessageQueue> mine;
    if constexpr (PinsQueues<Allocate>) {
        if (auto pinned = allocate_.pinned(topic, std::span<const MessageQueue>(mq_all))) {
            if (update_process_queue_table(topic, *pinned)) {
                message_queue_changed();
            }
            return;
        }
    }
    if (!s_.clustering) {
        mine = mq_all;
    } else {
        auto cids = s_.transport.consumer_id_list(topic, s_.group);
        if (cids.empty()) {
            return;
        }
        std::sort(cids.begin(), cids.end());
        try {
            mine = allocate(topic, mq_all, cids);
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn, "group [{}]: allocation of {} failed: {}", s_.group, topic, e.what());
            return;
        }
    }
    if (update_process_queue_table(topic, mine)) {
        message_queue_changed();
    }
}

/// The allocation policy's answer; a sticky policy (rmq::StickyAllocatePolicy) also sees the queues of
/// `topic` this member owns now.
template <class T>
std::vector<MessageQueue> Rebalancer<T>::allocate(const std::string& topic,
                                                  const std::vector<MessageQueue>& mq_all,
                                                  const std::vector<std::string>& cids) {
    const std::span<const MessageQueue> all(mq_all);
    const std::span<const std::string> ids(cids);
    if constexpr (StickyAllocatePolicy<Allocate>) {
        std::vector<MessageQueue> previous;
        for (const auto& [mq, pq] : s_.table_snapshot()) {
            if (mq.topic == topic && !pq->dropped()) {
                previous.push_back(mq);
            }
        }
        return allocate_.allocate(s_.group, s_.client_id, all, ids, std::span<const MessageQueue>(previous));
    } else {
        (void)topic;
        return allocate_.allocate(s_.group, s_.client_id, all, ids);
    }
}

/// Java's messageQueueChanged: per-topic thresholds are split among the owned queues; heartbeat.
template <class T>
void Rebalancer<T>::message_queue_changed() {
    std::size_t n = 0;
    {
        const std::lock_guard lock(s_.table_mutex);
        n = s_.table.size();
    }
    if (n > 0) {
        const auto count = static_cast<std::int64_t>(n);
        if (s_.config.pull_threshold_for_topic != -1) {
            s_.pull_threshold_for_queue.store(
                std::max<std::int64_t>(1, s_.config.pull_threshold_for_topic / count));
        }
        if (s_.config.pull_threshold_size_for_topic != -1) {
            s_.pull_threshold_size_for_queue.store(
                std::max<std::int64_t>(1, s_.config.pull_threshold_size_for_topic / count));
        }
    }
    heartbeat_.send();
}

}  // namespace rmq::detail
