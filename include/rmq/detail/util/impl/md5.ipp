#pragma once

#include <openssl/evp.h>

#include <rmq/error.hpp>

#include <rmq/detail/util/md5.hpp>

namespace rmq::detail {

RMQ_DECL std::array<unsigned char, 16> md5(std::string_view bytes) {
    std::array<unsigned char, 16> digest{};
    unsigned int size = 0;
    // EVP_Digest: the MD5() shortcut is deprecated in OpenSSL 3.
    if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_md5(), nullptr) != 1 ||
        size != digest.size()) {
        throw Error("EVP_Digest(MD5) failed");
    }
    return digest;
}

RMQ_DECL std::uint32_t md5_prefix32(std::string_view key) {
    const auto d = md5(key);
    return (std::uint32_t{d[0]} << 24) | (std::uint32_t{d[1]} << 16) | (std::uint32_t{d[2]} << 8) |
           std::uint32_t{d[3]};
}

}  // namespace rmq::detail
