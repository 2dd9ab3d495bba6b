#pragma once

/// @file detail/md5.hpp
/// MD5 through OpenSSL's EVP interface (the MD5() shortcut is deprecated in OpenSSL 3).

#include <array>
#include <cstdint>
#include <string_view>

#include <openssl/evp.h>

#include <rmq/error.hpp>

namespace rmq::detail {

/// MD5 digest of `bytes`.
inline std::array<unsigned char, 16> md5(std::string_view bytes) {
    std::array<unsigned char, 16> digest{};
    unsigned int size = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_md5(), nullptr) != 1 ||
        size != digest.size()) {
        throw Error("EVP_Digest(MD5) failed");
    }
    return digest;
}

/// RocketMQ's consistent-hash function (ConsistentHashRouter.MD5Hash): the first 4 bytes of MD5(key) as an
/// unsigned big-endian 32-bit value. Java hashes `key.getBytes()`; rmq strings are already UTF-8.
inline std::uint32_t md5_prefix32(std::string_view key) {
    const auto d = md5(key);
    return (std::uint32_t{d[0]} << 24) | (std::uint32_t{d[1]} << 16) | (std::uint32_t{d[2]} << 8) |
           std::uint32_t{d[3]};
}

}  // namespace rmq::detail
