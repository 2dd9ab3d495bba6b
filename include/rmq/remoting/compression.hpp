#pragma once

/// @file compression.hpp
/// Message body compression as RocketMQ's CompressorFactory does it: zlib streams (java.util.zip.Deflater),
/// LZ4 frames (lz4-java LZ4FrameOutputStream) and Zstandard frames (zstd-jni ZstdOutputStream).
///
/// zlib is always available (rmq links ZLIB::ZLIB). LZ4 and ZSTD need their libraries: define RMQ_WITH_LZ4 /
/// RMQ_WITH_ZSTD and link liblz4 / libzstd to enable them; without, compress/decompress of that type throws
/// rmq::remoting::CodecError saying support is not compiled in.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include <zlib.h>

#include <fmt/format.h>

#include <rmq/remoting/codec_error.hpp>

#if defined(RMQ_WITH_LZ4) && __has_include(<lz4frame.h>)
#    include <lz4frame.h>
#    define RMQ_DETAIL_HAS_LZ4 1
#else
#    define RMQ_DETAIL_HAS_LZ4 0
#endif

#if defined(RMQ_WITH_ZSTD) && __has_include(<zstd.h>)
#    include <zstd.h>
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

namespace detail {

[[noreturn]] inline void not_compiled_in(CompressionType type) {
    throw CodecError(
        fmt::format("{} body compression support is not compiled in (define RMQ_WITH_{} and link "
                    "its library)",
                    compression_name(type),
                    compression_name(type)));
}

inline void check_growth(std::size_t size, CompressionType type) {
    if (size > max_decompressed_body) {
        throw CodecError(fmt::format(
            "{} body decompresses to more than {} bytes", compression_name(type), max_decompressed_body));
    }
}

inline std::string zlib_inflate(std::string_view in) {
    z_stream zs{};
    if (inflateInit(&zs) != Z_OK) {
        throw CodecError("ZLIB: inflateInit failed");
    }
    std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    std::string out;
    char buf[16384];
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            throw CodecError(
                fmt::format("ZLIB body is corrupt: {} (zlib error {})", zs.msg ? zs.msg : "?", rc));
        }
        out.append(buf, sizeof buf - zs.avail_out);
        check_growth(out.size(), CompressionType::Zlib);
        if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
            throw CodecError("ZLIB body is truncated");
        }
    }
    return out;
}

inline std::string zlib_deflate(std::string_view in, int level) {
    uLongf bound = compressBound(static_cast<uLong>(in.size()));
    std::string out(bound, '\0');
    if (compress2(reinterpret_cast<Bytef*>(out.data()),
                  &bound,
                  reinterpret_cast<const Bytef*>(in.data()),
                  static_cast<uLong>(in.size()),
                  level) != Z_OK) {
        throw CodecError(fmt::format("ZLIB: compress2 failed at level {}", level));
    }
    out.resize(bound);
    return out;
}

#if RMQ_DETAIL_HAS_LZ4
inline std::string lz4_decompress(std::string_view in) {
    LZ4F_dctx* ctx = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
        throw CodecError("LZ4: cannot create a decompression context");
    }
    std::unique_ptr<LZ4F_dctx, LZ4F_errorCode_t (*)(LZ4F_dctx*)> guard(ctx, LZ4F_freeDecompressionContext);
    std::string out;
    char buf[65536];
    const char* src = in.data();
    std::size_t left = in.size();
    std::size_t hint = 1;
    while (hint != 0) {
        if (left == 0) {
            throw CodecError("LZ4 body is truncated");
        }
        std::size_t dst_size = sizeof buf;
        std::size_t src_size = left;
        hint = LZ4F_decompress(ctx, buf, &dst_size, src, &src_size, nullptr);
        if (LZ4F_isError(hint)) {
            throw CodecError(fmt::format("LZ4 body is corrupt: {}", LZ4F_getErrorName(hint)));
        }
        out.append(buf, dst_size);
        check_growth(out.size(), CompressionType::Lz4);
        src += src_size;
        left -= src_size;
        if (src_size == 0 && dst_size == 0) {
            throw CodecError("LZ4 body does not progress");
        }
    }
    return out;
}

inline std::string lz4_compress(std::string_view in, int level) {
    LZ4F_preferences_t prefs{};
    prefs.compressionLevel = level;
    std::string out(LZ4F_compressFrameBound(in.size(), &prefs), '\0');
    const std::size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
    if (LZ4F_isError(n)) {
        throw CodecError(fmt::format("LZ4: compression failed: {}", LZ4F_getErrorName(n)));
    }
    out.resize(n);
    return out;
}
#endif

#if RMQ_DETAIL_HAS_ZSTD
inline std::string zstd_decompress(std::string_view in) {
    std::unique_ptr<ZSTD_DStream, std::size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(), ZSTD_freeDStream);
    if (!ds || ZSTD_isError(ZSTD_initDStream(ds.get()))) {
        throw CodecError("ZSTD: cannot create a decompression stream");
    }
    std::string out;
    std::string buf(ZSTD_DStreamOutSize(), '\0');
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    std::size_t rc = 1;
    while (rc != 0) {
        ZSTD_outBuffer output{buf.data(), buf.size(), 0};
        rc = ZSTD_decompressStream(ds.get(), &output, &input);
        if (ZSTD_isError(rc)) {
            throw CodecError(fmt::format("ZSTD body is corrupt: {}", ZSTD_getErrorName(rc)));
        }
        out.append(buf.data(), output.pos);
        check_growth(out.size(), CompressionType::Zstd);
        if (rc != 0 && input.pos == input.size && output.pos < output.size) {
            throw CodecError("ZSTD body is truncated");
        }
    }
    return out;
}

inline std::string zstd_compress(std::string_view in, int level) {
    std::string out(ZSTD_compressBound(in.size()), '\0');
    const std::size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
    if (ZSTD_isError(n)) {
        throw CodecError(fmt::format("ZSTD: compression failed: {}", ZSTD_getErrorName(n)));
    }
    out.resize(n);
    return out;
}
#endif

}  // namespace detail

/// Decompresses a stored body. Throws CodecError when the data is corrupt or the type is not compiled in.
inline std::string decompress(std::string_view data, CompressionType type) {
    switch (type) {
    case CompressionType::Zlib:
        return detail::zlib_inflate(data);
    case CompressionType::Lz4:
#if RMQ_DETAIL_HAS_LZ4
        return detail::lz4_decompress(data);
#else
        detail::not_compiled_in(type);
#endif
    case CompressionType::Zstd:
#if RMQ_DETAIL_HAS_ZSTD
        return detail::zstd_decompress(data);
#else
        detail::not_compiled_in(type);
#endif
    }
    throw CodecError(fmt::format("unknown compression type {}", static_cast<int>(type)));
}

/// Compresses a body like a Java producer (level = rocketmq.message.compressLevel, default 5).
inline std::string compress(std::string_view data, CompressionType type, int level = 5) {
    switch (type) {
    case CompressionType::Zlib:
        return detail::zlib_deflate(data, level);
    case CompressionType::Lz4:
#if RMQ_DETAIL_HAS_LZ4
        return detail::lz4_compress(data, level);
#else
        detail::not_compiled_in(type);
#endif
    case CompressionType::Zstd:
#if RMQ_DETAIL_HAS_ZSTD
        return detail::zstd_compress(data, level);
#else
        detail::not_compiled_in(type);
#endif
    }
    throw CodecError(fmt::format("unknown compression type {}", static_cast<int>(type)));
}

}  // namespace rmq::remoting
