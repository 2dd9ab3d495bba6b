#pragma once

/// @file detail/consumer_core.hpp
/// rmq::detail::ConsumerCore: everything a push consumer does except the order-specific dispatch, which the
/// OrderPolicy's Service supplies. Lives behind rmq::Consumer; its member functions named in
/// docs/policies/order.md ("host interface") are what a Service may call.
///
/// Threads: one Scheduler loop (rebalance, pull loops, timers, transport completions) and the ConsumePool
/// (listener calls and their result processing). Transport completions reach the core only through a
/// LifeGate, which shutdown closes first, so a late completion can never touch a dead consumer.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/consume_context.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/stats.hpp>
#include <rmq/subscription.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consume_pool.hpp>
#include <rmq/detail/consumer_log.hpp>
#include <rmq/detail/scheduler.hpp>

namespace rmq {

/// Optional callbacks around each listener call (Java's ConsumeMessageHook): `before(mq, msgs)` and
/// `after(mq, msgs, success)`. They run on the consume thread; exceptions they throw are logged and ignored.
struct ConsumeHooks {
    std::function<void(const MessageQueue&, std::span<const MessageExt>)> before;
    std::function<void(const MessageQueue&, std::span<const MessageExt>, bool)> after;
};

namespace detail {

/// Lets callbacks that outlive a call reach the consumer only while it is alive: they hold the gate (shared),
/// never the consumer, and the consumer closes the gate before tearing anything down.
struct LifeGate {
    std::mutex mutex;
    Scheduler* scheduler = nullptr;

    /// Posts `fn` onto the loop when the gate is open; otherwise drops it.
    void post(std::function<void()> fn) {
        const std::lock_guard lock(mutex);
        if (scheduler != nullptr) {
            scheduler->post(std::move(fn));
        }
    }

    /// Whether the gate is open and the caller runs on its loop (where the consumer is known to be alive).
    [[nodiscard]] bool in_loop() {
        const std::lock_guard lock(mutex);
        return scheduler != nullptr && scheduler->in_loop();
    }

    void close() {
        const std::lock_guard lock(mutex);
        scheduler = nullptr;
    }
};

/// The consumer's engine; see the file comment.
template <class Order, class Allocate, class OffsetStore, class Tr>
class ConsumerCore {
public:
    using Listener = typename Order::Listener;
    using Service = typename Order::template Service<ConsumerCore>;

    /// Lifecycle (Java's ServiceState).
    enum class State { CreateJust, Running, ShutdownAlready };

    ConsumerCore(Tr transport, ConsumerConfig config, Allocate allocate, OffsetStore store)
        : transport_(std::move(transport))
        , config_(std::move(config))
        , allocate_(std::move(allocate))
        , offset_store_(std::move(store))
        , clock_(transport_.clock())
        , service_(*this) {}

    ConsumerCore(const ConsumerCore&) = delete;
    ConsumerCore& operator=(const ConsumerCore&) = delete;

    ~ConsumerCore() {
        gate_->close();
        scheduler_.stop();
        if (pool_) {
            pool_->close();
            pool_->join();
        }
    }

    // ---------------------------------------------------------------- user-facing operations

    void subscribe(std::string_view topic, std::string_view expression) {
        check_not_shut_down("subscribe");
        check_topic(topic);
        auto sd = parse_subscription(topic, expression);
        sd.sub_version = clock_->wall_millis();
        {
            const std::lock_guard lock(sub_mutex_);
            subscriptions_[std::string(topic)] = std::move(sd);
        }
        if (state_.load() == State::Running) {
            scheduler_.post([this] {
                send_heartbeat();
                do_rebalance();
            });
        }
    }

    void unsubscribe(std::string_view topic) {
        check_not_shut_down("unsubscribe");
        const std::lock_guard lock(sub_mutex_);
        subscriptions_.erase(std::string(topic));
    }

    void set_listener(Listener listener) {
        check_not_started("register_listener");
        listener_ = std::move(listener);
    }

    void set_hooks(ConsumeHooks hooks) {
        check_not_started("set_consume_hooks");
        hooks_ = std::move(hooks);
    }

