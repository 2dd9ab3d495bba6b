#pragma once

/// @file detail/broker/pop.hpp
/// 5.x POP on the embedded broker: the check points of popped, not yet acked messages (PopMessageProcessor's
/// CK, AckMessageProcessor, ChangeInvisibleTimeProcessor) with their invisibility deadlines on the broker's
/// Clock, and the message PopReviveService puts back when a deadline passes: to the group's pop retry topic
/// %RETRY%<group>_<topic> with reconsume times + 1, or to %DLQ%<group> past the retry limit.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message.hpp>

namespace rmq::detail {

/// One popped message waiting for its ack.
struct PopCheckPoint {
    std::string group;
    /// The topic the message is stored in: the subscribed one or its pop retry topic.
    std::string topic;
    /// The subscribed topic.
    std::string origin_topic;
    std::int32_t queue_id = 0;
    std::int64_t offset = 0;
    /// Broker wall time (ms) of the pop; a receipt with another pop time is stale.
    std::int64_t pop_time = 0;
    std::int64_t invisible_time = 0;
    /// Clock steady time (ms) when the message becomes visible again.
    std::int64_t deadline = 0;
};

/// The check points of every group. Guarded by the broker's lock.
class PopCheckPoints {
public:
    void add(PopCheckPoint ck);

    /// Removes and returns the check point of (group, topic, queue, offset) if its pop time is `pop_time`
    /// (else nullopt: the receipt was acked, revived or replaced by a change of invisible time).
    std::optional<PopCheckPoint> take(const std::string& group,
                                      const std::string& topic,
                                      std::int32_t queue_id,
                                      std::int64_t offset,
                                      std::int64_t pop_time);

    /// Removes and returns the check points whose deadline is at or before `now`, oldest deadline first.
    std::vector<PopCheckPoint> take_expired(std::int64_t now);

    [[nodiscard]] std::optional<std::int64_t> next_deadline() const;

    /// Check points of `group` (messages popped and neither acked nor revived).
    [[nodiscard]] std::size_t count(const std::string& group) const;

private:
    using Key = std::tuple<std::string, std::string, std::int32_t, std::int64_t>;
    std::map<Key, PopCheckPoint> points_;
};

/// PopReviveService.reviveRetry for the message `original` of check point `ck`: a copy with reconsume
/// times + 1 and 1ST_POP_TIME, for %RETRY%<group>_<topic> queue 0, or %DLQ%<group> queue 0 when the new
/// reconsume times exceed `retry_max_times`.
MessageExt
make_revive_message(const MessageExt& original, const PopCheckPoint& ck, std::int32_t retry_max_times);

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/pop.ipp>
#endif
