#pragma once

/// @file detail/util/crc32.hpp
/// UtilAll.crc32, the one CRC-32 of rmq: the message codec stamps BODYCRC with it, the embedded broker stores
/// it.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <zlib.h>

namespace rmq::detail {

/// CRC-32 (java.util.zip.CRC32) masked to a non-negative int, as the broker stores BODYCRC.
inline std::int32_t crc32(std::string_view data) noexcept {
    // zlib's ::crc32, qualified: this function's own name would hide it.
    uLong crc = ::crc32(0L, Z_NULL, 0);
    // zlib takes uInt lengths; feed large inputs in pieces.
    while (!data.empty()) {
        const auto n = static_cast<uInt>(std::min<std::size_t>(data.size(), 1U << 30));
        crc = ::crc32(crc, reinterpret_cast<const Bytef*>(data.data()), n);
        data.remove_prefix(n);
    }
    return static_cast<std::int32_t>(crc & 0x7FFFFFFFU);
}

}  // namespace rmq::detail
