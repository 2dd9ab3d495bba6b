#pragma once

/// @file detail/allocate/impl/check.ipp
/// Definitions of detail/allocate/check.hpp.

#include <rmq/detail/allocate/check.hpp>

// Only the definitions need these.
#include <algorithm>

namespace rmq::detail {

RMQ_DECL std::optional<std::size_t> check_allocate_args(std::string_view current_cid,
                                                        std::span<const MessageQueue> mq_all,
                                                        std::span<const std::string> cid_all) {
    if (current_cid.empty()) {
        throw InvalidArgument("currentCID is empty");
    }
    if (mq_all.empty()) {
        throw InvalidArgument("mqAll is null or mqAll empty");
    }
    if (cid_all.empty()) {
        throw InvalidArgument("cidAll is null or cidAll empty");
    }
    const auto it = std::find(cid_all.begin(), cid_all.end(), current_cid);
    if (it == cid_all.end()) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(it - cid_all.begin());
}

}  // namespace rmq::detail
