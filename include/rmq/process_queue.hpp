#pragma once

/// @file process_queue.hpp
/// rmq::ProcessQueue (Java's ProcessQueue): the client-side cache of pulled-but-not-yet-acknowledged messages
/// of one MessageQueue, with the flow-control counters, the orderly "consuming" map and the lock/pull/consume
/// timestamps the rebalance and dispatch code read.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <rmq/clock.hpp>
#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/util/adaptive_shared_mutex.hpp>

namespace rmq {

/// One ProcessQueue exists per assigned MessageQueue. All members are thread-safe: the two offset-ordered
/// maps sit behind one reader/writer lock, the counters and flags are atomics (Java's AtomicLong / volatile
/// fields).
///
/// Messages are counted in msg_count()/msg_size() from put_messages until they leave for good
/// (remove_messages on the concurrent path, commit on the orderly path); the orderly in-flight ("consuming")
/// ones stay counted.
// Copies deleted, nothing to destroy by hand: no special member is missing.
// NOLINTNEXTLINE(cppcoreguidelines-special-member-functions)
class ProcessQueue {
public:
    /// Client-side lifetime of a broker queue lock (`rocketmq.client.rebalance.lockMaxLiveTime`), ms.
    static constexpr std::int64_t rebalance_lock_max_live_time = 30000;
    /// Period of the orderly lock renewal (`rocketmq.client.rebalance.lockInterval`), ms.
    static constexpr std::int64_t rebalance_lock_interval = 20000;
    /// A queue not pulled for longer than this is replaced by rebalance
    /// (`rocketmq.client.pull.pullMaxIdleTime`).
    static constexpr std::int64_t pull_max_idle_time = 120000;
    /// cleanExpiredMsg looks at no more than this many head messages per run.
    static constexpr std::size_t clean_expired_max_loop = 16;

    /// Java's ProcessQueueInfo: a consistent snapshot for diagnostics (consumer running info).
    struct Info {
        std::int64_t cached_msg_min_offset = 0;       ///< first offset of the cache, 0 when empty (as Java)
        std::int64_t cached_msg_max_offset = 0;       ///< last offset of the cache, 0 when empty
        std::int64_t cached_msg_count = 0;            ///< entries in the cache (orderly in-flight excluded)
        std::int64_t cached_msg_size_in_mib = 0;      ///< msg_size() / 1 MiB, integer division
        std::int64_t transaction_msg_min_offset = 0;  ///< first offset taken by orderly, 0 when none
        std::int64_t transaction_msg_max_offset = 0;  ///< last offset taken by orderly, 0 when none
        std::int64_t transaction_msg_count = 0;       ///< messages taken by orderly and not committed
        bool locked = false;                          ///< locked()
        std::int64_t try_unlock_times = 0;            ///< try_unlock_times()
        std::int64_t last_lock_timestamp = 0;         ///< last_lock_timestamp() (steady ms)
        bool dropped = false;                         ///< dropped()
        std::int64_t last_pull_timestamp = 0;         ///< last_pull_timestamp() (steady ms)
        std::int64_t last_consume_timestamp = 0;      ///< last_consume_timestamp() (steady ms)
    };

    /// Timestamps start at the clock's current steady time, as Java's start at construction time.
    explicit ProcessQueue(std::shared_ptr<Clock> clock = system_clock());

    ProcessQueue(const ProcessQueue&) = delete;
    ProcessQueue& operator=(const ProcessQueue&) = delete;

    /// Java's putMessage. Moves the messages in by queue offset; an offset already cached keeps its message
    /// and is not counted again. Returns "dispatch to consume": true only when the cache is non-empty and no
    /// dispatch was running (consuming() turns true). A parseable MAX_OFFSET property on the last message
    /// updates msg_acc_cnt() when the backlog it implies is positive.
    bool put_messages(std::vector<MessageExt> msgs) {
        return put_messages_shared(std::make_shared<std::vector<MessageExt>>(std::move(msgs)));
    }

