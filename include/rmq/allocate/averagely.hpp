#pragma once

/// @file allocate/averagely.hpp
/// rmq::AllocateAveragely: contiguous blocks of queues per consumer (Java's AllocateMessageQueueAveragely,
/// "AVG").

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/allocate/check.hpp>

namespace rmq {

/// RocketMQ's default strategy. With N queues and C consumers, consumer i (its position in `cid_all`) gets
/// one contiguous block of N/C queues; the first N%C consumers get one more, consumers beyond N get none.
/// Example N=10, C=4: [0,1,2] [3,4,5] [6,7] [8,9]. Stateless; throws rmq::InvalidArgument for an empty
/// current id, `mq_all` or `cid_all` (in that order), returns [] for a client id not in `cid_all`.
struct AllocateAveragely {
    /// Java's strategy name.
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "AVG"; }

    /// The block of `mq_all` owned by `current_cid` (docs/policies/allocate.md).
    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view /*group*/,
                                                     std::string_view current_cid,
                                                     std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string> cid_all) const;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/allocate/impl/averagely.ipp>
#endif
