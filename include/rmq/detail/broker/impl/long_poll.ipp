#pragma once

#include <algorithm>
#include <iterator>

#include <rmq/detail/broker/long_poll.hpp>

namespace rmq::detail {

RMQ_DECL void HeldPulls::hold(HeldPull pull) {
    QueueKey key{pull.args.mq.topic, pull.args.mq.queue_id};
    held_[std::move(key)].push_back(std::move(pull));
}

RMQ_DECL std::vector<HeldPull> HeldPulls::take_arrived(const std::string& topic,
                                                       std::int32_t queue_id,
                                                       std::int64_t tags_code,
                                                       const MessageStore& store) {
    std::vector<HeldPull> wake;
    const auto it = held_.find({topic, queue_id});
    if (it == held_.end()) {
        return wake;
    }
    const std::int64_t max = store.max_offset(topic, queue_id);
    std::erase_if(it->second, [&](HeldPull& h) {
        if (max > h.args.queue_offset && matched_by_consume_queue(h.filter, tags_code)) {
            wake.push_back(std::move(h));
            return true;
        }
        return false;
    });
    if (it->second.empty()) {
        held_.erase(it);
    }
    return wake;
}

RMQ_DECL std::vector<HeldPull> HeldPulls::take_due(std::int64_t now, const MessageStore& store) {
    const bool hold_check = now >= next_check_;
    if (hold_check) {
        next_check_ = now + check_interval_millis_;
    }
    std::vector<HeldPull> due;
    for (auto it = held_.begin(); it != held_.end();) {
        const std::int64_t max = store.max_offset(it->first.first, it->first.second);
        std::erase_if(it->second, [&](HeldPull& h) {
            if (now >= h.deadline || (hold_check && max > h.args.queue_offset)) {
                due.push_back(std::move(h));
                return true;
            }
            return false;
        });
        it = it->second.empty() ? held_.erase(it) : std::next(it);
    }
    return due;
}

RMQ_DECL std::vector<HeldPull> HeldPulls::take_all() {
    std::vector<HeldPull> all;
    for (auto& [key, list] : held_) {
        for (auto& h : list) {
            all.push_back(std::move(h));
        }
    }
    held_.clear();
    return all;
}

RMQ_DECL std::size_t HeldPulls::count() const {
    std::size_t n = 0;
    for (const auto& [key, list] : held_) {
        n += list.size();
    }
    return n;
}

RMQ_DECL std::optional<std::int64_t> HeldPulls::next_deadline() const {
    if (held_.empty()) {
        return std::nullopt;
    }
    std::int64_t next = next_check_;
    for (const auto& [key, list] : held_) {
        for (const auto& h : list) {
            next = std::min(next, h.deadline);
        }
    }
    return next;
}

}  // namespace rmq::detail
