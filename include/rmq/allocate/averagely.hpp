#pragma once

/// @file allocate/averagely.hpp
/// rmq::AllocateAveragely: contiguous blocks of queues per consumer (Java's AllocateMessageQueueAveragely,
/// "AVG").

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/message_queue.hpp>

#include <rmq/detail/allocate_check.hpp>

namespace rmq {

/// RocketMQ's default strategy. With N queues and C consumers, consumer i (its position in `cid_all`) gets
/// one contiguous block of N/C queues; the first N%C consumers get one more, consumers beyond N get none.
/// Example N=10, C=4: [0,1,2] [3,4,5] [6,7] [8,9]. Stateless; throws rmq::InvalidArgument for an empty
/// current id, `mq_all` or `cid_all` (in that order), returns [] for a client id not in `cid_all`.
struct AllocateAveragely {
    /// Java's strategy name.
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "AVG"; }

    /// The block of `mq_all` owned by `current_cid` (consumer.md §3.4.1).
    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view /*group*/,
                                                     std::string_view current_cid,
                                                     std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string> cid_all) const {
        const auto index = detail::check_allocate_args(current_cid, mq_all, cid_all);
        if (!index) {
            return {};
        }
        const std::size_t n = mq_all.size();
        const std::size_t c = cid_all.size();
        const std::size_t mod = n % c;
        const bool gets_extra = mod > 0 && *index < mod;
        const std::size_t avg = n <= c ? 1 : (gets_extra ? n / c + 1 : n / c);
        const std::size_t start = gets_extra ? *index * avg : *index * avg + mod;
        if (start >= n) {
            return {};
        }
        const auto block = mq_all.subspan(start, std::min(avg, n - start));
        return {block.begin(), block.end()};
    }
};

}  // namespace rmq
