#pragma once

/// @file allocate/impl/averagely_by_circle.ipp
/// Definitions of allocate/averagely_by_circle.hpp.

#include <rmq/allocate/averagely_by_circle.hpp>

// Only the definitions need these.
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/drop.hpp>
#include <range/v3/view/stride.hpp>

namespace rmq {

RMQ_DECL std::vector<MessageQueue>
AllocateAveragelyByCircle::allocate(std::string_view /*group*/,
                                    std::string_view current_cid,
                                    std::span<const MessageQueue> mq_all,
                                    std::span<const std::string> cid_all) const {
    const auto index = detail::check_allocate_args(current_cid, mq_all, cid_all);
    if (!index) {
        return {};
    }
    return mq_all | ranges::views::drop(static_cast<std::ptrdiff_t>(*index)) |
           ranges::views::stride(static_cast<std::ptrdiff_t>(cid_all.size())) |
           ranges::to<std::vector<MessageQueue>>();
}

}  // namespace rmq
