#pragma once

/// @file detail/util/md5.hpp
/// MD5 (OpenSSL's EVP interface, included only from impl/md5.ipp) and RocketMQ's consistent-hash prefix.

#include <array>
#include <cstdint>
#include <string_view>

#include <rmq/config.hpp>

namespace rmq::detail {

/// MD5 digest of `bytes`; rmq::Error if OpenSSL fails.
std::array<unsigned char, 16> md5(std::string_view bytes);

/// RocketMQ's consistent-hash function (ConsistentHashRouter.MD5Hash): the first 4 bytes of MD5(key) as an
/// unsigned big-endian 32-bit value. Java hashes `key.getBytes()`; rmq strings are already UTF-8.
std::uint32_t md5_prefix32(std::string_view key);

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/util/impl/md5.ipp>
#endif
