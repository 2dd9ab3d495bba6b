#pragma once

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>

#include <rmq/detail/broker/delays.hpp>
#include <rmq/detail/broker/store.hpp>

namespace rmq::detail {

/// Milliseconds of one unit letter; throws rmq::InvalidArgument for an unknown one.
RMQ_DECL std::int64_t unit_millis(std::string_view item) {
    switch (item.back()) {
    case 's':
        return 1000;
    case 'm':
        return 60 * 1000;
    case 'h':
        return 60 * 60 * 1000;
    case 'd':
        return 24 * 60 * 60 * 1000;
    default:
        throw InvalidArgument(fmt::format("message_delay_level: unknown unit in \"{}\"", item));
    }
}

/// One item ("5s") in milliseconds.
RMQ_DECL std::int64_t item_millis(std::string_view item) {
    if (item.size() < 2) {
        throw InvalidArgument(fmt::format("message_delay_level: bad item \"{}\"", item));
    }
    const std::int64_t unit = unit_millis(item);
    std::int64_t n = 0;
    for (const char c : item.substr(0, item.size() - 1)) {
        if (c < '0' || c > '9') {
            throw InvalidArgument(fmt::format("message_delay_level: bad number in \"{}\"", item));
        }
        n = n * 10 + (c - '0');
    }
    return n * unit;
}

RMQ_DECL std::vector<std::int64_t> parse_delay_levels(std::string_view text) {
    std::vector<std::int64_t> out;
    while (!text.empty()) {
        const std::size_t start = text.find_first_not_of(' ');
        if (start == std::string_view::npos) {
            break;
        }
        text.remove_prefix(start);
        const std::size_t end = std::min(text.find(' '), text.size());
        out.push_back(item_millis(text.substr(0, end)));
        text.remove_prefix(end);
    }
    if (out.empty()) {
        throw InvalidArgument("message_delay_level is empty");
    }
    return out;
}

RMQ_DECL std::optional<DelaySchedule::Wait> DelaySchedule::redirect(MessageExt& m, Clock& clock) const {
    std::int32_t level = m.delay_time_level();
    if (level <= 0) {
        return std::nullopt;
    }
    level = std::min(level, static_cast<std::int32_t>(levels_.size()));
    m.set_delay_time_level(level);
    const std::int64_t delay = levels_[static_cast<std::size_t>(level - 1)];
    m.set_property(property::real_topic, m.topic());
    m.set_property(property::real_queue_id, std::to_string(m.queue_id()));
    m.set_topic(std::string(schedule_topic));
    m.set_queue_id(level - 1);
    Wait wait;
    wait.due = clock.steady_millis() + delay;
    wait.tags_code = clock.wall_millis() + delay;  // ScheduleMessageService: the CQ holds the due time
    return wait;
}

RMQ_DECL void DelaySchedule::add(std::int64_t due, std::shared_ptr<const MessageExt> stored) {
    scheduled_.emplace(due, std::move(stored));
}

RMQ_DECL std::vector<MessageExt> DelaySchedule::take_due(std::int64_t now) {
    std::vector<MessageExt> due;
    while (!scheduled_.empty() && scheduled_.begin()->first <= now) {
        const auto src = scheduled_.begin()->second;
        scheduled_.erase(scheduled_.begin());
        MessageExt m;
        m.set_properties(src->properties());
        m.set_body(src->body());
        m.set_flag(src->flag());
        m.set_sys_flag(src->sys_flag());
        m.set_born_timestamp(src->born_timestamp());
        m.set_born_host(src->born_host());
        m.set_reconsume_times(src->reconsume_times());
        m.set_topic(std::string(src->property_view(property::real_topic)));
        m.set_queue_id(parse_int_or(src->property_view(property::real_queue_id), 0));
        // messageTimeup clears DELAY only after encoding the properties string: the stored copy keeps DELAY
        // (and REAL_TOPIC / REAL_QID), it is just not delayed again.
        due.push_back(std::move(m));
    }
    return due;
}

RMQ_DECL std::optional<std::int64_t> DelaySchedule::next_due() const {
    if (scheduled_.empty()) {
        return std::nullopt;
    }
    return scheduled_.begin()->first;
}

}  // namespace rmq::detail
