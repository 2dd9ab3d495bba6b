#pragma once

/// @file detail/broker/delays.hpp
/// Delayed delivery of the embedded broker (ScheduleMessageService): the delay-level table, the rewrite of a
/// message with a delay level into SCHEDULE_TOPIC_XXXX, and the schedule of messages waiting to be due.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <rmq/clock.hpp>
#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>

#include <rmq/detail/broker/store.hpp>

namespace rmq::detail {

/// TopicValidator.RMQ_SYS_SCHEDULE_TOPIC: where delayed messages wait.
inline constexpr std::string_view schedule_topic = "SCHEDULE_TOPIC_XXXX";

/// Parses MessageStoreConfig.messageDelayLevel ("1s 5s 1m 2h ..."; units s, m, h, d) into milliseconds per
/// level (index 0 = level 1). Throws rmq::InvalidArgument for an unknown unit or number.
std::vector<std::int64_t> parse_delay_levels(std::string_view text);

class DelaySchedule {
public:
    /// `levels`: milliseconds per delay level (index 0 = level 1), not empty.
    explicit DelaySchedule(std::vector<std::int64_t> levels)
        : levels_(std::move(levels)) {}

    /// Where a delayed message waits: steady time it is due, and its consume-queue tags code (its due wall
    /// time, as ScheduleMessageService keeps it).
    struct Wait {
        std::int64_t due = 0;
        std::int64_t tags_code = 0;
    };

    /// CommitLog.putMessage for a message with a delay level: the level is clamped to the table, REAL_TOPIC /
    /// REAL_QID keep its destination and it moves to SCHEDULE_TOPIC_XXXX queue level - 1. nullopt (message
    /// untouched) without a delay level.
    std::optional<Wait> redirect(MessageExt& m, Clock& clock) const;

    /// Schedules a stored delayed message.
    void add(std::int64_t due, std::shared_ptr<const MessageExt> stored);

    /// ScheduleMessageService.messageTimeup: the messages due at steady time `now`, earliest first, rebuilt
    /// for their real topic and queue (to be stored again, not delayed again), removed from the schedule.
    std::vector<MessageExt> take_due(std::int64_t now);

    [[nodiscard]] std::size_t count() const noexcept { return scheduled_.size(); }

    /// Steady time the earliest delayed message is due.
    [[nodiscard]] std::optional<std::int64_t> next_due() const;

private:
    std::vector<std::int64_t> levels_;
    std::multimap<std::int64_t, std::shared_ptr<const MessageExt>> scheduled_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/delays.ipp>
#endif
