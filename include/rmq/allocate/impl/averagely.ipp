#pragma once

/// @file allocate/impl/averagely.ipp
/// Definitions of allocate/averagely.hpp.

#include <rmq/allocate/averagely.hpp>

// Only the definitions need these.
#include <algorithm>

namespace rmq {

RMQ_DECL std::vector<MessageQueue> AllocateAveragely::allocate(std::string_view /*group*/,
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

}  // namespace rmq
