#pragma once

/// @file detail/pop_consumer/delay.hpp
/// The delays of the push consumer's POP mode (Java's DefaultMQPushConsumerImpl.popDelayLevel and
/// ConsumeMessagePopConcurrentlyService.changePopInvisibleTime / checkNeedAckOrDelay): a failed message is
/// not sent back, its invisible time is changed to a delay of this table.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace rmq::detail {

/// popDelayLevel, seconds: 10s 30s 1m 2m ... 30m 1h 2h.
inline constexpr std::array<std::int64_t, 16> pop_delay_level_seconds{
    10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200};

/// changePopInvisibleTime: the invisible time (ms) of a failed message. Level 0 (the context's default) means
/// the message's reconsume times; a level past the table means its last entry.
inline std::int64_t pop_retry_delay_millis(int delay_level, int reconsume_times) noexcept {
    const int level = delay_level == 0 ? reconsume_times : delay_level;
    const auto last = pop_delay_level_seconds.size() - 1;
    const auto index = level < 0 ? std::size_t{0} : std::min(static_cast<std::size_t>(level), last);
    return pop_delay_level_seconds[index] * 1000;
}

/// checkNeedAckOrDelay, for a message failed at max reconsume times `age_millis` after it was born: nullopt
/// when older than twice the last level (Java acks it: the message is given up), else the delay level just
/// above its age. (Java indexes the table with -1 for a message younger than 10 s and throws; rmq uses the
/// first level.)
inline std::optional<int> pop_exhausted_delay_level(std::int64_t age_millis) noexcept {
    const auto size = static_cast<int>(pop_delay_level_seconds.size());
    if (age_millis > pop_delay_level_seconds.back() * 1000 * 2) {
        return std::nullopt;
    }
    for (int level = size - 1; level >= 0; --level) {
        if (age_millis >= pop_delay_level_seconds[static_cast<std::size_t>(level)] * 1000) {
            return std::min(level + 1, size - 1);
        }
    }
    return 0;
}

}  // namespace rmq::detail
