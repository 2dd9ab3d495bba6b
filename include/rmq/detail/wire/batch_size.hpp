#pragma once

/// @file detail/wire/batch_size.hpp
/// The size of a SEND_BATCH_MESSAGE body (MessageDecoder.encodeMessages) without building it: what both the
/// producer and the embedded broker hold to max_message_size.

#include <cstddef>
#include <span>

#include <rmq/message.hpp>

namespace rmq::detail {

/// Bytes of one batch entry: TOTALSIZE, MAGICCODE, BODYCRC, FLAG, BODYLEN (4 bytes each), the body, PROPLEN
/// (2 bytes) and the properties string.
inline std::size_t batch_entry_size(const Message& m) {
    return 5 * 4 + m.body().size() + 2 + encode_properties(m.properties()).size();
}

/// Bytes of the whole batch body.
inline std::size_t batch_body_size(std::span<const Message> msgs) {
    std::size_t n = 0;
    for (const auto& m : msgs) {
        n += batch_entry_size(m);
    }
    return n;
}

}  // namespace rmq::detail
