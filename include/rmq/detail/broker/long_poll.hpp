#pragma once

/// @file detail/broker/long_poll.hpp
/// Long polling on the embedded broker (PullRequestHoldService): pulls that found nothing are held per queue
/// until a matching message arrives, the periodic hold check sees their queue grew, or their deadline passes.
/// This table only decides which held pulls wake; the broker re-runs them (broker_state.hpp).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/protocol.hpp>
#include <rmq/subscription.hpp>

#include <rmq/detail/broker/store.hpp>

namespace rmq::detail {

/// PullRequestHoldService: how often held pulls are re-checked with long polling on.
inline constexpr std::int64_t hold_check_interval_millis = 5000;

/// A pull parked until its queue has something for it.
struct HeldPull {
    PullArgs args;
    PullCallback callback;
    /// Clock steady time it is answered at the latest.
    std::int64_t deadline = 0;
    /// The subscription the pull filters with (arrivals that do not match do not wake it).
    std::optional<SubscriptionData> filter;
};

class HeldPulls {
public:
    /// `check_interval_millis`: the periodic hold check (5 s, or short_polling_time_mills without long
    /// polling).
    explicit HeldPulls(std::int64_t check_interval_millis) noexcept
        : check_interval_millis_(check_interval_millis) {}

    /// The first periodic check is one interval after steady time `now` (the broker's start).
    void start(std::int64_t now) noexcept { next_check_ = now + check_interval_millis_; }

    void hold(HeldPull pull);

    /// notifyMessageArriving: the pulls held on the queue that a message with `tags_code` just reached and
    /// that it matches (and whose offset is below the queue's max), removed from the table.
    std::vector<HeldPull> take_arrived(const std::string& topic,
                                       std::int32_t queue_id,
                                       std::int64_t tags_code,
                                       const MessageStore& store);

    /// At steady time `now`: the pulls past their deadline and, when the periodic check is due, those whose
    /// queue grew past their offset whatever the tags; removed from the table.
    std::vector<HeldPull> take_due(std::int64_t now, const MessageStore& store);

    /// Every held pull (the broker is stopping).
    std::vector<HeldPull> take_all();

    [[nodiscard]] std::size_t count() const;

    /// The earliest deadline or periodic check while pulls are held.
    [[nodiscard]] std::optional<std::int64_t> next_deadline() const;

private:
    using QueueKey = std::pair<std::string, std::int32_t>;

    std::int64_t check_interval_millis_;
    std::int64_t next_check_ = 0;
    std::map<QueueKey, std::vector<HeldPull>> held_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/long_poll.ipp>
#endif
