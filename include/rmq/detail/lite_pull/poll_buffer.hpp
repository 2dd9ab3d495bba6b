#pragma once

/// @file detail/lite_pull/poll_buffer.hpp
/// rmq::detail::PollBuffer: Java's consumeRequestCache and AssignedMessageQueue in one place. Pulled batches
/// wait here (they also stay in their queue's cache, whose size the puller's flow control reads) until
/// poll() takes one; each owned queue has its consume offset (what poll() handed out, separate from the
/// pull offset the puller keeps) and may be paused. Every member is thread-safe: the event loop puts and
/// tracks queues, the application's thread polls.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <rmq/message_queue.hpp>
#include <rmq/order/consume_queue.hpp>
#include <rmq/order/message_batch.hpp>

namespace rmq::detail {

/// What a pull found for one ownership of a queue (Java's ConsumeRequest).
struct PollRequest {
    ConsumeQueue q;
    MessageBatch batch;
};

class PollBuffer {
public:
    /// Called on the loop when a queue is taken on (true) or let go (false).
    using QueueListener = std::function<void(const MessageQueue&, bool owned)>;
    /// Commits a consume offset to the offset store's memory (auto-commit of a queue that leaves).
    using Commit = std::function<void(const MessageQueue&, std::int64_t)>;

    struct Limits {
        std::int64_t pull_batch_size = 10;
        std::int64_t pull_threshold_for_all = 10000;
        std::int64_t pause_delay_millis = 1000;
        std::int64_t flow_control_delay_millis = 50;
    };

    /// Before start(). `commit_on_leave`: empty without auto-commit.
    void configure(Limits limits, QueueListener listener, Commit commit_on_leave) {
        const std::lock_guard lock(mutex_);
        limits_ = limits;
        listener_ = std::move(listener);
        commit_on_leave_ = std::move(commit_on_leave);
    }

    // ------------------------------------------------------------------ the event loop's side

    void put(const ConsumeQueue& q, MessageBatch batch) {
        {
            const std::lock_guard lock(mutex_);
            requests_.push_back(PollRequest{q, std::move(batch)});
        }
        ready_.notify_one();
    }

    void added(const ConsumeQueue& q) {
        QueueListener listener;
        {
            const std::lock_guard lock(mutex_);
            queues_.insert_or_assign(q.mq(), QueueState{q, -1});
            listener = listener_;
        }
        if (listener) {
            listener(q.mq(), true);
        }
    }

    /// A seek: `q` is the new ownership of its queue, consumed up to `consume_offset`; the old one's batches
    /// go. The queue listener is not told (the queue stays this member's).
    void replace(const ConsumeQueue& q, std::int64_t consume_offset) {
        const std::lock_guard lock(mutex_);
        drop_requests_locked(q.mq());
        queues_.insert_or_assign(q.mq(), QueueState{q, consume_offset});
    }

    /// Auto-commit: what was polled of `q` is committed before the core persists its offset.
    void leaving(const ConsumeQueue& q) {
        std::int64_t offset = -1;
        {
            const std::lock_guard lock(mutex_);
            const auto it = queues_.find(q.mq());
            if (!commit_on_leave_ || it == queues_.end() || !(it->second.q == q)) {
                return;
            }
            offset = it->second.consume_offset;
        }
        if (offset >= 0) {
            commit_on_leave_(q.mq(), offset);
        }
    }

    void removed(const ConsumeQueue& q) {
        QueueListener listener;
        {
            const std::lock_guard lock(mutex_);
            const auto it = queues_.find(q.mq());
            if (it == queues_.end() || !(it->second.q == q)) {
                return;  // a newer ownership (a seek) replaced it
            }
            queues_.erase(it);
            drop_requests_locked(q.mq());
            listener = listener_;
        }
        if (listener) {
            listener(q.mq(), false);
        }
    }

    /// Java's pull task checks: a paused queue waits, and so does every queue while the batches waiting
    /// here hold more than pull_threshold_for_all messages (counted as Java does, batches × pull_batch_size).
    [[nodiscard]] std::int64_t pull_delay(const MessageQueue& mq) const {
        const std::lock_guard lock(mutex_);
        if (paused_.contains(mq)) {
            return limits_.pause_delay_millis;
        }
        if (static_cast<std::int64_t>(requests_.size()) * limits_.pull_batch_size >
            limits_.pull_threshold_for_all) {
            return limits_.flow_control_delay_millis;
        }
        return 0;
    }

