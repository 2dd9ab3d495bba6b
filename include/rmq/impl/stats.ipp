#pragma once

/// @file impl/stats.ipp
/// Definitions of stats.hpp.

#include <rmq/stats.hpp>

// Only the definitions need these.
#include <algorithm>

#include <fmt/format.h>

namespace rmq {

RMQ_DECL std::vector<std::string> stats_log_lines(const ConsumerStats& stats, std::string_view group) {
    std::vector<std::string> out;
    out.reserve(stats.topics.size());
    for (const TopicStats& t : stats.topics) {
        std::int64_t cached_msgs = 0;
        std::int64_t cached_bytes = 0;
        for (const QueueStats& q : stats.queues) {
            if (q.mq.topic == t.topic) {
                cached_msgs += q.cached_msg_count;
                cached_bytes += q.cached_msg_bytes;
            }
        }
        out.push_back(fmt::format(
            "[ConsumeStats] [{}@{}] Stats In One Minute, PULL_TPS: {:.2f} PULL_RT: {:.2f} CONSUME_OK_TPS: "
            "{:.2f} CONSUME_FAILED_TPS: {:.2f} CONSUME_RT: {:.2f} FAILED_IN_ONE_HOUR: {} CACHED: {} msgs {} "
            "bytes TOTAL: pulled {} ok {} failed {}",
            t.topic,
            group,
            t.pull_tps,
            t.pull_rt,
            t.consume_ok_tps,
            t.consume_failed_tps,
            t.consume_rt,
            t.consume_failed_msgs,
            cached_msgs,
            cached_bytes,
            t.pulled_msgs_total,
            t.consume_ok_total,
            t.consume_failed_total));
    }
    return out;
}

}  // namespace rmq
