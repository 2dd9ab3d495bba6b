#pragma once

/// @file order/host.hpp
/// rmq::OrderHost<Order>: the consumer as an order policy's Service sees it. The consumer keeps every
/// invariant of the data path for every policy, stock or user: it caches pulled messages, prepares them for
/// the listener (retry topic, MIN_OFFSET/MAX_OFFSET, CONSUME_START_TIME), runs the hooks, the listener, its
/// timing and stats, enforces consume_timeout, removes finished messages, commits offsets (the min-offset
/// rule), sends failed messages back, renews and releases broker locks and tracks dropped queues. The
/// Service decides: how cached messages become listener calls and when, and what a status means.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/log.hpp>
#include <rmq/message.hpp>
#include <rmq/order/consume_queue.hpp>
#include <rmq/order/message_batch.hpp>

#include <rmq/detail/util/log.hpp>

namespace rmq {

/// What one listener call came to.
template <class Status>
struct ListenerCall {
    /// The status to apply: the listener's answer, or the policy's `failure_status` when it threw or
    /// answered std::nullopt (Java's null).
    Status status;
    /// False when the listener threw or answered std::nullopt.
    bool answered = false;
    /// Time spent in the listener (ms), hooks excluded.
    std::int64_t rt_millis = 0;
};

/// The consumer as an order policy's `Service<Host>` sees it (Host is this type). Every member is
/// thread-safe. Work handed to `submit` and `schedule` is dropped once shutdown began; `stopping()` says so.
template <class Order>
class OrderHost {
public:
    using Listener = typename Order::Listener;
    using Context = typename Order::Context;
    using Status = typename Order::Status;

    OrderHost(const OrderHost&) = delete;
    OrderHost& operator=(const OrderHost&) = delete;

    // ------------------------------------------------------------------ identity and configuration

    /// The configuration as given to the consumer.
    [[nodiscard]] virtual const ConsumerConfig& config() const noexcept = 0;
    /// The group with the namespace applied.
    [[nodiscard]] virtual const std::string& group() const noexcept = 0;
    [[nodiscard]] virtual const std::string& client_id() const noexcept = 0;
    /// Clustering (queues shared by the group, send-back and broker locks) or broadcasting.
    [[nodiscard]] virtual bool clustering() const noexcept = 0;
    /// max_reconsume_times with -1 resolved (16, or INT32_MAX when Order::unlimited_retries_by_default).
    [[nodiscard]] virtual int max_reconsume_times() const noexcept = 0;
    /// The clock the consumer and its broker live by.
    [[nodiscard]] virtual const std::shared_ptr<Clock>& clock() const noexcept = 0;
    /// Whether shutdown began: start no new work.
    [[nodiscard]] virtual bool stopping() const noexcept = 0;

    // ------------------------------------------------------------------ scheduling

    /// Runs `task` on a consume-pool thread. The pool's queue is bounded: when it is full the task is retried
    /// from the event loop after pull_time_delay_mills_when_flow_control instead of growing memory.
    virtual void submit(std::function<void()> task) = 0;
    /// Runs call(0) ... call(count - 1), calls that may run in any order and in parallel (the batches of one
    /// pull), on consume-pool threads. While listener calls are slow each gets a task of its own and they
    /// run in parallel (Java's one ConsumeRequest per batch); while they are cheap (the host measures them)
    /// consecutive calls share a task, sparing a hand-off and a wake-up per call. A call never waits long
    /// behind a stalled one: when a task's call stops making progress, its remaining calls get tasks of
    /// their own within a few milliseconds.
    virtual void submit_each(std::size_t count, std::function<void(std::size_t)> call) = 0;
    /// Runs `fn` on the event loop after `delay_millis` (never user code there: keep it short).
    virtual void schedule(std::int64_t delay_millis, std::function<void()> fn) = 0;

    /// The queues this member owns now (a snapshot).
    [[nodiscard]] virtual std::vector<ConsumeQueue> queues() const = 0;

    // ------------------------------------------------------------------ the listener call

