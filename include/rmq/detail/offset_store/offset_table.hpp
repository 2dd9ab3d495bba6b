#pragma once

/// @file detail/offset_store/offset_table.hpp
/// The in-memory mq → offset table every offset store shares (Java's ConcurrentMap<MessageQueue, AtomicLong>,
/// with 5.x's ControllableOffset freeze): consume threads update existing entries under a shared lock with a
/// CAS, only new entries and removals take the exclusive lock.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::detail {

/// Thread-safe offset table. Movable (the move locks the source), so stores holding it stay movable.
class OffsetTable {
public:
    OffsetTable() = default;

    OffsetTable(OffsetTable&& other) noexcept {
        const std::unique_lock lock(other.mutex_);
        // Not in the initializer list: other's lock must be held first.
        // NOLINTNEXTLINE(cppcoreguidelines-prefer-member-initializer)
        table_ = std::move(other.table_);
    }

    OffsetTable& operator=(OffsetTable&& other) noexcept {
        if (this != &other) {
            const std::scoped_lock lock(mutex_, other.mutex_);
            table_ = std::move(other.table_);
        }
        return *this;
    }

    OffsetTable(const OffsetTable&) = delete;
    OffsetTable& operator=(const OffsetTable&) = delete;
    ~OffsetTable() = default;

    /// Java's updateOffset: put-if-absent, else raise (increase_only) or set; a frozen entry ignores updates.
    void update(const MessageQueue& mq, std::int64_t offset, bool increase_only);

    /// 5.x updateAndFreezeOffset: set the value and ignore later updates until the entry is removed.
    void update_and_freeze(const MessageQueue& mq, std::int64_t offset);

    /// The entry's value, nullopt when absent.
    [[nodiscard]] std::optional<std::int64_t> get(const MessageQueue& mq) const {
        const std::shared_lock lock(mutex_);
        if (auto it = table_.find(mq); it != table_.end()) {
            return it->second.value.load(std::memory_order_relaxed);
        }
        return std::nullopt;
    }

    /// Deletes the entry (and with it a freeze); whether it existed.
    bool remove(const MessageQueue& mq) {
        const std::unique_lock lock(mutex_);
        return table_.erase(mq) > 0;
    }

    /// A copy of every entry, or of those of `topic` when it is not empty (Java's cloneOffsetTable).
    [[nodiscard]] std::map<MessageQueue, std::int64_t> snapshot(std::string_view topic = {}) const;

    /// Removes the given queues (after a remote persist_all found them unused).
    void remove_all(std::span<const MessageQueue> mqs);

private:
    struct Entry {
        explicit Entry(std::int64_t v) noexcept
            : value(v) {}

        std::atomic<std::int64_t> value;
        bool frozen = false;  // written under the exclusive lock only
    };

    static void apply(Entry& e, std::int64_t offset, bool increase_only) noexcept {
        if (e.frozen) {
            return;
        }
        if (!increase_only) {
            e.value.store(offset, std::memory_order_relaxed);
            return;
        }
        std::int64_t cur = e.value.load(std::memory_order_relaxed);
        while (offset > cur && !e.value.compare_exchange_weak(cur, offset, std::memory_order_relaxed)) {
        }
    }

    mutable std::shared_mutex mutex_;
    // Hashed: every listener call's commit looks its queue up here, and Java's compareTo order (two string
    // comparisons per tree level) cost several times one hash; snapshot() gives the order back.
    std::unordered_map<MessageQueue, Entry> table_;
};

/// Whether `mq` is in `mqs` (small sets: the queues one consumer owns).
inline bool contains_queue(std::span<const MessageQueue> mqs, const MessageQueue& mq) noexcept {
    return std::find(mqs.begin(), mqs.end(), mq) != mqs.end();
}

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/offset_store/impl/offset_table.ipp>
#endif
