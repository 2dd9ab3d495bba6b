#pragma once

// Shared by the libFuzzer targets: a decoder may reject input only with its documented exception; anything
// else (another exception, a crash, a sanitizer report, a hang) is a finding.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <rmq/remoting/codec_error.hpp>

namespace rmq_fuzz {

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

inline std::span<const std::byte> bytes(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const std::byte*>(data), size};
}

/// Runs `f`, swallowing only rmq::remoting::CodecError (the documented rejection).
template <class F>
void expect_codec(F&& f) {
    try {
        f();
    } catch (const rmq::remoting::CodecError&) {
    }
}

}  // namespace rmq_fuzz
