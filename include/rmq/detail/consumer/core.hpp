#pragma once

/// @file detail/consumer/core.hpp
/// rmq::detail::ConsumerCore: everything a push consumer does except the order-specific dispatch, which the
/// order policy's Service supplies through rmq::OrderHost (detail/consumer/host.hpp adapts this class to it).
/// One file per operation under impl/: lifecycle (start, shutdown), rebalance, pull, heartbeat and offset
/// persistence, broker locks, send-back, stats.
///
/// Threads: one Scheduler loop (rebalance, pull loops, timers, transport completions) and the ConsumePool
/// (listener calls and their result processing). Transport completions reach the core only through a
/// LifeGate, which shutdown closes first, so a late completion can never touch a dead consumer.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/admin.hpp>
#include <rmq/clock.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/concepts/order_policy.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/consume_hooks.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/order/consume_queue.hpp>
#include <rmq/order/host.hpp>
#include <rmq/order/message_batch.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/stats.hpp>
#include <rmq/subscription.hpp>

#include <rmq/detail/consumer/consume_pool.hpp>
#include <rmq/detail/consumer/driven.hpp>
#include <rmq/detail/consumer/host.hpp>
#include <rmq/detail/consumer/life_gate.hpp>
#include <rmq/detail/consumer/scheduler.hpp>
#include <rmq/detail/consumer/subscription_table.hpp>
#include <rmq/detail/filter/parser.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

template <class Core>
struct AdminGate;

/// The consumer's engine; see the file comment.
template <class Order, class Allocate, class OffsetStore, class Tr>
class ConsumerCore {
public:
    using Listener = typename Order::Listener;
    using Context = typename Order::Context;
    using Status = typename Order::Status;
    using Host = ConsumerHost<ConsumerCore>;
    using Service = typename Order::template Service<OrderHost<Order>>;
    using order_policy = Order;

    /// Lifecycle (Java's ServiceState).
    enum class State { CreateJust, Running, ShutdownAlready };

    ConsumerCore(Tr transport, ConsumerConfig config, Allocate allocate, OffsetStore store);
    ConsumerCore(const ConsumerCore&) = delete;
    ConsumerCore& operator=(const ConsumerCore&) = delete;
    ~ConsumerCore();

    // ---------------------------------------------------------------- user-facing (impl/lifecycle.hpp)
    /// `type`: expression_type_tag or expression_type_sql92 (compiled here so a bad expression throws).
    void subscribe(std::string_view topic, std::string_view expression, std::string_view type);
    void unsubscribe(std::string_view topic);
    void set_listener(Listener listener);
    void set_hooks(ConsumeHooks hooks);
    void start();
    void shutdown();
    void suspend();
    void resume();

    [[nodiscard]] bool paused() const noexcept { return paused_.load(); }

    [[nodiscard]] State state() const noexcept { return state_.load(); }

    [[nodiscard]] bool subscription_inconsistent() const noexcept {
        return subscription_inconsistent_.load();
    }

    [[nodiscard]] const ConsumerConfig& config() const noexcept { return config_; }

    [[nodiscard]] const std::string& group() const noexcept { return group_; }

    [[nodiscard]] const std::string& client_id() const noexcept { return client_id_; }

    [[nodiscard]] OffsetStore& offset_store() noexcept { return offset_store_; }

    // ---------------------------------------------------------------- impl/stats.hpp
    [[nodiscard]] ConsumerStats stats() const;
    /// Queues currently owned (a snapshot).
    [[nodiscard]] std::vector<MessageQueue> assigned_queues() const;

private:
    friend Host;

    struct PullState {
        MessageQueue mq;
        std::shared_ptr<ProcessQueue> pq;
        std::int64_t next_offset = 0;
        bool previously_locked = false;
        // A queue taken back under the broker lock: its dropped_offsets_ entry (offset, steady ms when kept;
        // -1: none), a floor for the first pull's offset re-read (see ready_after_lock).
        std::int64_t kept_offset = -1;
        std::int64_t kept_at = 0;
    };

    using QueueEntry = std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>;

    // impl/lifecycle.hpp
    void check_not_started(std::string_view what) const;
    void check_not_shut_down(std::string_view what) const;
    void load_offsets();
    void start_timers();
    void drain_listeners();
    /// With a driven transport (rmq::sim): no threads; the driver runs the loop and the pool.
    void attach_driver();
    void detach_driver();
    [[nodiscard]] std::string stuck_queue_names() const;

    // scheduling, for the services (impl/lifecycle.hpp)
    void submit(std::function<void()> task);
    void schedule(std::int64_t delay_millis, std::function<void()> fn);