    // ------------------------------------------------------------------ the application's side

    /// The oldest batch of a queue still owned, waiting up to `timeout`; nullopt: none came (or stop()).
    [[nodiscard]] std::optional<PollRequest> take(std::chrono::milliseconds timeout) {
        std::unique_lock lock(mutex_);
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (true) {
            while (!requests_.empty() && requests_.front().q.dropped()) {
                requests_.pop_front();
            }
            if (!requests_.empty()) {
                PollRequest out = std::move(requests_.front());
                requests_.pop_front();
                return out;
            }
            if (stopped_ || ready_.wait_until(lock, deadline) == std::cv_status::timeout) {
                if (requests_.empty() || stopped_) {
                    return std::nullopt;
                }
            }
        }
    }

    /// Wakes and refuses every poll from now on.
    void stop() {
        {
            const std::lock_guard lock(mutex_);
            stopped_ = true;
            requests_.clear();
        }
        ready_.notify_all();
    }

    /// Java's clearMessageQueueInCache: the batches of `mq` waiting here go.
    void drop_requests(const MessageQueue& mq) {
        const std::lock_guard lock(mutex_);
        drop_requests_locked(mq);
    }

    /// The current ownership of `mq`; nullopt: not owned.
    [[nodiscard]] std::optional<ConsumeQueue> owned(const MessageQueue& mq) const {
        const std::lock_guard lock(mutex_);
        const auto it = queues_.find(mq);
        return it == queues_.end() ? std::nullopt : std::optional<ConsumeQueue>(it->second.q);
    }

    [[nodiscard]] std::vector<MessageQueue> owned_queues() const {
        const std::lock_guard lock(mutex_);
        std::vector<MessageQueue> out;
        out.reserve(queues_.size());
        for (const auto& [mq, st] : queues_) {
            out.push_back(mq);
        }
        return out;
    }

    /// Sets the consume offset of ownership `q` (poll, seek); false when `q` is no longer owned.
    bool set_consume_offset(const ConsumeQueue& q, std::int64_t offset) {
        const std::lock_guard lock(mutex_);
        const auto it = queues_.find(q.mq());
        if (it == queues_.end() || !(it->second.q == q)) {
            return false;
        }
        it->second.consume_offset = offset;
        return true;
    }

    /// The consume offsets of the owned queues that have one (-1: nothing polled or sought yet).
    [[nodiscard]] std::map<MessageQueue, std::int64_t> consume_offsets() const {
        const std::lock_guard lock(mutex_);
        std::map<MessageQueue, std::int64_t> out;
        for (const auto& [mq, st] : queues_) {
            if (st.consume_offset >= 0 && !st.q.dropped()) {
                out.emplace(mq, st.consume_offset);
            }
        }
        return out;
    }

    void pause(const std::vector<MessageQueue>& mqs) {
        const std::lock_guard lock(mutex_);
        paused_.insert(mqs.begin(), mqs.end());
    }

    void resume(const std::vector<MessageQueue>& mqs) {
        const std::lock_guard lock(mutex_);
        for (const auto& mq : mqs) {
            paused_.erase(mq);
        }
    }

    [[nodiscard]] bool paused(const MessageQueue& mq) const {
        const std::lock_guard lock(mutex_);
        return paused_.contains(mq);
    }

private:
    struct QueueState {
        ConsumeQueue q;
        std::int64_t consume_offset = -1;
    };

    void drop_requests_locked(const MessageQueue& mq) {
        std::erase_if(requests_, [&mq](const PollRequest& r) { return r.q.mq() == mq; });
    }

    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<PollRequest> requests_;
    std::map<MessageQueue, QueueState> queues_;
    std::set<MessageQueue> paused_;
    Limits limits_;
    QueueListener listener_;
    Commit commit_on_leave_;
    bool stopped_ = false;
};

}  // namespace rmq::detail