    /// put_messages without a copy: the cache keeps the messages where they are and shares them with the
    /// caller, as Java's cache and consume requests share the same objects. While they are cached the caller
    /// changes them only through begin_consume(). The vector lives until the caller and every cache entry it
    /// backs are done with it. `max_offset` is the broker's max offset the pull reported, for messages not
    /// stamped with MAX_OFFSET yet (nullopt: the last message's MAX_OFFSET is read, as Java does).
    bool put_messages_shared(const std::shared_ptr<std::vector<MessageExt>>& batch,
                             std::optional<std::int64_t> max_offset = std::nullopt);

    /// put_messages_shared for messages whose MIN_OFFSET / MAX_OFFSET are not stamped yet: `unstamped` is
    /// the pull's bounds (its max offset counts as above). The copies take_messages returns are stamped
    /// with them; messages consumed in place are stamped by begin_consume's caller.
    bool put_messages_shared(const std::shared_ptr<std::vector<MessageExt>>& batch, PullOffsets unstamped);

    /// Prepares messages for a listener call: runs `prepare(msgs)` (e.g. the retry-topic reset), stamps
    /// CONSUME_START_TIME (wall ms) on each of them, then records that time, under the cache's write lock,
    /// for the cached entry at the same offset, which clean_expired_msg reads. Messages shared with the cache
    /// (put_messages_shared) change only here, by the one request that holds them and before their start is
    /// recorded: until then no other thread reads them (clean_expired_msg looks only at started entries), and
    /// the lock publishes the changes with the start, so the lock is held for the look-ups alone.
    template <class Prepare>
    void begin_consume(std::span<MessageExt> msgs, std::int64_t wall_millis, Prepare&& prepare) {
        prepare(msgs);
        const std::string value = std::to_string(wall_millis);
        for (auto& msg : msgs) {
            msg.set_property(property::consume_start_timestamp, value);
        }
        const std::unique_lock lock(tree_mutex_);
        for (const auto& msg : msgs) {
            if (const auto it = msg_tree_.find(msg.queue_offset()); it != msg_tree_.end()) {
                it->second.consume_start = wall_millis;
            }
        }
    }

    /// Java's removeMessage (concurrent path): drops the given offsets from the cache and returns the offset
    /// that is safe to commit: the smallest offset still cached, queue_offset_max() + 1 when the cache became
    /// empty, or -1 when it was already empty (then nothing changes but last_consume_timestamp()).
    std::int64_t remove_messages(std::span<const std::int64_t> queue_offsets) {
        const std::unique_lock lock(tree_mutex_);
        return remove_locked(queue_offsets);
    }

    /// A listener call of this queue begins: false (and nothing counted) when the queue was dropped, so a
    /// call never starts after the consumer began releasing the queue (which waits for listener_calls() to
    /// reach 0 with the queue already dropped). Pair every true with end_listener_call().
    bool begin_listener_call() noexcept {
        calls_.fetch_add(1);
        if (dropped_.load()) {
            calls_.fetch_sub(1);
            return false;
        }
        return true;
    }

    void end_listener_call() noexcept { calls_.fetch_sub(1); }

    /// Listener calls of this queue running now.
    [[nodiscard]] int listener_calls() const noexcept { return calls_.load(); }

    /// Java's getMaxSpan: last minus first cached offset (orderly in-flight messages excluded), 0 when empty.
    [[nodiscard]] std::int64_t max_span() const {
        const std::shared_lock lock(tree_mutex_);
        return msg_tree_.empty() ? 0 : msg_tree_.rbegin()->first - msg_tree_.begin()->first;
    }

    /// Java's takeMessages (orderly): moves up to batch_size smallest entries into the consuming map and
    /// returns copies in offset order. When nothing is left to take, consuming() turns false so the next put
    /// dispatches. Counters do not change.
    std::vector<MessageExt> take_messages(std::size_t batch_size);

    /// Java's commit (orderly): forgets every taken message, uncounts them and returns the offset after the
    /// last one, or -1 when nothing was taken (Java throws NoSuchElementException there).
    std::int64_t commit();

    /// Java's rollback (orderly): every taken message goes back to the cache (replacing a same-offset entry,
    /// as Java's putAll does). Counters do not change.
    void rollback();

    /// Java's makeMessageToConsumeAgain (orderly) by offset: the taken messages at these offsets go back to
    /// the cache unchanged; offsets not taken are ignored. Counters do not change.
    void make_message_to_consume_again(std::span<const std::int64_t> queue_offsets);