    void start() {
        const std::lock_guard lifecycle(lifecycle_mutex_);
        if (state_.load() != State::CreateJust) {
            throw IllegalState(
                fmt::format("the consumer of group [{}] was started once already ({}); create a new "
                            "consumer to start again",
                            config_.consumer_group,
                            state_.load() == State::Running ? "running" : "shut down"));
        }
        config_.validate();
        if (!listener_) {
            throw InvalidArgument(
                fmt::format("no listener registered for group [{}]: call register_listener({}) "
                            "before start()",
                            config_.consumer_group,
                            Order::listener_signature));
        }
        group_ = config_.with_namespace(config_.consumer_group);
        client_id_ = config_.build_client_id();
        clustering_ = config_.message_model == MessageModel::Clustering;
        max_reconsume_times_ = config_.max_reconsume_times_for(Order::unlimited_retries_by_default);
        pull_threshold_for_queue_.store(config_.pull_threshold_for_queue);
        pull_threshold_size_for_queue_.store(config_.pull_threshold_size_for_queue);
        {
            const std::lock_guard lock(sub_mutex_);
            if (clustering_) {
                const std::string retry = retry_topic(group_);
                auto sd = parse_subscription(retry, sub_all);
                sd.sub_version = clock_->wall_millis();
                subscriptions_[retry] = std::move(sd);
            }
        }
        offset_store_.load(OffsetStoreContext{
            .group = group_,
            .client_id = client_id_,
            .query_broker =
                [this](const MessageQueue& mq) { return transport_.query_consumer_offset(group_, mq); },
            .update_broker =
                [this](const MessageQueue& mq, std::int64_t offset) {
                    transport_.update_consumer_offset(group_, mq, offset);
                },
        });
        pool_ = std::make_unique<ConsumePool>(static_cast<std::size_t>(config_.consume_thread_min),
                                              static_cast<std::size_t>(config_.consume_queue_capacity));
        {
            const std::lock_guard lock(gate_->mutex);
            gate_->scheduler = &scheduler_;
        }
        // The handler may outlive the consumer (the transport's broker keeps it): it touches nothing but the
        // gate and its own copy of the group; `this` is used only on the loop, which the gate guards.
        transport_.set_notification_handler(
            [gate = gate_, group = group_, this](const ConsumerIdsChanged& n) {
                if (n.consumer_group != group) {
                    return;
                }
                gate->post([this] { do_rebalance(); });
            });
        pool_->start();
        scheduler_.start();
        state_.store(State::Running);
        service_.start();

        scheduler_.post([this] {
            send_heartbeat();
            do_rebalance();
        });
        scheduler_.every(config_.rebalance_interval, config_.rebalance_interval, [this] { do_rebalance(); });
        scheduler_.every(config_.heartbeat_broker_interval, config_.heartbeat_broker_interval, [this] {
            send_heartbeat();
        });
        scheduler_.every(config_.persist_consumer_offset_interval,
                         config_.persist_consumer_offset_interval,
                         [this] { persist_all(); });
    }

    void shutdown() {
        const std::lock_guard lifecycle(lifecycle_mutex_);
        if (state_.load() != State::Running) {
            state_.store(State::ShutdownAlready);
            return;
        }
        if (pool_->on_worker() || scheduler_.in_loop()) {
            throw IllegalState(
                "shutdown() called from a listener or consumer thread; call it from the thread that "
                "owns the consumer");
        }
        stopping_.store(true);
        gate_->close();
        service_.stop();
        // Stop the loop first: no new pulls, rebalances or re-dispatches; running listeners keep going.
        scheduler_.stop();
        pool_->close();
        if (!pool_->wait_idle(config_.await_termination_millis_when_shutdown)) {
            log_line(
                "group [{}]: listeners still running after {} ms; their results will be discarded and their "
                "messages redelivered",
                group_,
                config_.await_termination_millis_when_shutdown);
            for (auto& [mq, pq] : table_snapshot()) {
                pq->set_dropped(true);
            }
        }
        pool_->join();
        persist_all();
        service_.after_drain();
        for (auto& [mq, pq] : table_snapshot()) {
            pq->set_dropped(true);
        }
        try {
            transport_.unregister_client(client_id_, std::string{}, group_);
        } catch (const std::exception& e) {
            log_line("group [{}]: unregister failed: {}", group_, e.what());
        }
        {
            const std::lock_guard lock(table_mutex_);
            table_.clear();
        }
        state_.store(State::ShutdownAlready);
    }

    void suspend() {
        check_not_shut_down("suspend");
        paused_.store(true);
    }

    void resume() {
        check_not_shut_down("resume");
        paused_.store(false);
        if (state_.load() == State::Running) {
            scheduler_.post([this] { do_rebalance(); });
        }
    }

    [[nodiscard]] bool paused() const noexcept { return paused_.load(); }

    [[nodiscard]] State state() const noexcept { return state_.load(); }

    [[nodiscard]] bool subscription_inconsistent() const noexcept {
        return subscription_inconsistent_.load();
    }

    [[nodiscard]] ConsumerStats stats() const {
        ConsumerStats out = stats_.snapshot();
        out.queues.clear();
        std::map<MessageQueue, std::int64_t> broker_max;
        {
            const std::lock_guard lock(table_mutex_);
            broker_max = broker_max_offset_;
        }
        for (const auto& [mq, pq] : table_snapshot()) {
            const auto info = pq->info();
            QueueStats q;
            q.mq = mq;
            q.commit_offset = offset_store_.read_offset(mq, ReadOffsetType::ReadFromMemory);
            q.cached_msg_count = pq->msg_count();
            q.cached_msg_bytes = pq->msg_size();
            q.cached_msg_min_offset = info.cached_msg_min_offset;
            q.cached_msg_max_offset = info.cached_msg_max_offset;
            if (const auto it = broker_max.find(mq); it != broker_max.end()) {
                q.broker_max_offset = it->second;
            }
            if (q.broker_max_offset >= 0 && q.commit_offset >= 0) {
                q.lag = std::max<std::int64_t>(0, q.broker_max_offset - q.commit_offset);
            }
            q.locked = info.locked;
            q.dropped = info.dropped;
            q.last_pull_timestamp = info.last_pull_timestamp;
            q.last_consume_timestamp = info.last_consume_timestamp;
            out.queues.push_back(std::move(q));
        }
        return out;
    }

