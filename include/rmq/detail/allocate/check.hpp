#pragma once

/// @file detail/allocate/check.hpp
/// The argument check every stock allocation strategy except AllocateByConfig runs first
/// (Java's AbstractAllocateMessageQueueStrategy.check).

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::detail {

/// Throws rmq::InvalidArgument with Java's messages, in Java's order (empty current id, then empty mq_all,
/// then empty cid_all); returns the first position of `current_cid` in `cid_all` (Java's indexOf), or nullopt
/// when it is absent, which the strategies answer with an empty allocation.
std::optional<std::size_t> check_allocate_args(std::string_view current_cid,
                                               std::span<const MessageQueue> mq_all,
                                               std::span<const std::string> cid_all);

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/allocate/impl/check.ipp>
#endif
