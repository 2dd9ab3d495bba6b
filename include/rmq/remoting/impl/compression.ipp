#pragma once

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <memory>

#include <zlib.h>

#include <rmq/remoting/compression.hpp>
#if RMQ_DETAIL_HAS_LZ4
#    include <lz4frame.h>
#endif
#if RMQ_DETAIL_HAS_ZSTD
#    include <zstd.h>
#endif

#include <fmt/format.h>

namespace rmq::remoting {

namespace detail {

[[noreturn]] inline void not_compiled_in(CompressionType type) {
    throw CodecError(
        fmt::format("{} body compression support is not compiled in (define RMQ_WITH_{} and link "
                    "its library)",
                    compression_name(type),
                    compression_name(type)));
}

/// Appends `n` inflated bytes unless that would pass `limit`, checked before the string grows; capacity
/// grows geometrically but never past the limit.
inline void
append_capped(std::string& out, const char* data, std::size_t n, std::size_t limit, CompressionType type) {
    if (n > limit - out.size()) {
        throw CodecError(
            fmt::format("{} body decompresses to more than {} bytes", compression_name(type), limit));
    }
    if (out.size() + n > out.capacity()) {
        out.reserve(std::min(limit, std::max(out.size() + n, 2 * out.capacity())));
    }
    out.append(data, n);
}

inline std::string zlib_inflate(std::string_view in, std::size_t limit) {
    z_stream zs{};
    if (inflateInit(&zs) != Z_OK) {
        throw CodecError("ZLIB: inflateInit failed");
    }
    std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
    // zlib's next_in is not const (without ZLIB_CONST), but inflate only reads the input.
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast)
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
        append_capped(out, buf, sizeof buf - zs.avail_out, limit, CompressionType::Zlib);
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
inline std::string lz4_decompress(std::string_view in, std::size_t limit) {
    LZ4F_dctx* ctx = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
        throw CodecError("LZ4: cannot create a decompression context");
    }
    std::unique_ptr<LZ4F_dctx, LZ4F_errorCode_t (*)(LZ4F_dctx*)> guard(ctx, LZ4F_freeDecompressionContext);
    std::string out;
    char buf[65536];
    const char* src = in.data();
    std::size_t left = in.size();
    while (true) {
        std::size_t dst_size = sizeof buf;
        std::size_t src_size = left;
        const std::size_t hint = LZ4F_decompress(ctx, buf, &dst_size, src, &src_size, nullptr);
        if (LZ4F_isError(hint)) {
            throw CodecError(fmt::format("LZ4 body is corrupt: {}", LZ4F_getErrorName(hint)));
        }
        append_capped(out, buf, dst_size, limit, CompressionType::Lz4);
        src += src_size;
        left -= src_size;
        if (hint == 0) {
            break;  // frame complete
        }
        if (src_size == 0 && dst_size == 0) {
            throw CodecError("LZ4 body is truncated");  // wants more input and has no buffered output
        }
    }
    return out;
}

inline std::string lz4_compress(std::string_view in, int /*level*/) {
    // Like lz4-java's LZ4FrameOutputStream (what Java's Lz4Compressor uses, ignoring the level): fast
    // compressor, independent blocks of at most 4 MiB declared as such even for small bodies (lz4-java cannot
    // read dependent blocks), no checksums. The streaming API keeps the declared block size (compressFrame
    // would shrink it).
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.blockSizeID = LZ4F_max4MB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    prefs.compressionLevel = 0;
    LZ4F_cctx* ctx = nullptr;
    if (LZ4F_isError(LZ4F_createCompressionContext(&ctx, LZ4F_VERSION))) {
        throw CodecError("LZ4: cannot create a compression context");
    }
    std::unique_ptr<LZ4F_cctx, LZ4F_errorCode_t (*)(LZ4F_cctx*)> guard(ctx, LZ4F_freeCompressionContext);
    std::string out(LZ4F_HEADER_SIZE_MAX + LZ4F_compressBound(in.size(), &prefs), '\0');
    auto check = [](std::size_t rc) {
        if (LZ4F_isError(rc)) {
            throw CodecError(fmt::format("LZ4: compression failed: {}", LZ4F_getErrorName(rc)));
        }
        return rc;
    };
    std::size_t n = check(LZ4F_compressBegin(ctx, out.data(), out.size(), &prefs));
    n += check(LZ4F_compressUpdate(ctx, out.data() + n, out.size() - n, in.data(), in.size(), nullptr));
    n += check(LZ4F_compressEnd(ctx, out.data() + n, out.size() - n, nullptr));
    out.resize(n);
    return out;
}
#endif

#if RMQ_DETAIL_HAS_ZSTD
inline std::string zstd_decompress(std::string_view in, std::size_t limit) {
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
        append_capped(out, buf.data(), output.pos, limit, CompressionType::Zstd);
        if (rc != 0 && input.pos == input.size && output.pos < output.size) {
            throw CodecError("ZSTD body is truncated");
        }
    }
    return out;
}

inline std::string zstd_compress(std::string_view in, int level) {
    // Streamed like zstd-jni's ZstdOutputStream (Java's ZstdCompressor): the frame does not declare its
    // content size and has no checksum.
    std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    auto check = [](std::size_t rc) {
        if (ZSTD_isError(rc)) {
            throw CodecError(fmt::format("ZSTD: compression failed: {}", ZSTD_getErrorName(rc)));
        }
        return rc;
    };
    if (!cctx) {
        throw CodecError("ZSTD: cannot create a compression context");
    }
    check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level));
    std::string out;
    std::string buf(ZSTD_CStreamOutSize(), '\0');
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    while (input.pos < input.size) {
        ZSTD_outBuffer output{buf.data(), buf.size(), 0};
        check(ZSTD_compressStream2(cctx.get(), &output, &input, ZSTD_e_continue));
        out.append(buf.data(), output.pos);
    }
    // Java flushes before closing the stream, so the data ends a block and an empty last block follows.
    ZSTD_inBuffer none{nullptr, 0, 0};
    for (const auto op : {ZSTD_e_flush, ZSTD_e_end}) {
        std::size_t remaining = 1;
        while (remaining != 0) {
            ZSTD_outBuffer output{buf.data(), buf.size(), 0};
            remaining = check(ZSTD_compressStream2(cctx.get(), &output, &none, op));
            out.append(buf.data(), output.pos);
        }
    }
    return out;
}
#endif

}  // namespace detail

RMQ_DECL std::string decompress(std::string_view data, CompressionType type) {
    return decompress(data, type, max_decompressed_body);
}

RMQ_DECL std::string decompress(std::string_view data, CompressionType type, std::size_t limit) {
    switch (type) {
    case CompressionType::Zlib:
        return detail::zlib_inflate(data, limit);
    case CompressionType::Lz4:
#if RMQ_DETAIL_HAS_LZ4
        return detail::lz4_decompress(data, limit);
#else
        detail::not_compiled_in(type);
#endif
    case CompressionType::Zstd:
#if RMQ_DETAIL_HAS_ZSTD
        return detail::zstd_decompress(data, limit);
#else
        detail::not_compiled_in(type);
#endif
    }
    throw CodecError(fmt::format("unknown compression type {}", static_cast<int>(type)));
}

RMQ_DECL std::string compress(std::string_view data, CompressionType type, int level) {
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
