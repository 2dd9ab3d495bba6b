#pragma once

/// @file allocate/averagely_by_circle.hpp
/// rmq::AllocateAveragelyByCircle: round-robin queues per consumer (Java's
/// AllocateMessageQueueAveragelyByCircle, "AVG_BY_CIRCLE").

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/allocate/check.hpp>

namespace rmq {

/// Deals queues out like cards: consumer i (its position in `cid_all`) gets queues i, i+C, i+2C, ...
/// Example N=10, C=4: [0,4,8] [1,5,9] [2,6] [3,7]. Stateless; same argument checks as rmq::AllocateAveragely.
struct AllocateAveragelyByCircle {
    /// Java's strategy name.
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "AVG_BY_CIRCLE"; }

    /// Every C-th queue of `mq_all`, starting at the position of `current_cid` (docs/policies/allocate.md).
    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view /*group*/,
                                                     std::string_view current_cid,
                                                     std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string> cid_all) const;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/allocate/impl/averagely_by_circle.ipp>
#endif
