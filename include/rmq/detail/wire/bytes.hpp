#pragma once

/// @file detail/wire/bytes.hpp
/// Big-endian byte reading/writing with bounds checks, shared by the remoting codecs.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <rmq/error.hpp>

namespace rmq::detail {

/// Appends big-endian integers and raw bytes to a std::string used as a byte buffer.
class ByteWriter {
public:
    explicit ByteWriter(std::string& out) noexcept
        : out_(out) {}

    void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }

    void i16(std::int16_t v) { be(static_cast<std::uint16_t>(v), 2); }

    void i32(std::int32_t v) { be(static_cast<std::uint32_t>(v), 4); }

    void i64(std::int64_t v) { be(static_cast<std::uint64_t>(v), 8); }

    void bytes(std::string_view b) { out_.append(b); }

    /// Overwrites a big-endian int32 already written at `pos` (length fields known only at the end).
    void patch_i32(std::size_t pos, std::int32_t v) {
        const auto u = static_cast<std::uint32_t>(v);
        for (int i = 0; i < 4; ++i) {
            out_[pos + static_cast<std::size_t>(i)] = static_cast<char>((u >> (24 - 8 * i)) & 0xFFU);
        }
    }

    [[nodiscard]] std::size_t size() const noexcept { return out_.size(); }

private:
    void be(std::uint64_t v, int n) {
        for (int i = n - 1; i >= 0; --i) {
            out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
        }
    }

    std::string& out_;
};

/// Reads big-endian integers and byte ranges; running past the end throws rmq::CodecError naming
/// `what` (the structure being decoded) and the field.
class ByteReader {
public:
    ByteReader(std::span<const std::byte> data, std::string_view what) noexcept
        : data_(data)
        , what_(what) {}

    [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - pos_; }

    [[nodiscard]] std::size_t position() const noexcept { return pos_; }

    std::uint8_t u8(std::string_view field) {
        need(1, field);
        return static_cast<std::uint8_t>(data_[pos_++]);
    }

    std::int8_t i8(std::string_view field) { return static_cast<std::int8_t>(u8(field)); }

    std::int16_t i16(std::string_view field) { return static_cast<std::int16_t>(be(2, field)); }

    std::int32_t i32(std::string_view field) { return static_cast<std::int32_t>(be(4, field)); }

    std::int64_t i64(std::string_view field) { return static_cast<std::int64_t>(be(8, field)); }

    /// `n` raw bytes as a view into the input.
    std::string_view bytes(std::size_t n, std::string_view field) {
        need(n, field);
        const std::string_view out(reinterpret_cast<const char*>(data_.data()) + pos_, n);
        pos_ += n;
        return out;
    }

    void skip(std::size_t n, std::string_view field) {
        need(n, field);
        pos_ += n;
    }

    /// Reads a length that must be >= 0 and fit in what is left.
    std::size_t length_i32(std::string_view field) {
        const std::int32_t n = i32(field);
        check_length(n, field);
        return static_cast<std::size_t>(n);
    }

    std::size_t length_i16(std::string_view field) {
        const std::int16_t n = i16(field);
        check_length(n, field);
        return static_cast<std::size_t>(n);
    }

    [[noreturn]] void fail(std::string_view problem) const {
        throw CodecError(fmt::format("{}: {} (at byte {} of {})", what_, problem, pos_, data_.size()));
    }

private:
    void check_length(std::int64_t n, std::string_view field) const {
        if (n < 0) {
            fail(fmt::format("negative {} {}", field, n));
        }
        if (static_cast<std::uint64_t>(n) > remaining()) {
            fail(fmt::format("{} {} exceeds the {} bytes left", field, n, remaining()));
        }
    }

    void need(std::size_t n, std::string_view field) const {
        if (n > remaining()) {
            fail(fmt::format("truncated: {} needs {} bytes, {} left", field, n, remaining()));
        }
    }

    std::uint64_t be(int n, std::string_view field) {
        need(static_cast<std::size_t>(n), field);
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) {
            v = (v << 8) | static_cast<std::uint8_t>(data_[pos_++]);
        }
        return v;
    }

    std::span<const std::byte> data_;
    std::size_t pos_ = 0;
    std::string_view what_;
};

/// A std::string's bytes as a byte span.
inline std::span<const std::byte> as_bytes(std::string_view s) noexcept {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

/// Uppercase hex, as Java's UtilAll.bytes2string (message ids: one per decoded message). Two characters per
/// byte from one table look-up.
inline std::string hex_upper(std::string_view bytes) {
    static constexpr auto pairs = [] {
        constexpr char digits[] = "0123456789ABCDEF";
        std::array<char, 512> t{};
        for (std::size_t b = 0; b < 256; ++b) {
            t[2 * b] = digits[b >> 4];
            t[2 * b + 1] = digits[b & 0xF];
        }
        return t;
    }();
    std::string out(bytes.size() * 2, '\0');
    char* dst = out.data();
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        std::memcpy(dst + 2 * i, pairs.data() + 2 * static_cast<unsigned char>(bytes[i]), 2);
    }
    return out;
}

/// Parses hex (either case); throws CodecError on odd length or a non-hex digit.
inline std::string unhex(std::string_view hex, std::string_view what) {
    if (hex.size() % 2 != 0) {
        throw CodecError(fmt::format("{}: odd hex length {}", what, hex.size()));
    }
    auto nibble = [&](char c) -> unsigned {
        if (c >= '0' && c <= '9') {
            return static_cast<unsigned>(c - '0');
        }
        if (c >= 'a' && c <= 'f') {
            return static_cast<unsigned>(c - 'a' + 10);
        }
        if (c >= 'A' && c <= 'F') {
            return static_cast<unsigned>(c - 'A' + 10);
        }
        throw CodecError(fmt::format("{}: '{}' is not a hex digit", what, c));
    };
    std::string out;
    out.reserve(hex.size() / 2);
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        out.push_back(static_cast<char>((nibble(hex[i]) << 4) | nibble(hex[i + 1])));
    }
    return out;
}

}  // namespace rmq::detail
