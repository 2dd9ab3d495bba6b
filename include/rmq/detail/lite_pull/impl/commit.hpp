#pragma once

/// @file detail/lite_pull/impl/commit.hpp
/// LitePullEngine: Java's commitAll / commitSync, committed(), searchOffset. A commit writes each owned
/// queue's consume offset (what poll() returned up to) to the offset store; the store reaches its backing
/// (the broker, or the local file in broadcasting) at once (commit_sync) or with the periodic persist, the
/// next pull of the queue, a rebalance that lets it go, or shutdown (commit_async).

#include <cstdint>

#include <fmt/format.h>

#include <rmq/consume_context.hpp>
#include <rmq/error.hpp>

#include <rmq/detail/lite_pull/engine.hpp>

namespace rmq::detail {

/// The consume offsets into the store's memory (callers hold user_mutex_).
template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::commit_polled() {
    auto& committer = CoreAccess::committer(*core_);
    for (const auto& [mq, offset] : buffer().consume_offsets()) {
        committer.commit(mq, offset, false);
    }
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::commit_sync() {
    check_running("commit_sync");
    const std::lock_guard lock(user_mutex_);
    commit_polled();
    CoreAccess::committer(*core_).persist_all();
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::commit_async() {
    check_running("commit_async");
    const std::lock_guard lock(user_mutex_);
    commit_polled();
    auto& committer = CoreAccess::committer(*core_);
    CoreAccess::state(*core_).schedule(0, [&committer] { committer.persist_all(); });
}

/// Java's committed(): the store's offset of `mq`, from memory or else its backing; -1 when none was ever
/// committed.
template <class Allocate, class OffsetStore, class Tr>
std::int64_t LitePullEngine<Allocate, OffsetStore, Tr>::committed(const MessageQueue& mq) {
    check_running("committed");
    const std::int64_t offset =
        CoreAccess::committer(*core_).store().read_offset(mq, ReadOffsetType::MemoryFirstThenStore);
    if (offset == -2) {
        throw Error(fmt::format("committed(): reading the offset of {} from the broker failed", mq));
    }
    return offset;
}

template <class Allocate, class OffsetStore, class Tr>
std::int64_t LitePullEngine<Allocate, OffsetStore, Tr>::offset_for_timestamp(const MessageQueue& mq,
                                                                             std::int64_t timestamp) {
    check_running("offset_for_timestamp");
    return CoreAccess::state(*core_).transport.search_offset(mq, timestamp);
}

}  // namespace rmq::detail
