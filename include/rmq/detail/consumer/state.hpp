#pragma once

/// @file detail/consumer/state.hpp
/// rmq::detail::ConsumerState: what the boxes of a push consumer share (the transport, the configuration,
/// identity, flags, the listener, the subscriptions, the queue table, stats, the event loop and the consume
/// pool), and ConsumerTypes, the core's parameters as one type the boxes are templates over. Each box
/// (Puller, Rebalancer, OffsetCommitter, QueueLocker, Consumption, SendBack, AdminResponder, Heartbeat) holds
/// a reference to this state and to the boxes it calls; the state calls no box.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/consume_hooks.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/order/host.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/stats.hpp>

#include <rmq/detail/consumer/call_spreader.hpp>
#include <rmq/detail/consumer/consume_pool.hpp>
#include <rmq/detail/consumer/life_gate.hpp>
#include <rmq/detail/consumer/scheduler.hpp>
#include <rmq/detail/consumer/subscription_table.hpp>
#include <rmq/detail/trace/tracer.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

/// The consumer core's parameters, and the order policy's Service over the public host facade.
template <class OrderT, class AllocateT, class OffsetStoreT, class TransportT>
struct ConsumerTypes {
    using Order = OrderT;
    using Allocate = AllocateT;
    using OffsetStore = OffsetStoreT;
    using Transport = TransportT;
    using Service = typename Order::template Service<OrderHost<Order>>;
};

/// Lifecycle (Java's ServiceState).
enum class ConsumerLifecycle { CreateJust, Running, ShutdownAlready };

/// Pulled vectors consume threads are done with, freed on the loop that allocated them (glibc's arenas: two
/// threads freeing each other's memory take each other's locks).
class RetiredStorage {
public:
    using Storage = std::shared_ptr<std::vector<MessageExt>>;

    /// Any thread.
    void retire(Storage storage) {
        const std::lock_guard lock(mutex_);
        retired_.push_back(std::move(storage));
    }

    /// Loop thread: drops the vectors retired so far (the last reference usually).
    void free() {
        {
            const std::lock_guard lock(mutex_);
            retired_.swap(freeing_);
        }
        freeing_.clear();  // keeps its capacity: the next swap gives the consume threads room again
    }

private:
    std::mutex mutex_;
    std::vector<Storage> retired_;  // guarded by mutex_
    std::vector<Storage> freeing_;  // loop thread (then the shutdown thread)
};

template <class T>
struct ConsumerState {
    using Order = typename T::Order;
    using Transport = typename T::Transport;
    using QueueEntry = std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>;

    ConsumerState(Transport tr, ConsumerConfig cfg)
        : transport(std::move(tr))
        , config(std::move(cfg))
        , clock(transport.clock()) {}

    Transport transport;
    ConsumerConfig config;
    std::shared_ptr<Clock> clock;

    std::atomic<ConsumerLifecycle> lifecycle{ConsumerLifecycle::CreateJust};
    std::atomic<bool> stopping{false};
    std::atomic<bool> paused{false};
    std::atomic<bool> subscription_inconsistent{false};

    // Fixed by start().
    std::string group;
    std::string client_id;
    bool clustering = true;
    int max_reconsume_times = 16;
    // Java's per-queue thresholds, split from the per-topic ones when the queue set changes.
    std::atomic<std::int64_t> pull_threshold_for_queue{1000};
    std::atomic<std::int64_t> pull_threshold_size_for_queue{100};

    // Read by consume threads without a lock: fixed before start().
    typename Order::Listener listener;
    ConsumeHooks hooks;
    SubscriptionTable subscriptions;
    /// SubBefore / SubAfter records of each listener call (enable_msg_trace); set by start().
    std::unique_ptr<trace::Tracer> tracer;

    // The queue table: added to and removed from on the loop; read anywhere under the mutex.
    mutable std::mutex table_mutex;
    std::map<MessageQueue, std::shared_ptr<ProcessQueue>> table;
    std::map<MessageQueue, std::int64_t> broker_max_offset;  // last max offset a pull reported, per queue

    RetiredStorage retired;
    StatsCollector stats{clock};
    std::shared_ptr<LifeGate> gate = std::make_shared<LifeGate>();
    Scheduler scheduler;
    std::unique_ptr<ConsumePool> pool;
    CallSpreader spreader{CallSpreader::Hooks{[this](std::function<void()> task) { submit(std::move(task)); },
                                              [this](std::int64_t delay, std::function<void()> fn) {
                                                  schedule(delay, std::move(fn));
                                              }}};

    [[nodiscard]] std::vector<QueueEntry> table_snapshot() const {
        const std::lock_guard lock(table_mutex);
        return {table.begin(), table.end()};
    }

    [[nodiscard]] std::shared_ptr<ProcessQueue> find_pq(const MessageQueue& mq) const {
        const std::lock_guard lock(table_mutex);
        const auto it = table.find(mq);
        return it == table.end() ? nullptr : it->second;
    }

    /// Removes `mq` from the table when it is still this ownership (`pq`).
    void erase_queue(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq) {
        const std::lock_guard lock(table_mutex);
        if (const auto it = table.find(mq); it != table.end() && it->second == pq) {
            table.erase(it);
        }
    }

    void note_subscription_inconsistency(const std::string& why) {
        stats.set_subscription_inconsistent(true, why);
        if (!subscription_inconsistent.exchange(true)) {
            log_line(LogLevel::Warn,
                     "group [{}]: subscription inconsistency: {}. All consumers of a group must subscribe "
                     "identically, otherwise messages are skipped (docs/semantics.md)",
                     group,
                     why);
        }
    }

    /// Runs `task` on a consume thread. When the bounded queue is full the task is retried from the loop
    /// after the flow-control delay; once shutdown began it is dropped (its messages stay uncommitted).
    void submit(std::function<void()> task) {
        if (stopping.load()) {
            return;
        }
        if (pool->try_submit(std::move(task))) {
            return;
        }
        // try_submit moves from task only when it accepts it, so a refused task is still here.
        schedule(config.pull_time_delay_mills_when_flow_control,
                 // NOLINTNEXTLINE(bugprone-use-after-move)
                 [this, task = std::move(task)]() mutable { submit(std::move(task)); });
    }

    /// OrderHost::submit_each: call(0) ... call(count - 1) on consume threads, cheap calls sharing a task.
    void submit_each(std::size_t count, std::function<void(std::size_t)> call) {
        if (stopping.load()) {
            return;
        }
        spreader.run(count, std::move(call), pool->threads(), !pool->driven());
    }

    /// Runs `fn` on the loop after `delay_millis`; dropped once shutdown began.
    void schedule(std::int64_t delay_millis, std::function<void()> fn) {
        if (stopping.load()) {
            return;
        }
        scheduler.post_after(delay_millis, std::move(fn));
    }
};

}  // namespace rmq::detail
