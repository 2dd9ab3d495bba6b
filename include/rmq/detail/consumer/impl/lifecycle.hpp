#pragma once

/// @file detail/consumer/impl/lifecycle.hpp
/// ConsumerCore's lifecycle: construction, subscribe, start (Java's DefaultMQPushConsumerImpl.start), the
/// bounded-drain shutdown, suspend/resume, and the two ways a Service schedules work.

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/core.hpp>

namespace rmq::detail {

template <class Order, class Allocate, class OffsetStore, class Tr>
ConsumerCore<Order, Allocate, OffsetStore, Tr>::ConsumerCore(Tr transport,
                                                             ConsumerConfig config,
                                                             Allocate allocate,
                                                             OffsetStore store)
    : transport_(std::move(transport))
    , config_(std::move(config))
    , allocate_(std::move(allocate))
    , offset_store_(std::move(store))
    , clock_(transport_.clock()) {}

template <class Order, class Allocate, class OffsetStore, class Tr>
ConsumerCore<Order, Allocate, OffsetStore, Tr>::~ConsumerCore() {
    detach_driver();
    gate_->close();
    scheduler_.stop();
    if (pool_) {
        pool_->close();
        // shutdown() returns without waiting for listeners past the configured wait; here, before anything
        // they may touch is freed, rmq waits for them.
        if (!pool_->wait_idle(0)) {
            log_line(LogLevel::Warn,
                     "group [{}]: destroying the consumer waits for listeners still running (queues with "
                     "unfinished messages at shutdown: {})",
                     group_,
                     stuck_queue_names());
        }
        pool_->join();
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
std::string ConsumerCore<Order, Allocate, OffsetStore, Tr>::stuck_queue_names() const {
    if (stuck_queues_.empty()) {
        return "unknown";
    }
    std::string names;
    for (const auto& mq : stuck_queues_) {
        names += fmt::format("{}{}", names.empty() ? "" : ", ", mq);
    }
    return names;
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::subscribe(std::string_view topic,
                                                               std::string_view expression,
                                                               std::string_view type) {
    check_not_shut_down("subscribe");
    check_topic(topic);
    auto sd = parse_subscription(topic, expression, type);
    if (sd.expression_type == expression_type_sql92) {
        (void)filter::compile(sd.sub_string);  // throws InvalidArgument with the reason
    }
    sd.sub_version = clock_->wall_millis();
    subscriptions_.put(std::move(sd));
    if (state_.load() == State::Running) {
        scheduler_.post([this] {
            send_heartbeat();
            do_rebalance();
        });
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::unsubscribe(std::string_view topic) {
    check_not_shut_down("unsubscribe");
    subscriptions_.erase(topic);
}

// Listener and hooks are read by consume threads without a lock: they are fixed before start().
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::set_listener(Listener listener) {
    check_not_started("register_listener");
    listener_ = std::move(listener);
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::set_hooks(ConsumeHooks hooks) {
    check_not_started("set_consume_hooks");
    hooks_ = std::move(hooks);
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::start() {
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
        throw InvalidArgument(fmt::format("no listener registered for group [{}]: call register_listener({}) "
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
    if (clustering_) {
        auto sd = parse_subscription(retry_topic(group_), sub_all);
        sd.sub_version = clock_->wall_millis();
        subscriptions_.put(std::move(sd));
    }
    load_offsets();
    pool_ = std::make_unique<ConsumePool>(static_cast<std::size_t>(config_.consume_thread_min),
                                          static_cast<std::size_t>(config_.consume_queue_capacity));
    attach_driver();
    gate_->open(scheduler_);
    // The handler may outlive the consumer (the transport's broker keeps it): it touches nothing but the gate
    // and its own copy of the group; `this` is used only on the loop, which the gate guards.
    transport_.set_notification_handler([gate = gate_, group = group_, this](const ConsumerIdsChanged& n) {
        if (n.consumer_group == group) {
            gate->post([this] { do_rebalance(); });
        }
    });
    pool_->start();
    scheduler_.start();
    open_admin();
    watch_route_changes(true);
    state_.store(State::Running);
    if constexpr (ServiceHasStart<Service>) {
        service_.start();
    }
    start_timers();
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::attach_driver() {
    if constexpr (DrivenTransport<Tr>) {
        if (transport_.driven()) {
            scheduler_.drive_with(clock_);
            pool_->set_driven();
            transport_.attach_driven(DrivenMember{
                .run_loop_task = [this] { return scheduler_.run_one_ready(); },
                .run_consume_task = [this] { return pool_->run_one(); },
                .next_deadline = [this] { return scheduler_.next_deadline_millis(); },
            });
        }
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::detach_driver() {
    if constexpr (DrivenTransport<Tr>) {
        transport_.detach_driven();
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::load_offsets() {
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
}

/// A heartbeat and a rebalance at once, then Java's periodic tasks: rebalance, heartbeat, offset persistence.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::start_timers() {
    scheduler_.post([this] {
        send_heartbeat();
        do_rebalance();
    });
    scheduler_.every(config_.rebalance_interval, config_.rebalance_interval, [this] { do_rebalance(); });
    scheduler_.every(
        config_.heartbeat_broker_interval, config_.heartbeat_broker_interval, [this] { send_heartbeat(); });
    scheduler_.every(config_.persist_consumer_offset_interval,
                     config_.persist_consumer_offset_interval,
                     [this] { persist_all(); });
    start_consume_timers();
    schedule_stats_log();
}

/// Bounded drain: stop the loop (no new pulls, rebalances or re-dispatches), let running listeners finish up
/// to the deadline, persist offsets, let the service release what it holds, unregister.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::shutdown() {
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
    watch_route_changes(false);
    close_admin();
    gate_->close();
    if constexpr (ServiceHasStop<Service>) {
        service_.stop();
    }
    scheduler_.stop();
    detach_driver();
    drain_listeners();
    persist_all();
    if constexpr (ServiceHasAfterDrain<Service>) {
        service_.after_drain();
    }
    if (Order::requires_queue_lock && clustering_) {
        unlock_all();  // Java's unlockAll(false)
    }
    free_retired();
    for (auto& [mq, pq] : table_snapshot()) {
        pq->set_dropped(true);
    }
    try {
        transport_.unregister_client(client_id_, std::string{}, group_);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: unregister failed: {}", group_, e.what());
    }
    {
        const std::lock_guard lock(table_mutex_);
        table_.clear();
    }
    state_.store(State::ShutdownAlready);
}

/// Waits for running listeners up to await_termination_millis_when_shutdown; the results of those still
/// running then are discarded (their queues are dropped) and their messages are redelivered. Those are not
/// waited for here (shutdown() keeps its bound whatever a listener does): the destructor joins them.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::drain_listeners() {
    pool_->close();
    if (pool_->wait_idle(config_.await_termination_millis_when_shutdown)) {
        pool_->join();
        return;
    }
    for (auto& [mq, pq] : table_snapshot()) {
        const auto info = pq->info();
        if (info.cached_msg_count > 0 || info.transaction_msg_count > 0) {
            stuck_queues_.push_back(mq);
        }
        pq->set_dropped(true);
    }
    log_line(
        LogLevel::Warn,
        "group [{}]: listeners still running after {} ms (queues with unfinished messages: {}); their "
        "results will be discarded and their messages redelivered; the consumer's destructor waits for them",
        group_,
        config_.await_termination_millis_when_shutdown,
        stuck_queue_names());
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::suspend() {
    check_not_shut_down("suspend");
    paused_.store(true);
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::resume() {
    check_not_shut_down("resume");
    paused_.store(false);
    if (state_.load() == State::Running) {
        scheduler_.post([this] { do_rebalance(); });
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::check_not_started(std::string_view what) const {
    if (state_.load() != State::CreateJust) {
        throw IllegalState(fmt::format("{}() must be called before start()", what));
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::check_not_shut_down(std::string_view what) const {
    if (state_.load() == State::ShutdownAlready) {
        throw IllegalState(fmt::format("{}() called on a consumer that was shut down", what));
    }
}

/// Runs `task` on a consume thread. When the bounded queue is full the task is retried from the loop after
/// the flow-control delay; once shutdown began it is dropped (its messages stay uncommitted).
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::submit(std::function<void()> task) {
    if (stopping_.load()) {
        return;
    }
    if (pool_->try_submit(std::move(task))) {
        return;
    }
    // try_submit moves from task only when it accepts it, so a refused task is still here.
    schedule(config_.pull_time_delay_mills_when_flow_control,
             // NOLINTNEXTLINE(bugprone-use-after-move)
             [this, task = std::move(task)]() mutable { submit(std::move(task)); });
}

/// Runs `fn` on the loop after `delay_millis`; dropped once shutdown began.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::schedule(std::int64_t delay_millis,
                                                              std::function<void()> fn) {
    if (stopping_.load()) {
        return;
    }
    scheduler_.post_after(delay_millis, std::move(fn));
}

}  // namespace rmq::detail