    /// Queues currently owned (a snapshot).
    [[nodiscard]] std::vector<MessageQueue> assigned_queues() const {
        std::vector<MessageQueue> out;
        const std::lock_guard lock(table_mutex_);
        for (const auto& [mq, pq] : table_) {
            if (!pq->dropped()) {
                out.push_back(mq);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- host interface (for Order::Service)

    [[nodiscard]] const ConsumerConfig& config() const noexcept { return config_; }

    [[nodiscard]] const std::string& group() const noexcept { return group_; }

    [[nodiscard]] const std::string& client_id() const noexcept { return client_id_; }

    [[nodiscard]] bool clustering() const noexcept { return clustering_; }

    /// Whether pulled messages are allocated on the loop thread (pulls answered at once complete there), so
    /// a service frees consumed batches best on the loop too; otherwise a transport thread allocated them.
    static constexpr bool pulls_complete_on_loop = HasPullPostingToCaller<Tr>;

    [[nodiscard]] const Listener& listener() const noexcept { return listener_; }

    [[nodiscard]] const ConsumeHooks& hooks() const noexcept { return hooks_; }

    [[nodiscard]] Tr& transport() noexcept { return transport_; }

    [[nodiscard]] OffsetStore& offset_store() noexcept { return offset_store_; }

    [[nodiscard]] const OffsetStore& offset_store() const noexcept { return offset_store_; }

    [[nodiscard]] const std::shared_ptr<Clock>& clock() const noexcept { return clock_; }

    [[nodiscard]] StatsCollector& stats_collector() noexcept { return stats_; }

    [[nodiscard]] int max_reconsume_times() const noexcept { return max_reconsume_times_; }

    [[nodiscard]] bool stopping() const noexcept { return stopping_.load(); }

    /// Runs `task` on a consume thread. When the bounded queue is full the task is retried from the loop
    /// after the flow-control delay; once shutdown began it is dropped (its messages stay uncommitted).
    void submit(std::function<void()> task) {
        if (stopping_.load()) {
            return;
        }
        if (pool_->try_submit(std::move(task))) {
            return;
        }
        schedule(config_.pull_time_delay_mills_when_flow_control,
                 [this, task = std::move(task)]() mutable { submit(std::move(task)); });
    }

    /// Runs `fn` on the loop after `delay_millis`; dropped once shutdown began.
    void schedule(std::int64_t delay_millis, std::function<void()> fn) {
        if (stopping_.load()) {
            return;
        }
        scheduler_.post_after(delay_millis, std::move(fn));
    }

    /// Java's sendMessageBack (consumer.md §5.4): CONSUMER_SEND_MSG_BACK, else the fallback of sending a
    /// retry copy to `%RETRY%group`. False when both failed.
    bool send_back(const MessageExt& msg, int delay_level) {
        try {
            transport_.send_back(SendBackArgs{
                .group = group_,
                .message = msg,
                .delay_level = delay_level,
                .max_reconsume_times = max_reconsume_times_,
            });
            return true;
        } catch (const std::exception& e) {
            log_line("group [{}]: send back of {} failed ({}), falling back to the retry topic",
                     group_,
                     msg.msg_id(),
                     e.what());
        }
        try {
            const std::string retry = retry_topic(group_);
            Message copy(retry, msg.body());
            copy.set_flag(msg.flag());
            copy.set_properties(msg.properties());
            const auto origin = msg.property_view(property::origin_message_id);
            copy.set_property(property::origin_message_id,
                              origin.empty() ? std::string_view(msg.msg_id()) : origin);
            copy.set_property(property::retry_topic, msg.topic());
            copy.set_property(property::reconsume_time, std::to_string(msg.reconsume_times() + 1));
            copy.set_property(property::max_reconsume_times, std::to_string(max_reconsume_times_));
            copy.clear_property(property::transaction_prepared);
            copy.set_delay_time_level(3 + msg.reconsume_times());
            const auto route = transport_.topic_route(retry);
            if (route.write_queues.empty()) {
                throw BrokerError(response_code::topic_not_exist,
                                  fmt::format("no writable queue of {}", retry));
            }
            (void)transport_.send(copy, route.write_queues.front());
            return true;
        } catch (const std::exception& e) {
            log_line("group [{}]: fallback send of {} to the retry topic failed: {}",
                     group_,
                     msg.msg_id(),
                     e.what());
            return false;
        }
    }

    /// Orderly DLQ path (consumer.md §6.5): the message went past max_reconsume_times; CONSUMER_SEND_MSG_BACK
    /// with delay level -1 sends it straight to `%DLQ%group`. False when the broker could not be reached.
    bool send_to_dlq(const MessageExt& msg) {
        try {
            transport_.send_back(SendBackArgs{
                .group = group_,
                .message = msg,
                .delay_level = -1,
                .max_reconsume_times = max_reconsume_times_,
            });
            return true;
        } catch (const std::exception& e) {
            log_line("group [{}]: moving {} to the DLQ failed: {}", group_, msg.msg_id(), e.what());
            return false;
        }
    }

    /// Java's lockOneMQ / RebalanceImpl.lock: LOCK_BATCH_MQ for one queue; marks its ProcessQueue locked.
    bool lock_queue(const MessageQueue& mq) {
        if (stopping_.load()) {
            return false;
        }
        try {
            const auto locked = transport_.lock_batch(group_, client_id_, std::vector<MessageQueue>{mq});
            const bool ok = std::find(locked.begin(), locked.end(), mq) != locked.end();
            if (ok) {
                if (auto pq = find_pq(mq)) {
                    pq->set_locked(true);
                    pq->set_last_lock_timestamp(clock_->steady_millis());
                }
            }
            return ok;
        } catch (const std::exception& e) {
            log_line("group [{}]: lock of {} failed: {}", group_, mq, e.what());
            return false;
        }
    }

    /// UNLOCK_BATCH_MQ for the given queues (errors logged).
    void unlock_queues(const std::vector<MessageQueue>& mqs) {
        if (mqs.empty()) {
            return;
        }
        try {
            transport_.unlock_batch(group_, client_id_, mqs);
        } catch (const std::exception& e) {
            log_line("group [{}]: unlock failed: {}", group_, e.what());
        }
    }

    /// Java's lockAll: renews the broker lock of every owned queue; queues not granted turn unlocked.
    void lock_all() {
        std::map<std::string, std::vector<MessageQueue>> by_broker;
        for (const auto& [mq, pq] : table_snapshot()) {
            if (!pq->dropped()) {
                by_broker[mq.broker_name].push_back(mq);
            }
        }
        for (const auto& [broker, mqs] : by_broker) {
            std::vector<MessageQueue> locked;
            try {
                locked = transport_.lock_batch(group_, client_id_, mqs);
            } catch (const std::exception& e) {
                log_line("group [{}]: lockAll on {} failed: {}", group_, broker, e.what());
                continue;
            }
            const std::set<MessageQueue> granted(locked.begin(), locked.end());
            for (const auto& mq : mqs) {
                if (auto pq = find_pq(mq)) {
                    if (granted.contains(mq)) {
                        pq->set_locked(true);
                        pq->set_last_lock_timestamp(clock_->steady_millis());
                    } else {
                        pq->set_locked(false);
                    }
                }
            }
        }
    }

    /// Java's unlockAll(oneway=false) at shutdown: releases every owned queue's broker lock.
    void unlock_all() {
        std::map<std::string, std::vector<MessageQueue>> by_broker;
        for (const auto& [mq, pq] : table_snapshot()) {
            by_broker[mq.broker_name].push_back(mq);
        }
        for (const auto& [broker, mqs] : by_broker) {
            unlock_queues(mqs);
            for (const auto& mq : mqs) {
                if (auto pq = find_pq(mq)) {
                    pq->set_locked(false);
                }
            }
        }
    }

    /// The owned queues with their ProcessQueues (a snapshot).
    [[nodiscard]] std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>> table_snapshot() const {
        const std::lock_guard lock(table_mutex_);
        return {table_.begin(), table_.end()};
    }

    [[nodiscard]] std::shared_ptr<ProcessQueue> find_pq(const MessageQueue& mq) const {
        const std::lock_guard lock(table_mutex_);
        const auto it = table_.find(mq);
        return it == table_.end() ? nullptr : it->second;
    }

    /// Java's resetRetryAndNamespace: retry-topic messages show their original topic to the listener.
    void reset_retry_topic(std::span<MessageExt> msgs) const {
        std::string retry;  // built only when a message came through a retry topic (rare, and a heap string)
        for (auto& msg : msgs) {
            const auto original = msg.property_view(property::retry_topic);
            if (original.empty()) {
                continue;
            }
            if (retry.empty()) {
                retry = retry_topic(group_);
            }
            if (msg.topic() == retry) {
                msg.set_topic(std::string(original));
            }
        }
    }

private:
    struct PullState {
        MessageQueue mq;
        std::shared_ptr<ProcessQueue> pq;
        std::int64_t next_offset = 0;
        bool previously_locked = false;
    };

    // Listener and hooks are read by consume threads without a lock: they are fixed before start().
    void check_not_started(std::string_view what) const {
        if (state_.load() != State::CreateJust) {
            throw IllegalState(fmt::format("{}() must be called before start()", what));
        }
    }

    void check_not_shut_down(std::string_view what) const {
        if (state_.load() == State::ShutdownAlready) {
            throw IllegalState(fmt::format("{}() called on a consumer that was shut down", what));
        }
    }

    [[nodiscard]] std::map<std::string, SubscriptionData> subscriptions_copy() const {
        const std::lock_guard lock(sub_mutex_);
        return subscriptions_;
    }

    [[nodiscard]] std::optional<SubscriptionData> subscription_of(const std::string& topic) const {
        const std::lock_guard lock(sub_mutex_);
        const auto it = subscriptions_.find(topic);
        if (it == subscriptions_.end()) {
            return std::nullopt;
        }
        return it->second;
    }

    // ---------------------------------------------------------------- heartbeat, persistence

    void send_heartbeat() {
        if (stopping_.load()) {
            return;
        }
        ConsumerData data;
        data.group_name = group_;
        data.consume_type = ConsumeType::ConsumePassively;
        data.message_model = config_.message_model;
        data.consume_from_where = config_.consume_from_where;
        data.unit_mode = config_.unit_mode;
        for (auto& [topic, sd] : subscriptions_copy()) {
            data.subscription_data_set.push_back(sd);
        }
        HeartbeatData hb;
        hb.client_id = client_id_;
        hb.consumer_data_set.push_back(std::move(data));
        try {
            transport_.heartbeat(hb);
        } catch (const std::exception& e) {
            log_line("group [{}]: heartbeat failed: {}", group_, e.what());
        }
    }

    void persist_all() {
        std::vector<MessageQueue> mqs;
        for (const auto& [mq, pq] : table_snapshot()) {
            mqs.push_back(mq);
        }
        try {
            offset_store_.persist_all(std::span<const MessageQueue>(mqs));
        } catch (const std::exception& e) {
            log_line("group [{}]: persisting offsets failed: {}", group_, e.what());
        }
    }

    // ---------------------------------------------------------------- rebalance (loop thread)

    /// Java 5.x's mQClientFactory.rebalanceLater(500): a queue allocated to this member whose broker lock is
    /// still held by the previous owner is retried shortly, not at the next periodic rebalance (20 s), so an
    /// orderly handover takes about the time the old owner needs to release it. At most one retry is pending.
    void rebalance_later() {
        if (rebalance_later_pending_.exchange(true)) {
            return;
        }
        schedule(rebalance_later_delay_millis, [this] {
            rebalance_later_pending_.store(false);
            do_rebalance();
        });
    }

    void do_rebalance() {
        if (stopping_.load() || paused_.load()) {
            return;
        }
        const auto subs = subscriptions_copy();
        for (const auto& [topic, sd] : subs) {
            try {
                rebalance_topic(topic);
            } catch (const std::exception& e) {
                if (!is_retry_topic(topic)) {
                    log_line("group [{}]: rebalance of {} failed: {}", group_, topic, e.what());
                }
            }
        }
        truncate_not_my_topic(subs);
        if (clustering_) {
            check_group_subscriptions(subs);
        }
    }

    /// Seed 004: compares this member's subscriptions with every other member's, when the transport can list
    /// the group (optional capability `group_members(group)`); pull answers SUBSCRIPTION_NOT_EXIST are the
    /// fallback signal.
    void check_group_subscriptions(const std::map<std::string, SubscriptionData>& mine) {
        if constexpr (requires(Tr& t, const std::string& g) { t.group_members(g); }) {
            std::vector<std::string> differences;
            try {
                for (const auto& member : transport_.group_members(group_)) {
                    if (member.client_id == client_id_) {
                        continue;
                    }
                    std::map<std::string, std::string> theirs;
                    for (const auto& sd : member.consumer_data.subscription_data_set) {
                        if (!is_retry_topic(sd.topic)) {
                            theirs[sd.topic] = sd.sub_string;
                        }
                    }
                    std::map<std::string, std::string> ours;
                    for (const auto& [topic, sd] : mine) {
                        if (!is_retry_topic(topic)) {
                            ours[topic] = sd.sub_string;
                        }
                    }
                    if (theirs != ours) {
                        differences.push_back(
                            fmt::format("member {} subscribes {{{}}}, this member {} subscribes {{{}}}",
                                        member.client_id,
                                        describe(theirs),
                                        client_id_,
                                        describe(ours)));
                    }
                }
            } catch (const std::exception& e) {
                log_line("group [{}]: listing the group's members failed: {}", group_, e.what());
                return;
            }
            if (differences.empty()) {
                if (subscription_inconsistent_.exchange(false)) {
                    stats_.set_subscription_inconsistent(false);
                    log_line("group [{}]: subscriptions are consistent again", group_);
                }
            } else {
                std::string why;
                for (const auto& d : differences) {
                    why += why.empty() ? d : "; " + d;
                }
                note_subscription_inconsistency(why);
            }
        } else {
            (void)mine;
        }
    }

    static std::string describe(const std::map<std::string, std::string>& subs) {
        std::string out;
        for (const auto& [topic, expr] : subs) {
            out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", topic, expr);
        }
        return out;
    }

    void rebalance_topic(const std::string& topic) {
        std::vector<MessageQueue> mq_all;
        try {
            mq_all = transport_.topic_route(topic).read_queues;
        } catch (const std::exception& e) {
            if (!is_retry_topic(topic)) {
                log_line("group [{}]: no route for {}: {}", group_, topic, e.what());
            }
            return;
        }
        std::sort(mq_all.begin(), mq_all.end());
        std::vector<MessageQueue> mine;
        if (!clustering_) {
            mine = mq_all;
        } else {
            auto cids = transport_.consumer_id_list(topic, group_);
            if (cids.empty()) {
                return;
            }
            std::sort(cids.begin(), cids.end());
            try {
                // A sticky strategy may take the queues this member owns now as a fifth argument.
                if constexpr (requires(const Allocate& a,
                                       std::span<const MessageQueue> mqs,
                                       std::span<const std::string> ids) {
                                  {
                                      a.allocate(group_, client_id_, mqs, ids, mqs)
                                  } -> std::same_as<std::vector<MessageQueue>>;
                              }) {
                    std::vector<MessageQueue> previous;
                    for (const auto& [mq, pq] : table_snapshot()) {
                        if (mq.topic == topic && !pq->dropped()) {
                            previous.push_back(mq);
                        }
                    }
                    mine = allocate_.allocate(group_,
                                              client_id_,
                                              std::span<const MessageQueue>(mq_all),
                                              std::span<const std::string>(cids),
                                              std::span<const MessageQueue>(previous));
                } else {
                    mine = allocate_.allocate(group_,
                                              client_id_,
                                              std::span<const MessageQueue>(mq_all),
                                              std::span<const std::string>(cids));
                }
            } catch (const std::exception& e) {
                log_line("group [{}]: allocation of {} failed: {}", group_, topic, e.what());
                return;
            }
        }
        if (update_process_queue_table(topic, mine)) {
            message_queue_changed();
        }
    }

    bool update_process_queue_table(const std::string& topic, const std::vector<MessageQueue>& mine) {
        const std::set<MessageQueue> wanted(mine.begin(), mine.end());
        bool changed = false;
        for (const auto& [mq, pq] : table_snapshot()) {
            if (mq.topic != topic) {
                continue;
            }
            const bool gone = !wanted.contains(mq);
            if (gone || pq->is_pull_expired()) {
                pq->set_dropped(true);
                if (remove_unnecessary_queue(mq, *pq)) {
                    const std::lock_guard lock(table_mutex_);
                    table_.erase(mq);
                    changed = true;
                }
            }
        }
        const bool need_lock = Order::requires_queue_lock && clustering_;
        for (const auto& mq : mine) {
            if (find_pq(mq)) {
                continue;
            }
            if (need_lock) {
                try {
                    const auto locked =
                        transport_.lock_batch(group_, client_id_, std::vector<MessageQueue>{mq});
                    if (std::find(locked.begin(), locked.end(), mq) == locked.end()) {
                        rebalance_later();  // another member still holds it (it is releasing it right now)
                        continue;
                    }
                } catch (const std::exception& e) {
                    log_line("group [{}]: lock of {} failed: {}", group_, mq, e.what());
                    rebalance_later();
                    continue;
                }
            }
            offset_store_.remove_offset(mq);
            auto pq = std::make_shared<ProcessQueue>(clock_);
            pq->set_locked(true);
            pq->set_last_lock_timestamp(clock_->steady_millis());
            std::int64_t next = -1;
            try {
                next = compute_pull_from_where(mq);
            } catch (const std::exception& e) {
                log_line("group [{}]: no start offset for {}: {}", group_, mq, e.what());
            }
            if (next < 0) {
                if (need_lock) {
                    unlock_queues({mq});
                }
                continue;
            }
            {
                const std::lock_guard lock(table_mutex_);
                table_.emplace(mq, pq);
            }
            changed = true;
            auto st = std::make_shared<PullState>(PullState{mq, pq, next, false});
            scheduler_.post([this, st] { pull(st); });
        }
        return changed;
    }

    /// Java's removeUnnecessaryMessageQueue (consumer.md §3.7, 5.x flavour: the broker lock is released at
    /// once because a dropped queue can never reach its listener again once its consume lock was taken here).
    bool remove_unnecessary_queue(const MessageQueue& mq, ProcessQueue& pq) {
        try {
            offset_store_.persist(mq);
            offset_store_.remove_offset(mq);
        } catch (const std::exception& e) {
            log_line("group [{}]: persisting {} failed: {}", group_, mq, e.what());
        }
        if (!service_.release_queue(mq, pq)) {
            pq.inc_try_unlock_times();
            return false;
        }
        return true;
    }

    void truncate_not_my_topic(const std::map<std::string, SubscriptionData>& subs) {
        const std::lock_guard lock(table_mutex_);
        for (auto it = table_.begin(); it != table_.end();) {
            if (!subs.contains(it->first.topic)) {
                it->second->set_dropped(true);
                it = table_.erase(it);
            } else {
                ++it;
            }
        }
    }

    /// Java's messageQueueChanged: per-topic thresholds are split among the owned queues; heartbeat.
    void message_queue_changed() {
        std::size_t n = 0;
        {
            const std::lock_guard lock(table_mutex_);
            n = table_.size();
        }
        if (n > 0) {
            const auto count = static_cast<std::int64_t>(n);
            if (config_.pull_threshold_for_topic != -1) {
                pull_threshold_for_queue_.store(
                    std::max<std::int64_t>(1, config_.pull_threshold_for_topic / count));
            }
            if (config_.pull_threshold_size_for_topic != -1) {
                pull_threshold_size_for_queue_.store(
                    std::max<std::int64_t>(1, config_.pull_threshold_size_for_topic / count));
            }
        }
        send_heartbeat();
    }

    /// Java's computePullFromWhereWithException (consumer.md §3.8, 5.x: an unreadable store throws).
    std::int64_t compute_pull_from_where(const MessageQueue& mq) {
        const std::int64_t last = offset_store_.read_offset(mq, ReadOffsetType::ReadFromStore);
        if (last >= 0) {
            return last;
        }
        if (last != -1) {
            throw BrokerError(
                response_code::query_not_found,
                fmt::format("cannot read the committed offset of {} (store answered {})", mq, last));
        }
        const bool retry = is_retry_topic(mq.topic);
        switch (config_.consume_from_where) {
        case ConsumeFromWhere::FirstOffset:
            return 0;
        case ConsumeFromWhere::Timestamp:
            if (retry) {
                return transport_.max_offset(mq);
            }
            return transport_.search_offset(mq, config_.consume_timestamp_millis(clock_->wall_millis()));
        default:
            if (retry) {
                return 0;
            }
            return transport_.max_offset(mq);
        }
    }

    // ---------------------------------------------------------------- pull loop (loop thread)

    void pull_later(const std::shared_ptr<PullState>& st, std::int64_t delay) {
        scheduler_.post_after(delay, [this, st] { pull(st); });
    }

    void pull(const std::shared_ptr<PullState>& st) {
        ProcessQueue& pq = *st->pq;
        if (pq.dropped() || stopping_.load()) {
            return;
        }
        pq.set_last_pull_timestamp(clock_->steady_millis());
        if (paused_.load()) {
            pull_later(st, config_.pull_time_delay_mills_when_suspend);
            return;
        }
        if (pq.msg_count() > pull_threshold_for_queue_.load() ||
            pq.msg_size() / (1024 * 1024) > pull_threshold_size_for_queue_.load() ||
            (Order::span_flow_control && pq.max_span() > config_.consume_concurrently_max_span) ||
            pool_->full()) {
            ++flow_control_times_;
            pull_later(st, config_.pull_time_delay_mills_when_flow_control);
            return;
        }
        if constexpr (Order::requires_queue_lock) {
            if (pq.locked()) {
                if (!st->previously_locked) {
                    try {
                        const std::int64_t offset = compute_pull_from_where(st->mq);
                        if (offset < 0) {
                            throw IllegalState("negative start offset");
                        }
                        st->next_offset = offset;
                        st->previously_locked = true;
                    } catch (const std::exception& e) {
                        log_line(
                            "group [{}]: re-reading the offset of {} failed: {}", group_, st->mq, e.what());
                        pull_later(st, config_.pull_time_delay_mills_when_exception);
                        return;
                    }
                }
            } else {
                pull_later(st, config_.pull_time_delay_mills_when_exception);
                return;
            }
        }
        const auto sd = subscription_of(st->mq.topic);
        if (!sd) {
            pull_later(st, config_.pull_time_delay_mills_when_exception);
            return;
        }
        PullArgs args;
        args.consumer_group = group_;
        args.mq = st->mq;
        args.queue_offset = st->next_offset;
        args.max_msg_nums = config_.pull_batch_size;
        args.suspend_timeout_millis = config_.broker_suspend_max_time_millis;
        args.sub_version = sd->sub_version;
        args.expression_type = sd->expression_type;
        std::int32_t flags = pull_sys_flag::suspend;
        if (clustering_) {
            const std::int64_t commit = offset_store_.read_offset(st->mq, ReadOffsetType::ReadFromMemory);
            if (commit > 0) {
                args.commit_offset = commit;
                flags |= pull_sys_flag::commit_offset;
            }
        }
        if (config_.post_subscription_when_pull && !sd->class_filter_mode) {
            args.subscription = sd->sub_string;
            flags |= pull_sys_flag::subscription;
        }
        args.sys_flag = flags;
        const std::int64_t begin = clock_->steady_millis();
        try {
            auto complete = [gate = gate_, this, st, begin](Outcome<PullResult> outcome) {
                if constexpr (HasPullPostingToCaller<Tr>) {
                    // Posted to the loop by the transport (an answer at hand): no second hop. Only the gate
                    // may be touched first: a held pull can complete after the consumer is gone.
                    if (gate->in_loop()) {
                        on_pull_result(st, begin, std::move(outcome));
                        return;
                    }
                }
                auto shared = std::make_shared<Outcome<PullResult>>(std::move(outcome));
                gate->post([this, st, begin, shared] { on_pull_result(st, begin, std::move(*shared)); });
            };
            if constexpr (HasPullPostingToCaller<Tr>) {
                transport_.pull(args, std::move(complete), [gate = gate_](std::function<void()> task) {
                    gate->post(std::move(task));
                });
            } else {
                transport_.pull(args, std::move(complete));
            }
        } catch (const std::exception& e) {
            log_line("group [{}]: pull of {} failed: {}", group_, st->mq, e.what());
            pull_later(st, config_.pull_time_delay_mills_when_exception);
        }
    }

    void
    on_pull_result(const std::shared_ptr<PullState>& st, std::int64_t begin, Outcome<PullResult> outcome) {
        ProcessQueue& pq = *st->pq;
        if (pq.dropped() || stopping_.load()) {
            return;
        }
        if (!outcome.ok()) {
            const int code = outcome.code();
            if (code == response_code::subscription_not_exist) {
                note_subscription_inconsistency(
                    fmt::format("the broker does not know this member's subscription of {} ({})",
                                st->mq.topic,
                                outcome.remark()));
            }
            if (!is_retry_topic(st->mq.topic) && code != response_code::subscription_not_latest) {
                log_line(
                    "group [{}]: pull of {} failed with code {}: {}", group_, st->mq, code, outcome.remark());
            }
            pull_later(st,
                       code == response_code::flow_control
                           ? config_.pull_time_delay_mills_when_broker_flow_control
                           : config_.pull_time_delay_mills_when_exception);
            return;
        }
        PullResult& result = outcome.value();
        {
            const std::lock_guard lock(table_mutex_);
            broker_max_offset_[st->mq] = result.max_offset;
        }
        switch (result.status) {
        case PullStatus::Found: {
            const std::int64_t prev = st->next_offset;
            st->next_offset = result.next_begin_offset;
            const std::int64_t rt = clock_->steady_millis() - begin;
            const auto sd = subscription_of(st->mq.topic);
            // Filtered in place: the pulled vector itself goes on to the cache (no per-message move).
            std::vector<MessageExt>& kept = result.msg_found_list;
            if (sd) {
                std::erase_if(kept, [&sd](const MessageExt& msg) { return !sd->matches_tag(msg.tags()); });
            }
            const PullOffsets bounds{result.min_offset, result.max_offset};
            // A service that takes the bounds stamps MIN_OFFSET / MAX_OFFSET itself, on its consume threads:
            // this loop is the consumer's one pulling thread and the first to saturate.
            constexpr bool service_stamps = requires(Service& s,
                                                     const MessageQueue& mq,
                                                     const std::shared_ptr<ProcessQueue>& pq,
                                                     std::vector<MessageExt> v,
                                                     PullOffsets b) { s.on_pulled(mq, pq, std::move(v), b); };
            if constexpr (!service_stamps) {
                bounds.stamp(kept);
            }
            for (auto& msg : kept) {
                if (msg.property_view(property::transaction_prepared) == "true") {
                    msg.set_transaction_id(
                        std::string(msg.property_view(property::uniq_client_message_id_keyidx)));
                }
                if (msg.broker_name() != st->mq.broker_name) {
                    msg.set_broker_name(st->mq.broker_name);
                }
                msg.set_queue_id(st->mq.queue_id);
            }
            stats_.record_pull_rt(st->mq.topic, rt);
            if (!kept.empty()) {
                stats_.record_pulled(st->mq.topic, static_cast<std::int64_t>(kept.size()));
            }
            if (result.next_begin_offset < prev) {
                log_line("[BUG] group [{}]: {} next begin offset {} < previous {}",
                         group_,
                         st->mq,
                         result.next_begin_offset,
                         prev);
            }
            if (kept.empty()) {
                pull(st);
                return;
            }
            if constexpr (service_stamps) {
                service_.on_pulled(st->mq, st->pq, std::move(kept), bounds);
            } else {
                service_.on_pulled(st->mq, st->pq, std::move(kept));
            }
            if (config_.pull_interval > 0) {
                pull_later(st, config_.pull_interval);
            } else {
                pull(st);
            }
            return;
        }
        case PullStatus::NoNewMsg:
        case PullStatus::NoMatchedMsg:
            st->next_offset = result.next_begin_offset;
            if (pq.msg_count() == 0) {
                // correctTagsOffset: nothing in flight, so everything before next_offset was filtered or
                // absent.
                offset_store_.update_offset(st->mq, st->next_offset, true);
            }
            pull(st);
            return;
        case PullStatus::OffsetIllegal: {
            log_line("group [{}]: offset {} of {} is illegal, continuing from {}",
                     group_,
                     st->next_offset,
                     st->mq,
                     result.next_begin_offset);
            st->next_offset = result.next_begin_offset;
            pq.set_dropped(true);
            // 5.x: fix the offset at once, drop the queue, rebalance re-adds it from the corrected offset.
            offset_store_.update_offset(st->mq, st->next_offset, false);
            offset_store_.persist(st->mq);
            remove_unnecessary_queue(st->mq, pq);
            {
                const std::lock_guard lock(table_mutex_);
                if (auto it = table_.find(st->mq); it != table_.end() && it->second == st->pq) {
                    table_.erase(it);
                }
            }
            scheduler_.post([this] { do_rebalance(); });
            return;
        }
        }
    }

    void note_subscription_inconsistency(const std::string& why) {
        stats_.set_subscription_inconsistent(true, why);
        if (!subscription_inconsistent_.exchange(true)) {
            log_line("group [{}]: subscription inconsistency: {}. All consumers of a group must subscribe "
                     "identically, otherwise messages are skipped (consumer.md §8.5)",
                     group_,
                     why);
        }
    }

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
    std::int64_t flow_control_times_ = 0;  // loop thread only; a warning every 1000th time, as Java

    Listener listener_;
    ConsumeHooks hooks_;

    mutable std::mutex sub_mutex_;
    std::map<std::string, SubscriptionData> subscriptions_;

    mutable std::mutex table_mutex_;
    std::map<MessageQueue, std::shared_ptr<ProcessQueue>> table_;
    std::map<MessageQueue, std::int64_t> broker_max_offset_;  // last max offset a pull reported, per queue

    StatsCollector stats_{clock_};
    std::shared_ptr<LifeGate> gate_ = std::make_shared<LifeGate>();
    Scheduler scheduler_;
    std::unique_ptr<ConsumePool> pool_;
    Service service_;
};

}  // namespace detail
}  // namespace rmq
