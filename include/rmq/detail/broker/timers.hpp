#pragma once

/// @file detail/broker/timers.hpp
/// 5.x timer messages on the embedded broker (HookUtils.transformTimerMessage and TimerMessageStore): a
/// message with TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS waits in rmq_sys_wheel_timer until due,
/// on the broker's Clock, then is stored in its real topic and queue (the delay schedule delivers it).

#include <cstdint>
#include <optional>
#include <string_view>

#include <rmq/clock.hpp>
#include <rmq/config.hpp>
#include <rmq/message.hpp>
#include <rmq/transport/broker_config.hpp>

#include <rmq/detail/broker/delays.hpp>

namespace rmq::detail {

/// TimerMessageStore.TIMER_TOPIC: where timer messages wait.
inline constexpr std::string_view timer_topic = "rmq_sys_wheel_timer";

/// For a timer message of a send (not one with a delay level: its timer properties are removed, the level
/// wins, as in Java), the wall time it is due; nullopt for other messages and for ones already through the
/// timer (TIMER_OUT_MS set). Throws rmq::TimerRejected (MESSAGE_ILLEGAL) when the timer wheel is disabled,
/// a value is not a number, or the delay exceeds timer_max_delay_sec.
std::optional<std::int64_t> timer_due(MessageExt& m, std::int64_t wall_now, const BrokerConfig& config);

/// Moves a timer message due at `due_wall` into rmq_sys_wheel_timer queue 0 (TIMER_OUT_MS, REAL_TOPIC and
/// REAL_QID set) and says when it is due; nullopt (message untouched) when `due_wall` is not in the future:
/// Java stores such a message in its topic at once.
std::optional<DelaySchedule::Wait> redirect_timer(MessageExt& m, std::int64_t due_wall, Clock& clock);

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/timers.ipp>
#endif