    /// One listener call of messages `batch` holds (shared with the cache), on the calling (consume)
    /// thread: prepares them (retry topic, MIN_OFFSET/MAX_OFFSET, CONSUME_START_TIME, the start the
    /// consume-timeout sweep reads), runs the before-hooks, the listener (an exception or std::nullopt
    /// becomes Order::failure_status, logged), the after-hooks, and records the call's time. std::nullopt,
    /// with nothing called, when `q` was dropped.
    virtual std::optional<ListenerCall<Status>>
    consume(const ConsumeQueue& q, MessageBatch& batch, Context& ctx) = 0;

    /// The same for messages the policy holds itself (those take() returned, or its own copies).
    virtual std::optional<ListenerCall<Status>>
    consume(const ConsumeQueue& q, std::span<MessageExt> msgs, Context& ctx) = 0;

    // ------------------------------------------------------------------ what a status means

    /// Java's processConsumeResult (concurrent): the first `acked` messages of `batch` succeeded, the rest
    /// failed and go back to the broker with `delay_level` (clustering; 0: the broker picks 3 + reconsume
    /// times, -1: the DLQ; broadcasting: logged and dropped). One whose send-back failed stays cached and
    /// comes back to the Service's on_messages after 5 s with reconsume_times + 1. The rest leave the cache
    /// and the committed offset follows the smallest offset still cached. Nothing when `q` was dropped.
    virtual void settle(const ConsumeQueue& q, MessageBatch batch, std::size_t acked, int delay_level) = 0;

    /// Finished messages leave the cache and the committed offset follows the smallest offset still cached
    /// (never lowered). Nothing when `q` was dropped.
    virtual void ack(const ConsumeQueue& q, std::span<const std::int64_t> offsets) = 0;

    /// Java's takeMessages (orderly): up to `max` of the smallest cached messages, copies, prepared with
    /// MIN_OFFSET/MAX_OFFSET; they stay counted until commit_taken. Empty when nothing is cached, which also
    /// ends the queue's dispatch: the next pull's batch says dispatch_to_consume() again.
    virtual std::vector<MessageExt> take(const ConsumeQueue& q, std::size_t max) = 0;
    /// Java's commit: the taken messages leave the cache, the committed offset moves past the last one.
    virtual void commit_taken(const ConsumeQueue& q) = 0;
    /// Java's rollback: the taken messages go back to the cache as they were.
    virtual void rollback_taken(const ConsumeQueue& q) = 0;
    /// Java's makeMessageToConsumeAgain: these taken messages go back to the cache as given (their reconsume
    /// times kept).
    virtual void consume_again(const ConsumeQueue& q, std::span<const MessageExt> msgs) = 0;

    // ------------------------------------------------------------------ retries and locks

    /// Java's sendMessageBack: CONSUMER_SEND_MSG_BACK with `delay_level`, else a retry copy sent to
    /// %RETRY%group by the client. False when both failed (consume the message again locally).
    virtual bool send_back(const MessageExt& msg, int delay_level) = 0;
    /// Sends `msg` straight to %DLQ%group. False when the broker could not be reached.
    virtual bool send_to_dlq(const MessageExt& msg) = 0;
    /// LOCK_BATCH_MQ for one queue (a policy relocking a queue whose lock was lost; the consumer takes,
    /// renews and releases locks by itself). True when granted.
    virtual bool lock_queue(const ConsumeQueue& q) = 0;

    // ------------------------------------------------------------------ stats and logs

    /// Messages of `topic` that succeeded (CONSUME_OK_TPS) and failed (CONSUME_FAILED_TPS), for policies
    /// that do not settle(); zero counts are not recorded.
    virtual void record_outcome(std::string_view topic, std::int64_t ok, std::int64_t failed) = 0;

    /// Logs one line at LogLevel::Warn through rmq's log handler (rmq/log.hpp).
    template <class... Args>
    void log(fmt::format_string<Args...> format, Args&&... args) const {
        detail::log_line(LogLevel::Warn, format, std::forward<Args>(args)...);
    }

    /// Logs one line at `level` through rmq's log handler (nothing is formatted when the level is disabled).
    template <class... Args>
    void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) const {
        detail::log_line(level, format, std::forward<Args>(args)...);
    }

protected:
    OrderHost() = default;
    ~OrderHost() = default;
};

}  // namespace rmq
