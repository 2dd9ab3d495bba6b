#pragma once

#include <algorithm>
#include <iterator>
#include <utility>

#include <rmq/pop.hpp>

#include <rmq/detail/broker/pop_long_poll.hpp>
#include <rmq/detail/broker/store.hpp>

namespace rmq::detail {

RMQ_DECL bool HeldPops::hold(HeldPop pop, std::int64_t max_total, std::int64_t max_per_key) {
    if (static_cast<std::int64_t>(total_) >= max_total) {
        return false;
    }
    auto& list = held_[Key{pop.topic, pop.group, pop.queue_id}];
    if (static_cast<std::int64_t>(list.size()) > max_per_key) {
        return false;
    }
    list.push_back(std::move(pop));
    ++total_;
    return true;
}

RMQ_DECL bool HeldPops::wake_first(std::vector<HeldPop>& list, std::optional<std::int64_t> tags_code) {
    const auto it = std::find_if(list.begin(), list.end(), [&](const HeldPop& p) {
        return !tags_code || matched_by_consume_queue(p.filter, *tags_code);
    });
    if (it == list.end()) {
        return false;
    }
    let_go(*it, PopWake::Arrived);
    list.erase(it);
    return true;
}

RMQ_DECL bool
HeldPops::wake_arrived(const std::string& topic, std::int32_t queue_id, std::int64_t tags_code) {
    bool woke = false;
    for (auto& [key, list] : held_) {
        const auto& [held_topic, group, held_queue] = key;
        if (held_topic == topic && (held_queue == -1 || held_queue == queue_id)) {
            woke = wake_first(list, tags_code) || woke;
        } else if (held_queue == -1 && pop_retry_topic(held_topic, group) == topic) {
            woke = wake_first(list, std::nullopt) || woke;  // the retry queue is popped unfiltered
        }
    }
    erase_empty();
    return woke;
}

RMQ_DECL bool
HeldPops::wake_queue(const std::string& topic, const std::string& group, std::int32_t queue_id) {
    bool woke = false;
    for (const auto q : {queue_id, -1}) {
        if (const auto it = held_.find(Key{topic, group, q}); it != held_.end()) {
            woke = wake_first(it->second, std::nullopt) || woke;
        }
    }
    erase_empty();
    return woke;
}

RMQ_DECL bool HeldPops::wake_due(std::int64_t now) {
    bool woke = false;
    for (auto& [key, list] : held_) {
        std::erase_if(list, [&](const HeldPop& p) {
            if (now < p.deadline) {
                return false;
            }
            let_go(p, PopWake::TimedOut);
            woke = true;
            return true;
        });
    }
    erase_empty();
    return woke;
}

RMQ_DECL bool HeldPops::wake_interrupted(std::uint64_t handle, const std::string& group) {
    bool woke = false;
    for (auto& [key, list] : held_) {
        std::erase_if(list, [&](const HeldPop& p) {
            if ((handle != 0 && p.handle != handle) || (!group.empty() && p.group != group)) {
                return false;
            }
            let_go(p, PopWake::Interrupted);
            woke = true;
            return true;
        });
    }
    erase_empty();
    return woke;
}

RMQ_DECL std::optional<std::int64_t> HeldPops::next_deadline() const {
    std::optional<std::int64_t> next;
    for (const auto& [key, list] : held_) {
        for (const auto& p : list) {
            next = next ? std::min(*next, p.deadline) : p.deadline;
        }
    }
    return next;
}

RMQ_DECL void HeldPops::let_go(const HeldPop& p, PopWake why) {
    *p.wake = why;
    --total_;
    if (p.async) {
        woken_async_.push_back(p);
    }
}

RMQ_DECL void HeldPops::erase_empty() {
    std::erase_if(held_, [](const auto& entry) { return entry.second.empty(); });
}

}  // namespace rmq::detail