    // impl/consume.hpp: the listener call and what a policy's verdict does, for every policy
    std::optional<ListenerCall<Status>> consume(const ConsumeQueue& q,
                                                std::span<MessageExt> msgs,
                                                Context& ctx,
                                                const std::optional<PullOffsets>& unstamped);
    std::optional<Status>
    invoke_listener(const MessageQueue& mq, std::span<const MessageExt> msgs, Context& ctx);
    template <class Hook>
    void run_hook(const Hook& hook,
                  const char* which,
                  const MessageQueue& mq,
                  std::span<const MessageExt> msgs) const;
    void reset_retry_topic(std::span<MessageExt> msgs) const;
    void settle(const ConsumeQueue& q, MessageBatch batch, std::size_t acked, int delay_level);
    void ack(const ConsumeQueue& q, std::span<const std::int64_t> offsets);
    void record_outcome(std::string_view topic, std::int64_t ok, std::int64_t failed);
    void commit_taken(const ConsumeQueue& q);
    void retire(MessageBatch batch);
    void free_retired();
    void sweep_expired();
    void start_consume_timers();
    bool remove_unnecessary_queue(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq);
    [[nodiscard]] bool wait_listener_calls(const ProcessQueue& pq) const;

    static ConsumeQueue handle(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq) {
        return ConsumeQueue(mq, pq);
    }

    static ProcessQueue& cache_of(const ConsumeQueue& q) noexcept { return q.cache(); }

    static std::span<MessageExt> span_of(const MessageBatch& batch) noexcept { return batch.span(); }

    static const std::optional<PullOffsets>& unstamped_of(const MessageBatch& batch) noexcept {
        return batch.unstamped_;
    }

    // impl/send_back.hpp
    bool send_back(const MessageExt& msg, int delay_level);
    bool send_retry_copy(const MessageExt& msg);
    bool send_to_dlq(const MessageExt& msg);

    // impl/locks.hpp
    bool lock_queue(const MessageQueue& mq);
    void unlock_queues(const std::vector<MessageQueue>& mqs);
    void lock_all();
    void unlock_all();
    void apply_granted_locks(const std::vector<MessageQueue>& asked,
                             const std::vector<MessageQueue>& granted);

    // impl/heartbeat.hpp
    void send_heartbeat();
    [[nodiscard]] bool may_commit(const ProcessQueue& pq) const;
    void persist_all();

    // impl/rebalance.hpp
    void watch_route_changes(bool on);
    void rebalance_later();
    void do_rebalance();
    void check_group_subscriptions(const std::map<std::string, SubscriptionData>& mine);
    [[nodiscard]] std::vector<std::string>
    subscription_differences(const std::map<std::string, SubscriptionData>& mine);
    void rebalance_topic(const std::string& topic);
    [[nodiscard]] std::vector<MessageQueue> allocate(const std::string& topic,
                                                     const std::vector<MessageQueue>& mq_all,
                                                     const std::vector<std::string>& cids);
    bool update_process_queue_table(const std::string& topic, const std::vector<MessageQueue>& mine);
    bool drop_unwanted_queues(const std::string& topic, const std::vector<MessageQueue>& mine);
    bool add_queue(const MessageQueue& mq);
    [[nodiscard]] std::int64_t continue_from(const MessageQueue& mq,
                                             std::int64_t broker_offset,
                                             std::int64_t kept_offset,
                                             std::int64_t kept_at);
    void persist_dropped(const MessageQueue& mq, const ProcessQueue& pq);
    void truncate_not_my_topic(const std::map<std::string, SubscriptionData>& subs);
    void message_queue_changed();
    std::int64_t compute_pull_from_where(const MessageQueue& mq);

    // impl/pull.hpp
    void pull_later(const std::shared_ptr<PullState>& st, std::int64_t delay);
    void pull(const std::shared_ptr<PullState>& st);
    [[nodiscard]] bool flow_controlled(const ProcessQueue& pq) const;
    [[nodiscard]] bool ready_after_lock(PullState& st);
    [[nodiscard]] PullArgs pull_args(const PullState& st, const SubscriptionData& sd) const;
    void send_pull(const std::shared_ptr<PullState>& st, const PullArgs& args);
    void
    on_pull_result(const std::shared_ptr<PullState>& st, std::int64_t begin, Outcome<PullResult> outcome);
    void on_pull_failed(const std::shared_ptr<PullState>& st, int code, const std::string& remark);
    void on_found(const std::shared_ptr<PullState>& st, std::int64_t begin, PullResult& result);
    void prepare_found(const MessageQueue& mq, std::vector<MessageExt>& msgs) const;
    void on_offset_illegal(const std::shared_ptr<PullState>& st, const PullResult& result);
    void note_subscription_inconsistency(const std::string& why);

    // impl/stats.hpp
    void schedule_stats_log();

