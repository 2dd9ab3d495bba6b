#pragma once

#include <charconv>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/broker/timers.hpp>

namespace rmq::detail {

/// A timer property as a number; rmq::TimerRejected when it is not one (WHEEL_TIMER_MSG_ILLEGAL).
RMQ_DECL std::int64_t timer_value(const MessageExt& m, std::string_view name) {
    const auto text = m.property_view(name);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size()) {
        throw TimerRejected(response_code::message_illegal,
                            fmt::format("timer message illegal: {} is not a number: \"{}\"", name, text));
    }
    return v;
}

RMQ_DECL std::optional<std::int64_t>
timer_due(MessageExt& m, std::int64_t wall_now, const BrokerConfig& config) {
    if (m.delay_time_level() > 0) {
        m.clear_property(property::timer_deliver_ms);
        m.clear_property(property::timer_delay_sec);
        m.clear_property(property::timer_delay_ms);
        return std::nullopt;
    }
    if (!m.is_timer_message() || m.has_property(property::timer_out_ms) || m.topic() == timer_topic) {
        return std::nullopt;
    }
    if (!config.timer_wheel_enable) {
        throw TimerRejected(response_code::message_illegal,
                            "accurate timer message is not enabled, timerWheelEnable is false");
    }
    std::int64_t due = 0;
    if (m.has_property(property::timer_delay_sec)) {
        due = wall_now + timer_value(m, property::timer_delay_sec) * 1000;
    } else if (m.has_property(property::timer_delay_ms)) {
        due = wall_now + timer_value(m, property::timer_delay_ms);
    } else {
        due = timer_value(m, property::timer_deliver_ms);
    }
    if (due - wall_now > config.timer_max_delay_sec * 1000) {
        throw TimerRejected(
            response_code::message_illegal,
            fmt::format("timer message illegal, the delay time should not be bigger than the max "
                        "delay {}ms; or if set del msg, the delay time should be bigger than the "
                        "current time",
                        config.timer_max_delay_sec * 1000));
    }
    return due;
}

RMQ_DECL std::optional<DelaySchedule::Wait>
redirect_timer(MessageExt& m, std::int64_t due_wall, Clock& clock) {
    const std::int64_t wall_now = clock.wall_millis();
    if (due_wall <= wall_now) {
        return std::nullopt;
    }
    m.set_property(property::timer_out_ms, std::to_string(due_wall));
    m.set_property(property::real_topic, m.topic());
    m.set_property(property::real_queue_id, std::to_string(m.queue_id()));
    m.set_topic(std::string(timer_topic));
    m.set_queue_id(0);
    DelaySchedule::Wait wait;
    wait.due = clock.steady_millis() + (due_wall - wall_now);
    wait.tags_code = due_wall;
    return wait;
}

}  // namespace rmq::detail
