#pragma once

/// @file order/orderly_common.hpp
/// What every broker-locked order policy decides the same way (rmq::Orderly and rmq::KeyOrderly use these; a
/// user's policy may too): the suspend pause and Java's checkReconsumeTimes. Written on the public facade
/// (rmq::OrderHost) only.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <rmq/message.hpp>

namespace rmq::orderly {

/// The pause of SuspendCurrentQueueAMoment: -1 means the consumer's suspend_current_queue_time_millis;
/// clamped to [lo, hi] ms (Java: [10, 30000]).
template <class Host>
std::int64_t
suspend_millis(const Host& host, std::int64_t millis, std::int64_t lo = 10, std::int64_t hi = 30000) {
    if (millis == -1) {
        millis = host.config().suspend_current_queue_time_millis;
    }
    return std::clamp(millis, lo, hi);
}

/// Java's checkReconsumeTimes: true = suspend and retry the messages locally (their reconsume times counted);
/// messages past max_reconsume_times are moved to the DLQ (if that fails they are retried locally as well).
template <class Host>
bool check_reconsume_times(Host& host, std::vector<MessageExt>& msgs) {
    bool suspend = false;
    const int max = host.max_reconsume_times();
    for (auto& msg : msgs) {
        if (msg.reconsume_times() >= max) {
            msg.set_property(property::reconsume_time, std::to_string(msg.reconsume_times()));
            if (host.send_to_dlq(msg)) {
                continue;
            }
        }
        suspend = true;
        msg.set_reconsume_times(msg.reconsume_times() + 1);
    }
    return suspend;
}

}  // namespace rmq::orderly
