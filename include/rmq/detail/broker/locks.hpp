#pragma once

/// @file detail/broker/locks.hpp
/// Orderly queue locks of the embedded broker (RebalanceLockManager): per consumer group, a queue is held by
/// one client until it unlocks it or stops renewing it for the lock's max live time (60 s by default).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::detail {

class QueueLocks {
public:
    /// `max_live_millis`: a lock not renewed for longer than this has expired.
    explicit QueueLocks(std::int64_t max_live_millis) noexcept
        : max_live_millis_(max_live_millis) {}

    /// RebalanceLockManager.tryLockBatch at steady time `now`: each queue is granted (and its lock renewed)
    /// when `client_id` holds it, or taken over when it is free or expired. Returns the granted queues.
    std::vector<MessageQueue> lock_batch(const std::string& group,
                                         const std::string& client_id,
                                         const std::vector<MessageQueue>& mqs,
                                         std::int64_t now);

    /// RebalanceLockManager.unlockBatch: only the locks `client_id` holds are removed.
    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<MessageQueue>& mqs);

    /// The client holding an unexpired lock on the queue at steady time `now`.
    [[nodiscard]] std::optional<std::string>
    owner(const std::string& group, const MessageQueue& mq, std::int64_t now) const;

    /// A restart: every lock is gone (they live in memory only).
    void clear() noexcept { locks_.clear(); }

    /// How many lock_batch calls `group` has made (first locks and renewals).
    [[nodiscard]] std::uint64_t requests(const std::string& group) const;

private:
    struct Entry {
        std::string client_id;
        std::int64_t last_update = 0;
    };

    [[nodiscard]] bool expired(const Entry& e, std::int64_t now) const noexcept {
        return now - e.last_update > max_live_millis_;
    }

    std::int64_t max_live_millis_;
    std::map<std::string, std::map<MessageQueue, Entry>> locks_;
    std::map<std::string, std::uint64_t> requests_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/locks.ipp>
#endif