    /// Java's makeMessageToConsumeAgain with the messages themselves: each is removed from the consuming map
    /// by its offset and stored in the cache as given, so changes the caller made on its copy (reconsume
    /// times by checkReconsumeTimes) are kept, as they are on Java's shared objects. Counters do not change.
    void make_message_to_consume_again(std::span<const MessageExt> msgs);

    /// Java's hasTempMessage: whether the cache (not the consuming map) holds anything.
    [[nodiscard]] bool has_temp_message() const {
        const std::shared_lock lock(tree_mutex_);
        return !msg_tree_.empty();
    }

    /// Java's containsMessage (5.x): whether the cache holds this offset (taken orderly messages do not
    /// count).
    [[nodiscard]] bool contains_message(std::int64_t queue_offset) const {
        const std::shared_lock lock(tree_mutex_);
        return msg_tree_.contains(queue_offset);
    }

    /// Java's clear (client-side offset reset): empties both maps, zeroes count, size and queue_offset_max().
    void clear();

    /// Java's MessageAccessor.setConsumeStartTimeStamp on the cached messages: stores CONSUME_START_TIME
    /// (wall ms) on the messages at these offsets (cache or consuming map) so clean_expired_msg and later
    /// copies see it. It changes the cached objects: not while a listener may read them (the concurrent
    /// service, which shares its messages with the cache, uses begin_consume instead).
    void set_consume_start(std::span<const std::int64_t> queue_offsets, std::int64_t wall_millis);

    /// Java's cleanExpiredMsg (concurrent consumers only; the caller skips it for orderly ones). Looks at
    /// most min(16, cached) times at the head message: if its CONSUME_START_TIME is more than
    /// consume_timeout_millis before the clock's wall time, `send_back(const MessageExt&)` is called (no lock
    /// held; it may return bool or void, false meaning failure) and on success the message is removed if it
    /// is still the head. A missing start time, a fresh head, or a failed/throwing send-back (logged) ends
    /// the run.
    template <class SendBack>
    void clean_expired_msg(std::int64_t consume_timeout_millis, SendBack&& send_back) {
        clean_expired_msg(consume_timeout_millis, std::forward<SendBack>(send_back), &log_send_back_failure);
    }

    /// Same, reporting a failed send-back to `on_failure(const MessageExt&, std::exception_ptr)` (a null
    /// pointer when send_back returned false) instead of the default warning line (rmq/log.hpp).
    template <class SendBack, class OnFailure>
    void
    clean_expired_msg(std::int64_t consume_timeout_millis, SendBack&& send_back, OnFailure&& on_failure) {
        using Result = std::invoke_result_t<SendBack&, const MessageExt&>;
        static_assert(std::is_void_v<Result> || std::is_convertible_v<Result, bool>,
                      "clean_expired_msg: send_back(const MessageExt&) must return void or bool");
        std::size_t loop = 0;
        {
            const std::shared_lock lock(tree_mutex_);
            loop = std::min(msg_tree_.size(), clean_expired_max_loop);
        }
        for (std::size_t i = 0; i < loop; ++i) {
            std::optional<MessageExt> expired;
            {
                const std::shared_lock lock(tree_mutex_);
                if (!msg_tree_.empty()) {
                    const Entry& entry = msg_tree_.begin()->second;
                    // Only a started entry's message may be read here (see begin_consume).
                    if (entry.consume_start >= 0 &&
                        clock_->wall_millis() - entry.consume_start > consume_timeout_millis) {
                        expired = entry.msg();
                    }
                }
            }
            if (!expired) {
                break;
            }
            bool sent = false;
            try {
                if constexpr (std::is_void_v<Result>) {
                    send_back(std::as_const(*expired));
                    sent = true;
                } else {
                    sent = static_cast<bool>(send_back(std::as_const(*expired)));
                }
                if (!sent) {
                    on_failure(std::as_const(*expired), std::exception_ptr{});
                }
            } catch (...) {
                on_failure(std::as_const(*expired), std::current_exception());
            }
            if (!sent) {
                break;
            }
            const std::unique_lock lock(tree_mutex_);
            if (!msg_tree_.empty() && msg_tree_.begin()->first == expired->queue_offset()) {
                const std::int64_t offset = expired->queue_offset();
                remove_locked(std::span<const std::int64_t>(&offset, 1));
            }
        }
    }