    // impl/admin.hpp
    void open_admin();
    void close_admin();
    [[nodiscard]] ConsumerRunningInfo running_info() const;
    void reset_offsets(const std::string& topic, const QueueOffsets& offsets);
    void finish_reset(const std::vector<QueueEntry>& pending);
    [[nodiscard]] QueueOffsets offset_table(const std::string& topic) const;
    ConsumeDirectlyResult consume_directly(MessageExt msg, const std::string& broker_name);
    bool submit_consume_directly(MessageExt msg,
                                 const std::string& broker_name,
                                 std::function<void(ConsumeDirectlyResult)> done);
    static ConsumeDirectlyStatus directly_status(typename Order::Status s);

    // the queue table
    [[nodiscard]] std::vector<QueueEntry> table_snapshot() const;
    [[nodiscard]] std::shared_ptr<ProcessQueue> find_pq(const MessageQueue& mq) const;

    Tr transport_;
    ConsumerConfig config_;
    Allocate allocate_;
    // mutable: stats() reads memory offsets; stores are thread-safe and some declare read_offset non-const.
    mutable OffsetStore offset_store_;
    std::shared_ptr<Clock> clock_;

    std::mutex lifecycle_mutex_;
    std::atomic<State> state_{State::CreateJust};
    std::atomic<bool> stopping_{false};
    std::atomic<bool> paused_{false};
    std::atomic<bool> subscription_inconsistent_{false};
    std::atomic<bool> rebalance_later_pending_{false};
    static constexpr std::int64_t rebalance_later_delay_millis = 500;

    std::string group_;
    std::string client_id_;
    bool clustering_ = true;
    int max_reconsume_times_ = 16;
    std::atomic<std::int64_t> pull_threshold_for_queue_{1000};
    std::atomic<std::int64_t> pull_threshold_size_for_queue_{100};

    Listener listener_;
    ConsumeHooks hooks_;
    SubscriptionTable subscriptions_;

    mutable std::mutex table_mutex_;
    std::map<MessageQueue, std::shared_ptr<ProcessQueue>> table_;
    std::map<MessageQueue, std::int64_t> broker_max_offset_;  // last max offset a pull reported, per queue
    // Loop only: the offset each queue was consumed up to when this member dropped it, and when (steady ms).
    // The persist on a drop fails silently when the broker is down (a restart): re-taken soon, the queue
    // continues from here rather than from the broker's older committed offset (which would repeat messages).
    std::map<MessageQueue, std::pair<std::int64_t, std::int64_t>> dropped_offsets_;
    static constexpr std::int64_t dropped_offset_keep_millis = 120000;
    /// Delay before messages whose send-back failed are consumed again locally (Java: 5000 ms).
    static constexpr std::int64_t local_retry_delay_millis = 5000;
    /// Period of the consume-timeout sweep: a message is sent back within this long after its deadline.
    static constexpr std::int64_t expiry_sweep_period_millis = 1000;
    /// How long removing a queue waits for its running listener calls under a queue lock (4.9.8: 1000 ms).
    static constexpr std::int64_t release_wait_millis = 1000;
    // Pulled vectors consume threads are done with, freed on the loop (see retire).
    std::mutex retired_mutex_;
    std::vector<std::shared_ptr<std::vector<MessageExt>>> retired_;  // guarded by retired_mutex_
    std::vector<std::shared_ptr<std::vector<MessageExt>>> freeing_;  // loop thread (then the shutdown thread)

    StatsCollector stats_{clock_};
    std::shared_ptr<LifeGate> gate_ = std::make_shared<LifeGate>();
    Scheduler scheduler_;
    std::unique_ptr<ConsumePool> pool_;
    // Queues that held unfinished messages when shutdown() stopped waiting for listeners (logged by the
    // destructor, which waits for those listeners). Written by shutdown(), read by the destructor.
    std::vector<MessageQueue> stuck_queues_;
    std::shared_ptr<AdminGate<ConsumerCore>> admin_gate_;
    std::int64_t start_wall_millis_ = 0;
    Host host_{*this};
    Service service_{host_};
};

}  // namespace rmq::detail

#include <rmq/detail/consumer/impl/admin.hpp>
#include <rmq/detail/consumer/impl/consume.hpp>
#include <rmq/detail/consumer/impl/heartbeat.hpp>
#include <rmq/detail/consumer/impl/lifecycle.hpp>
#include <rmq/detail/consumer/impl/locks.hpp>
#include <rmq/detail/consumer/impl/pull.hpp>
#include <rmq/detail/consumer/impl/rebalance.hpp>
#include <rmq/detail/consumer/impl/send_back.hpp>
#include <rmq/detail/consumer/impl/stats.hpp>
