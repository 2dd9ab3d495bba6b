#pragma once

/// @file detail/allocate_check.hpp
/// The argument check every stock allocation strategy except AllocateByConfig runs first
/// (Java's AbstractAllocateMessageQueueStrategy.check).

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::detail {

/// Throws rmq::InvalidArgument with Java's messages, in Java's order (empty current id, then empty mq_all,
/// then empty cid_all); returns the first position of `current_cid` in `cid_all` (Java's indexOf), or nullopt
/// when it is absent, which the strategies answer with an empty allocation.
inline std::optional<std::size_t> check_allocate_args(std::string_view current_cid,
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
