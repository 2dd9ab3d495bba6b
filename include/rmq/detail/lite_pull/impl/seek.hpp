#pragma once

/// @file detail/lite_pull/impl/seek.hpp
/// LitePullEngine::seek: Java's seek(mq, offset). The queue's ownership is replaced on the event loop: the
/// old one is dropped (its cache cleared, its batches waiting for poll() discarded, an answer of its pull
/// still under way ignored by the puller), a new one pulls from `offset`, and `offset` becomes the consume
/// offset and, as Java's updateConsumeOffset, the offset store's.

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include <rmq/error.hpp>

#include <rmq/detail/consumer/queue_access.hpp>
#include <rmq/detail/lite_pull/engine.hpp>

namespace rmq::detail {

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::seek(const MessageQueue& mq, std::int64_t offset) {
    check_running("seek");
    if (!buffer().owned(mq)) {
        throw IllegalState(fmt::format("seek(): {} is not assigned to this consumer{}",
                                       mq,
                                       mode_ == Mode::Subscribe ? " (it may be rebalancing)" : ""));
    }
    auto& transport = CoreAccess::state(*core_).transport;
    const std::int64_t min = transport.min_offset(mq);
    const std::int64_t max = transport.max_offset(mq);
    if (offset < min || offset > max) {
        throw InvalidArgument(
            fmt::format("seek(): offset {} of {} is outside [{}, {}]", offset, mq, min, max));
    }
    const std::lock_guard lock(user_mutex_);
    on_loop([this, &mq, offset] { restart_queue(mq, offset); });
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::seek_to_begin(const MessageQueue& mq) {
    check_running("seek_to_begin");
    seek(mq, CoreAccess::state(*core_).transport.min_offset(mq));
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::seek_to_end(const MessageQueue& mq) {
    check_running("seek_to_end");
    seek(mq, CoreAccess::state(*core_).transport.max_offset(mq));
}

/// Runs `fn` on the event loop (where the rebalance changes the queue table too) and waits for it.
template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::on_loop(const std::function<void()>& fn) {
    auto& s = CoreAccess::state(*core_);
    if (s.scheduler.in_loop()) {
        fn();
        return;
    }
    auto done = std::make_shared<std::promise<void>>();
    auto ran = done->get_future();
    s.scheduler.post([fn, done] {
        fn();
        done->set_value();
    });
    while (ran.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
        if (s.stopping.load()) {
            throw IllegalState("the lite pull consumer shut down during the call");
        }
    }
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::restart_queue(const MessageQueue& mq, std::int64_t offset) {
    auto& s = CoreAccess::state(*core_);
    const auto old = s.find_pq(mq);
    if (!old || old->dropped()) {
        return;  // a rebalance let it go meanwhile
    }
    CoreAccess::committer(*core_).reset(mq, offset);
    old->set_dropped(true);
    old->clear();
    auto pq = std::make_shared<ProcessQueue>(s.clock);
    pq->set_locked(true);
    pq->set_last_lock_timestamp(s.clock->steady_millis());
    {
        const std::lock_guard lock(s.table_mutex);
        s.table.insert_or_assign(mq, pq);
    }
    const ConsumeQueue q = QueueAccess::queue(mq, pq);
    buffer().replace(q, offset);
    CoreAccess::puller(*core_).start(mq, pq, offset, -1, 0);
}

}  // namespace rmq::detail