    /// A consistent snapshot for diagnostics (Java's fillProcessQueueInfo).
    [[nodiscard]] Info info() const;

    /// Orderly: whether the broker lock of this queue is believed held.
    [[nodiscard]] bool locked() const noexcept { return locked_.load(); }

    /// Orderly: records the broker lock state (lock / lockAll / unlock).
    void set_locked(bool locked) noexcept { locked_.store(locked); }

    /// Steady ms of the last successful broker lock.
    [[nodiscard]] std::int64_t last_lock_timestamp() const noexcept { return last_lock_timestamp_.load(); }

    /// Records a successful broker lock at this steady time (normally clock.steady_millis()).
    void set_last_lock_timestamp(std::int64_t steady_millis) noexcept {
        last_lock_timestamp_.store(steady_millis);
    }

    /// More than rebalance_lock_max_live_time ms since the last lock (strictly greater, as Java).
    [[nodiscard]] bool is_lock_expired() const {
        return clock_->steady_millis() - last_lock_timestamp_.load() > rebalance_lock_max_live_time;
    }

    /// Steady ms when the last pull for this queue started.
    [[nodiscard]] std::int64_t last_pull_timestamp() const noexcept { return last_pull_timestamp_.load(); }

    /// Records the start of a pull at this steady time.
    void set_last_pull_timestamp(std::int64_t steady_millis) noexcept {
        last_pull_timestamp_.store(steady_millis);
    }

    /// More than pull_max_idle_time ms since the last pull (rebalance then replaces the queue).
    [[nodiscard]] bool is_pull_expired() const {
        return clock_->steady_millis() - last_pull_timestamp_.load() > pull_max_idle_time;
    }

    /// Steady ms of the last remove_messages / take_messages (diagnostics).
    [[nodiscard]] std::int64_t last_consume_timestamp() const noexcept {
        return last_consume_timestamp_.load();
    }

    /// Overrides the last-consume time (steady ms).
    void set_last_consume_timestamp(std::int64_t steady_millis) noexcept {
        last_consume_timestamp_.store(steady_millis);
    }

    /// Whether the queue is no longer ours (or must be rebuilt); a dropped queue is never revived.
    [[nodiscard]] bool dropped() const noexcept { return dropped_.load(); }

    /// Marks the queue dropped (or, for tests, not).
    void set_dropped(bool dropped) noexcept { dropped_.store(dropped); }

    /// Orderly dispatch flag: a consume request owns (or is scheduled for) this queue.
    [[nodiscard]] bool consuming() const noexcept { return consuming_.load(); }

    /// Failed attempts to release this orderly queue (diagnostics).
    [[nodiscard]] std::int64_t try_unlock_times() const noexcept { return try_unlock_times_.load(); }

    /// Counts one more failed release attempt.
    void inc_try_unlock_times() noexcept { try_unlock_times_.fetch_add(1); }

    /// Cached messages, orderly in-flight ones included (pull flow control by count).
    [[nodiscard]] std::int64_t msg_count() const noexcept { return msg_count_.load(); }

    /// Sum of the body bytes of the cached messages (pull flow control by size).
    [[nodiscard]] std::int64_t msg_size() const noexcept { return msg_size_.load(); }

    /// Broker backlog estimate: MAX_OFFSET minus the offset of the last message of the latest positive pull.
    [[nodiscard]] std::int64_t msg_acc_cnt() const noexcept { return msg_acc_cnt_.load(); }

    /// Overrides the backlog estimate (Java's setMsgAccCnt).
    void set_msg_acc_cnt(std::int64_t count) noexcept { msg_acc_cnt_.store(count); }

    /// Smallest cached offset (orderly in-flight excluded), -1 when the cache is empty.
    [[nodiscard]] std::int64_t min_offset_in_cache() const {
        const std::shared_lock lock(tree_mutex_);
        return msg_tree_.empty() ? -1 : msg_tree_.begin()->first;
    }

    /// Largest cached offset (orderly in-flight excluded), -1 when the cache is empty.
    [[nodiscard]] std::int64_t max_offset_in_cache() const {
        const std::shared_lock lock(tree_mutex_);
        return msg_tree_.empty() ? -1 : msg_tree_.rbegin()->first;
    }

