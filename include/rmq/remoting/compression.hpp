#pragma once

/// @file remoting/compression.hpp
/// Message body compression as RocketMQ's CompressorFactory does it: zlib streams (java.util.zip.Deflater),
/// LZ4 frames (lz4-java LZ4FrameOutputStream) and Zstandard frames (zstd-jni ZstdOutputStream).
///
/// zlib is always available (rmq links ZLIB::ZLIB). LZ4 and ZSTD need their libraries: define RMQ_WITH_LZ4 /
/// RMQ_WITH_ZSTD and link liblz4 / libzstd to enable them; without, compress/decompress of that type throws
/// rmq::remoting::CodecError saying support is not compiled in.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/remoting/codec_error.hpp>

#if defined(RMQ_WITH_LZ4) && __has_include(<lz4frame.h>)
#    define RMQ_DETAIL_HAS_LZ4 1
#else
#    define RMQ_DETAIL_HAS_LZ4 0
#endif

#if defined(RMQ_WITH_ZSTD) && __has_include(<zstd.h>)
#    define RMQ_DETAIL_HAS_ZSTD 1
#else
#    define RMQ_DETAIL_HAS_ZSTD 0
#endif

namespace rmq::remoting {

/// Java's CompressionType; the value is what MessageSysFlag stores in bits 8-10.
enum class CompressionType : std::int32_t { Lz4 = 1, Zstd = 2, Zlib = 3 };

/// Whether this build can (de)compress `type`.
inline constexpr bool compression_supported(CompressionType type) noexcept {
    switch (type) {
    case CompressionType::Zlib:
        return true;
    // NOLINTNEXTLINE(bugprone-branch-clone): the branches differ in a build without LZ4 or ZSTD
    case CompressionType::Lz4:
        return RMQ_DETAIL_HAS_LZ4 != 0;
    case CompressionType::Zstd:
        return RMQ_DETAIL_HAS_ZSTD != 0;
    }
    return false;
}

/// Name as Java prints it.
inline constexpr std::string_view compression_name(CompressionType type) noexcept {
    switch (type) {
    case CompressionType::Zlib:
        return "ZLIB";
    case CompressionType::Lz4:
        return "LZ4";
    case CompressionType::Zstd:
        return "ZSTD";
    }
    return "UNKNOWN";
}

/// Upper bound for a decompressed body, so a corrupt or hostile record cannot exhaust memory (the broker
/// refuses stored bodies above 4 MiB by default; compressed text rarely expands beyond 100x).
inline constexpr std::size_t max_decompressed_body = 512U * 1024U * 1024U;

/// Upper bound for the bodies of one pull response inflated together (decode_messages): a pull answers at
/// most 32 records by default, so a body of 77 KB zstd RLE records cannot inflate to gigabytes.
inline constexpr std::size_t max_decompressed_pull_body = 512U * 1024U * 1024U;

/// Decompresses a stored body. Throws CodecError when the data is corrupt, the type is not compiled in, or
/// it inflates to more than max_decompressed_body bytes.
std::string decompress(std::string_view data, CompressionType type);

/// decompress() that gives up, before growing its output past it, when the data inflates to more than
/// `limit` bytes (CodecError). A size the frame declares is used only as a hint, never trusted.
std::string decompress(std::string_view data, CompressionType type, std::size_t limit);

/// Compresses a body like a Java producer (level = rocketmq.message.compressLevel, default 5).
std::string compress(std::string_view data, CompressionType type, int level = 5);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/impl/compression.ipp>
#endif
