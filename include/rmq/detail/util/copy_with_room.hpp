#pragma once

/// @file detail/util/copy_with_room.hpp
/// A consumer's copy of a pulled message, with room for the properties the consumer adds to it.

#include <cstddef>

#include <rmq/message.hpp>

namespace rmq::detail {

/// What the consumer adds to a pulled message: CONSUME_START_TIME, MAX_OFFSET and MIN_OFFSET.
inline constexpr std::size_t consumer_added_properties = 3;

/// A copy of `src` whose properties are allocated once with room for the consumer's three, instead of
/// again when the consumer stamps it. The room is asked for here, at a consumer's copy sites (the embedded
/// broker's pull answer, an orderly take, a policy's own copy), not by every copy of a Properties.
[[nodiscard]] inline MessageExt copy_with_room(const MessageExt& src) {
    return {src, consumer_added_properties};
}

}  // namespace rmq::detail
