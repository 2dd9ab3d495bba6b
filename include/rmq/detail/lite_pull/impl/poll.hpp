#pragma once

/// @file detail/lite_pull/impl/poll.hpp
/// LitePullEngine::poll: Java's poll(timeout). Auto-commit first commits what earlier polls returned (so a
/// message is committed only once the application came back for more), then the oldest waiting batch of a
/// queue still owned leaves its queue's cache (which lets the puller's flow control pull again) and moves
/// the queue's consume offset.

#include <chrono>
#include <cstdint>
#include <vector>

#include <rmq/error.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/consumer/queue_access.hpp>
#include <rmq/detail/lite_pull/engine.hpp>

namespace rmq::detail {

template <class Allocate, class OffsetStore, class Tr>
std::vector<MessageExt> LitePullEngine<Allocate, OffsetStore, Tr>::poll(std::chrono::milliseconds timeout) {
    check_running("poll");
    if (timeout.count() < 0) {
        throw InvalidArgument(
            fmt::format("poll(): timeout must not be negative, got {} ms", timeout.count()));
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    if (config_.auto_commit) {
        const std::lock_guard lock(user_mutex_);
        commit_polled();
    }
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        auto request = buffer().take(std::max(left, std::chrono::milliseconds(0)));
        if (!request) {
            return {};
        }
        const std::lock_guard lock(user_mutex_);
        const auto msgs = request->batch.messages();
        std::vector<std::int64_t> offsets;
        offsets.reserve(msgs.size());
        for (const auto& msg : msgs) {
            offsets.push_back(msg.queue_offset());
        }
        const std::int64_t next = QueueAccess::cache(request->q).remove_messages(offsets);
        // A seek or a rebalance let the queue go meanwhile: its batch is stale.
        if (next >= 0 && buffer().set_consume_offset(request->q, next)) {
            std::vector<MessageExt> out;
            out.reserve(msgs.size());
            for (std::size_t i = 0; i < msgs.size(); ++i) {
                out.push_back(
                    request->batch.copy(i));  // MIN_OFFSET / MAX_OFFSET stamped, as Java's pull sets
                out.back().clear_property(property::consume_start_timestamp);
            }
            return out;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return {};
        }
    }
}

}  // namespace rmq::detail
