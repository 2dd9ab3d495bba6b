#pragma once

/// @file order/host.hpp
/// rmq::OrderHost<Order>: the part of a consumer that an order policy's Service sees. The consumer does the
/// shared work (pulling, rebalancing, offsets, send-back, broker locks, the consume pool, the event loop,
/// stats); the Service decides only how cached messages reach the listener and what its answer does. The
/// stock policies (rmq::Concurrently, rmq::Orderly) use nothing else, so a user's policy can do what they do.

#include <cstdint>
#include <exception>
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
#include <rmq/consume_hooks.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/topic.hpp>

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

/// The default guard of OrderHost::call_listener: the call always proceeds.
struct Unguarded {
    constexpr bool operator()() const noexcept { return true; }
};

/// The consumer as an order policy's `Service<Host>` sees it (Host is this type). Every member is
/// thread-safe. Work handed to `submit` and `schedule` is dropped once shutdown began; `stopping()` says so.
template <class Order>
class OrderHost {
public:
    using Listener = typename Order::Listener;
    using Context = typename Order::Context;
    using Status = typename Order::Status;
    /// An owned queue and its cache.
    using QueueEntry = std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>;

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
    /// Whether pulled messages were allocated on the event loop (the transport models
    /// rmq::HasPullPostingToCaller): memory is then best freed there too (see rmq::Concurrently).
    [[nodiscard]] virtual bool pulls_complete_on_loop() const noexcept = 0;

    // ------------------------------------------------------------------ scheduling

    /// Runs `task` on a consume-pool thread. The pool's queue is bounded: when it is full the task is retried
    /// from the event loop after pull_time_delay_mills_when_flow_control instead of growing memory.
    virtual void submit(std::function<void()> task) = 0;
    /// Runs `fn` on the event loop after `delay_millis` (never user code there: keep it short).
    virtual void schedule(std::int64_t delay_millis, std::function<void()> fn) = 0;

    // ------------------------------------------------------------------ queues and offsets

    /// The queues this member owns now, with their caches (a snapshot).
    [[nodiscard]] virtual std::vector<QueueEntry> owned_queues() const = 0;
    /// Reports the offset up to which `mq` is consumed to the offset store (`increase_only`: never lower it).
    virtual void update_offset(const MessageQueue& mq, std::int64_t offset, bool increase_only) = 0;

    // ------------------------------------------------------------------ retries

    /// Java's sendMessageBack: CONSUMER_SEND_MSG_BACK with `delay_level` (0: the broker picks 3 +
    /// reconsume times; -1: straight to %DLQ%group), else a retry copy sent to %RETRY%group by the client.
    /// False when both failed (consume the message again locally).
    virtual bool send_back(const MessageExt& msg, int delay_level) = 0;
    /// Sends `msg` straight to %DLQ%group (send-back with delay level -1). False when the broker could not be
    /// reached.
    virtual bool send_to_dlq(const MessageExt& msg) = 0;

    // ------------------------------------------------------------------ broker locks (orderly policies)

    /// LOCK_BATCH_MQ for one queue; marks its ProcessQueue locked when granted.
    virtual bool lock_queue(const MessageQueue& mq) = 0;
    /// UNLOCK_BATCH_MQ (errors are logged).
    virtual void unlock_queues(const std::vector<MessageQueue>& mqs) = 0;
    /// Renews the lock of every owned queue; queues not granted turn unlocked (Java's lockAll).
    virtual void lock_all() = 0;
    /// Releases every owned queue's lock (Java's unlockAll at shutdown).
    virtual void unlock_all() = 0;

    // ------------------------------------------------------------------ stats and logs

    /// One listener call of `topic` took `millis` and consumed `ok` messages, failed `failed` (ConsumerStats'
    /// CONSUME_RT, CONSUME_OK_TPS, CONSUME_FAILED_TPS; zero counts are not recorded).
    virtual void
    record_consume(std::string_view topic, std::int64_t millis, std::int64_t ok, std::int64_t failed) = 0;
    /// The same figures one at a time.
    virtual void record_consume_rt(std::string_view topic, std::int64_t millis) = 0;
    virtual void record_consume_ok(std::string_view topic, std::int64_t count) = 0;
    virtual void record_consume_failed(std::string_view topic, std::int64_t count) = 0;

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

    // ------------------------------------------------------------------ the listener

    /// Java's resetRetryAndNamespace: messages that came through %RETRY%group show their original topic.
    void reset_retry_topic(std::span<MessageExt> msgs) const {
        std::string retry;  // built only when a message came through a retry topic (rare, and a heap string)
        for (auto& msg : msgs) {
            const auto original = msg.property_view(property::retry_topic);
            if (original.empty()) {
                continue;
            }
            if (retry.empty()) {
                retry = retry_topic(group());
            }
            if (msg.topic() == retry) {
                msg.set_topic(std::string(original));
            }
        }
    }

    /// Calls the listener once, as both stock policies do: the before-hooks, then `enter()` (a guard held
    /// during the call: a std::unique_lock, or anything testing false to skip the call, e.g. a lock taken on
    /// a queue that was dropped meanwhile: nullopt is returned then), the listener (an exception or
    /// std::nullopt becomes Order::failure_status, logged), then the after-hooks told whether
    /// Order::is_success(status).
    template <class Guard = Unguarded>
    std::optional<ListenerCall<Status>> call_listener(const MessageQueue& mq,
                                                      std::span<const MessageExt> msgs,
                                                      Context& ctx,
                                                      Guard&& enter = {}) {
        run_before_hook(mq, msgs);
        const std::int64_t begin = clock()->steady_millis();
        std::optional<Status> status;
        {
            auto held = enter();
            if (!held) {
                return std::nullopt;
            }
            status = invoke(mq, msgs, ctx);
        }
        ListenerCall<Status> call{
            status.value_or(Order::failure_status), status.has_value(), clock()->steady_millis() - begin};
        run_after_hook(mq, msgs, Order::is_success(call.status));
        return call;
    }

protected:
    OrderHost() = default;
    ~OrderHost() = default;

    [[nodiscard]] virtual const Listener& listener() const noexcept = 0;
    [[nodiscard]] virtual const ConsumeHooks& hooks() const noexcept = 0;

private:
    std::optional<Status> invoke(const MessageQueue& mq, std::span<const MessageExt> msgs, Context& ctx) {
        try {
            return listener()(msgs, ctx);
        } catch (const std::exception& e) {
            log("group [{}]: listener threw for {}: {}", group(), mq, e.what());
        } catch (...) {
            log("group [{}]: listener threw for {}", group(), mq);
        }
        return std::nullopt;
    }

    void run_before_hook(const MessageQueue& mq, std::span<const MessageExt> msgs) const {
        if (const auto& before = hooks().before) {
            try {
                before(mq, msgs);
            } catch (const std::exception& e) {
                log("consume hook (before) failed: {}", e.what());
            }
        }
    }

    void run_after_hook(const MessageQueue& mq, std::span<const MessageExt> msgs, bool success) const {
        if (const auto& after = hooks().after) {
            try {
                after(mq, msgs, success);
            } catch (const std::exception& e) {
                log("consume hook (after) failed: {}", e.what());
            }
        }
    }
};

}  // namespace rmq
