#pragma once

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include <rmq/pop.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker/pop.hpp>

namespace rmq::detail {

RMQ_DECL void PopCheckPoints::add(PopCheckPoint ck) {
    Key key{ck.group, ck.topic, ck.queue_id, ck.offset};
    points_.insert_or_assign(std::move(key), std::move(ck));
}

RMQ_DECL std::optional<PopCheckPoint> PopCheckPoints::take(const std::string& group,
                                                           const std::string& topic,
                                                           std::int32_t queue_id,
                                                           std::int64_t offset,
                                                           std::int64_t pop_time) {
    const auto it = points_.find(Key{group, topic, queue_id, offset});
    if (it == points_.end() || it->second.pop_time != pop_time) {
        return std::nullopt;
    }
    auto ck = std::move(it->second);
    points_.erase(it);
    return ck;
}

RMQ_DECL std::vector<PopCheckPoint> PopCheckPoints::take_expired(std::int64_t now) {
    std::vector<PopCheckPoint> out;
    for (auto it = points_.begin(); it != points_.end();) {
        if (it->second.deadline <= now) {
            out.push_back(std::move(it->second));
            it = points_.erase(it);
        } else {
            ++it;
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const PopCheckPoint& a, const PopCheckPoint& b) {
        return a.deadline < b.deadline;
    });
    return out;
}

RMQ_DECL std::optional<std::int64_t> PopCheckPoints::next_deadline() const {
    std::optional<std::int64_t> next;
    for (const auto& [key, ck] : points_) {
        next = next ? std::min(*next, ck.deadline) : ck.deadline;
    }
    return next;
}

RMQ_DECL std::size_t PopCheckPoints::count(const std::string& group) const {
    return static_cast<std::size_t>(std::count_if(
        points_.begin(), points_.end(), [&](const auto& entry) { return entry.second.group == group; }));
}

RMQ_DECL MessageExt make_revive_message(const MessageExt& original,
                                        const PopCheckPoint& ck,
                                        std::int32_t retry_max_times) {
    MessageExt inner;
    inner.set_properties(original.properties());
    inner.clear_property(property::delay_time_level);  // a delayed original's DELAY must not delay it again
    inner.set_body(original.body());
    inner.set_flag(original.flag());
    inner.set_sys_flag(original.sys_flag());
    inner.set_born_timestamp(original.born_timestamp());
    inner.set_born_host(original.born_host());
    inner.set_reconsume_times(original.reconsume_times() + 1);
    if (original.reconsume_times() == 0 || !inner.has_property(property::first_pop_time)) {
        inner.set_property(property::first_pop_time, fmt::format("{}", ck.pop_time));
    }
    if (!inner.has_property(property::retry_topic)) {
        inner.set_property(property::retry_topic, ck.origin_topic);
    }
    inner.set_queue_id(0);
    if (inner.reconsume_times() > retry_max_times) {
        inner.set_topic(dlq_topic(ck.group));
    } else {
        inner.set_topic(pop_retry_topic(ck.origin_topic, ck.group));
    }
    return inner;
}

}  // namespace rmq::detail
