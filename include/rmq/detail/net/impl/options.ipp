#pragma once

#include <atomic>

#include <rmq/detail/net/options.hpp>

namespace rmq::detail {

RMQ_DECL std::int32_t next_opaque() noexcept {
    static std::atomic<std::uint32_t> counter{0};
    return static_cast<std::int32_t>(counter.fetch_add(1, std::memory_order_relaxed) & 0x7FFFFFFFU);
}

}  // namespace rmq::detail
