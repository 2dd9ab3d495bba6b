#pragma once

/// @file detail/net/oneway_permits.hpp
/// rmq::detail::OnewayPermits: Java's semaphoreOneway. Oneway frames cost the caller no wait for an answer,
/// so without a bound a caller faster than the network would queue them without limit; a permit is held by
/// each frame until it is written or dropped with its connection.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include <rmq/error.hpp>

namespace rmq::detail {

class OnewayPermits : public std::enable_shared_from_this<OnewayPermits> {
public:
    explicit OnewayPermits(std::int32_t limit)
        : limit_(limit) {}

    /// A permit: giving up the last copy of it returns it. Waits up to `wait_millis` for one (0: not at
    /// all), then throws rmq::Timeout as Java's invokeOnewayImpl does.
    [[nodiscard]] std::shared_ptr<void> acquire(std::int64_t wait_millis) {
        std::unique_lock lock(mutex_);
        if (!freed_.wait_for(lock, std::chrono::milliseconds(wait_millis), [&] { return used_ < limit_; })) {
            throw Timeout(fmt::format("oneway request not sent: {} oneway requests wait to be written "
                                      "(client_oneway_semaphore_value {}) and none was written within {} ms",
                                      used_,
                                      limit_,
                                      wait_millis));
        }
        ++used_;
        return {this, [self = shared_from_this()](OnewayPermits*) {
                    self->release();
                }};
    }

    [[nodiscard]] std::int32_t in_use() const {
        const std::lock_guard lock(mutex_);
        return used_;
    }

private:
    void release() {
        {
            const std::lock_guard lock(mutex_);
            --used_;
        }
        freed_.notify_one();
    }

    const std::int32_t limit_;
    mutable std::mutex mutex_;
    std::condition_variable freed_;
    std::int32_t used_ = 0;
};

}  // namespace rmq::detail