    /// Offset of the last message put_messages newly inserted (0 initially and after clear()).
    [[nodiscard]] std::int64_t queue_offset_max() const noexcept { return queue_offset_max_.load(); }

    /// Java's consumeLock: the orderly service holds it while the listener runs; rebalance try-locks it (with
    /// a timeout) before releasing the broker lock.
    [[nodiscard]] std::timed_mutex& consume_lock() noexcept { return consume_lock_; }

    /// Java's `consumeLock.tryLock(timeout)` (rebalance before releasing an orderly queue): true when the
    /// consume lock was acquired within `timeout` of real time; the caller then unlocks consume_lock().
    /// Use this rather than consume_lock().try_lock_for(): libstdc++ implements that with
    /// pthread_mutex_clocklock, which GCC 12's ThreadSanitizer does not intercept, so TSan reports a false
    /// "unlock of an unlocked mutex". Polling try_lock against a steady deadline is also immune to wall-clock
    /// jumps, unlike try_lock_until(system_clock).
    [[nodiscard]] bool try_lock_consume_for(Millis timeout);

    /// The clock every timestamp of this queue comes from.
    [[nodiscard]] const std::shared_ptr<Clock>& clock() const noexcept { return clock_; }

private:
    // Java's Long.parseLong, but a malformed value is "absent" instead of an exception escaping the caller.
    static std::optional<std::int64_t> parse_long(std::string_view text) noexcept;

    // A failed expiry send-back must not go unnoticed: a warning through rmq's log handler.
    static void log_send_back_failure(const MessageExt& msg, const std::exception_ptr& error);

    // Both put_messages_shared overloads.
    bool put_locked(const std::shared_ptr<std::vector<MessageExt>>& batch,
                    std::optional<std::int64_t> max_offset,
                    std::optional<PullOffsets> unstamped);

    // Body of remove_messages; the caller holds the write lock.
    std::int64_t remove_locked(std::span<const std::int64_t> queue_offsets);

    // A cached message: the vector it was pulled in (shared with the consume requests of that pull, so the
    // cache holds no copy) and its index there. The vector is freed with its last entry and request.
    struct Entry {
        std::shared_ptr<std::vector<MessageExt>> batch;
        std::size_t index = 0;
        std::int64_t consume_start = -1;  // wall ms of the latest listener call on this offset, -1 before
        std::optional<PullOffsets> unstamped;  // the pull's bounds when its messages are not stamped yet

        [[nodiscard]] MessageExt& msg() const noexcept { return (*batch)[index]; }
    };

    // The start a message brings into the cache (a CONSUME_START_TIME set before it was cached), -1 if none.
    static std::int64_t start_of(const MessageExt& msg);

    std::shared_ptr<Clock> clock_;
    mutable detail::AdaptiveSharedMutex tree_mutex_;
    // The maps' nodes come from this pool, used only under tree_mutex_'s write lock. Through malloc the loop
    // allocated a node per pulled message and a consume thread freed it: a cross-thread free per message.
    std::pmr::unsynchronized_pool_resource nodes_;
    std::pmr::map<std::int64_t, Entry> msg_tree_{&nodes_};  // guarded by tree_mutex_
    std::pmr::map<std::int64_t, Entry> consuming_tree_{
        &nodes_};  // guarded by tree_mutex_ (orderly in-flight)
    std::atomic<std::int64_t> msg_count_{0};
    std::atomic<std::int64_t> msg_size_{0};
    std::atomic<std::int64_t> queue_offset_max_{0};
    std::atomic<std::int64_t> msg_acc_cnt_{0};
    std::atomic<std::int64_t> try_unlock_times_{0};
    std::atomic<int> calls_{0};
    std::atomic<bool> consuming_{false};
    std::atomic<bool> dropped_{false};
    std::atomic<bool> locked_{false};
    std::atomic<std::int64_t> last_pull_timestamp_;
    std::atomic<std::int64_t> last_consume_timestamp_;
    std::atomic<std::int64_t> last_lock_timestamp_;
    std::timed_mutex consume_lock_;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/process_queue.ipp>
#endif
