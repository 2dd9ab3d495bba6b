#pragma once

/// @file detail/consumer/impl/lifecycle.hpp
/// ConsumerCore's lifecycle: construction, subscribe, start (Java's DefaultMQPushConsumerImpl.start), the
/// bounded-drain shutdown, suspend/resume.

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/core.hpp>
#include <rmq/detail/consumer/poll_hooks.hpp>
#include <rmq/detail/pop_consumer/pop_mode.hpp>

namespace rmq::detail {

template <class Order, class Allocate, class OffsetStore, class Tr>
ConsumerCore<Order, Allocate, OffsetStore, Tr>::ConsumerCore(Tr transport,
                                                             ConsumerConfig config,
                                                             Allocate allocate,
                                                             OffsetStore store)
    : s_(std::move(transport), std::move(config))
    , committer_(s_, std::move(store))
    , locker_(s_)
    , rebalancer_(s_, std::move(allocate), committer_, locker_, puller_, heartbeat_, service_) {
    check_pop_mode<Order, Tr>(s_.config);
    if constexpr (PopConsumable<Order, Tr>) {
        // A broker-side assignment (rmq::AllocateByBroker) may hand queues in POP mode.
        rebalancer_.set_pop_queues_sink(
            [this](const std::string& topic, const std::vector<MessageQueue>& queues) {
                pop_.update_pop_queues(topic, queues);
            });
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
ConsumerCore<Order, Allocate, OffsetStore, Tr>::~ConsumerCore() {
    detach_driver();
    s_.gate->close();
    s_.scheduler.stop();
    if (s_.pool) {
        s_.pool->close();
        // shutdown() returns without waiting for listeners past the configured wait; here, before anything
        // they may touch is freed, rmq waits for them.
        if (!s_.pool->wait_idle(0)) {
            log_line(LogLevel::Warn,
                     "group [{}]: destroying the consumer waits for listeners still running (queues with "
                     "unfinished messages at shutdown: {})",
                     s_.group,
                     stuck_queue_names());
        }
        s_.pool->join();
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
    sd.sub_version = s_.clock->wall_millis();
    s_.subscriptions.put(std::move(sd));
    if (s_.lifecycle.load() == State::Running) {
        s_.scheduler.post([this] {
            heartbeat_.send();
            rebalance_now();
        });
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::unsubscribe(std::string_view topic) {
    check_not_shut_down("unsubscribe");
    s_.subscriptions.erase(topic);
}

// Listener and hooks are read by consume threads without a lock: they are fixed before start().
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::set_listener(Listener listener) {
    check_not_started("register_listener");
    s_.listener = std::move(listener);
}

// The hooks are moved into the state: the check cannot see the move through the (dependent) state member.
template <class Order, class Allocate, class OffsetStore, class Tr>
// NOLINTNEXTLINE(performance-unnecessary-value-param)
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::set_hooks(ConsumeHooks hooks) {
    check_not_started("set_consume_hooks");
    s_.hooks = std::move(hooks);
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::start() {
    const std::lock_guard lifecycle(lifecycle_mutex_);
    if (s_.lifecycle.load() != State::CreateJust) {
        throw IllegalState(
            fmt::format("the consumer of group [{}] was started once already ({}); create a new "
                        "consumer to start again",
                        s_.config.consumer_group,
                        s_.lifecycle.load() == State::Running ? "running" : "shut down"));
    }
    s_.config.validate();
    if (!PollDriven<Order> && !s_.listener) {
        throw InvalidArgument(fmt::format("no listener registered for group [{}]: call register_listener({}) "
                                          "before start()",
                                          s_.config.consumer_group,
                                          Order::listener_signature));
    }
    s_.group = s_.config.with_namespace(s_.config.consumer_group);
    s_.client_id = s_.config.build_client_id();
    s_.clustering = s_.config.message_model == MessageModel::Clustering;
    s_.max_reconsume_times = s_.config.max_reconsume_times_for(Order::unlimited_retries_by_default);
    s_.pull_threshold_for_queue.store(s_.config.pull_threshold_for_queue);
    s_.pull_threshold_size_for_queue.store(s_.config.pull_threshold_size_for_queue);
    if (s_.clustering && !PollDriven<Order>) {
        auto sd = parse_subscription(retry_topic(s_.group), sub_all);
        sd.sub_version = s_.clock->wall_millis();
        s_.subscriptions.put(std::move(sd));
    }
    committer_.load();
    start_tracer();
    s_.pool = std::make_unique<ConsumePool>(static_cast<std::size_t>(s_.config.consume_thread_min),
                                            static_cast<std::size_t>(s_.config.consume_queue_capacity));
    attach_driver();
    s_.gate->open(s_.scheduler);
    // The handler may outlive the consumer (the transport's broker keeps it): it touches nothing but the gate
    // and its own copy of the group; `this` is used only on the loop, which the gate guards.
    s_.transport.set_notification_handler(
        [gate = s_.gate, group = s_.group, this](const ConsumerIdsChanged& n) {
            if (n.consumer_group == group) {
                gate->post([this] { rebalance_now(); });
            }
        });
    s_.pool->start();
    s_.scheduler.start();
    admin_.open();
    rebalancer_.watch_route_changes(true);
    s_.lifecycle.store(State::Running);
    if constexpr (ServiceHasStart<Service>) {
        service_.start();
    }
    start_timers();
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::attach_driver() {
    if constexpr (DrivenTransport<Tr>) {
        if (s_.transport.driven()) {
            s_.scheduler.drive_with(s_.clock);
            s_.pool->set_driven();
            s_.transport.attach_driven(DrivenMember{
                .run_loop_task = [this] { return s_.scheduler.run_one_ready(); },
                .run_consume_task = [this] { return s_.pool->run_one(); },
                .next_deadline = [this] { return s_.scheduler.next_deadline_millis(); },
            });
        }
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::detach_driver() {
    if constexpr (DrivenTransport<Tr>) {
        s_.transport.detach_driven();
    }
}

/// DefaultMQPushConsumer.start with enableTrace: the dispatcher and its producer, which sends through a copy
/// of the transport.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::start_tracer() {
    if (!s_.config.enable_msg_trace) {
        return;
    }
    if constexpr (std::copy_constructible<Tr>) {
        s_.tracer = trace::start_tracer<Producer<Tr>>(s_.transport,
                                                      s_.config.consumer_group,
                                                      "CONSUME",
                                                      s_.config.customized_trace_topic,
                                                      s_.config.trace_msg_batch_num);
    } else {
        throw InvalidArgument("enable_msg_trace needs a copyable transport (the trace producer's own)");
    }
}

/// A heartbeat and a rebalance at once, then Java's periodic tasks: rebalance, heartbeat, offset persistence.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::start_timers() {
    s_.scheduler.post([this] {
        heartbeat_.send();
        rebalance_now();
    });
    s_.scheduler.every(
        s_.config.rebalance_interval, s_.config.rebalance_interval, [this] { rebalance_now(); });
    s_.scheduler.every(s_.config.heartbeat_broker_interval, s_.config.heartbeat_broker_interval, [this] {
        heartbeat_.send();
    });
    s_.scheduler.every(s_.config.persist_consumer_offset_interval,
                       s_.config.persist_consumer_offset_interval,
                       [this] { committer_.persist_all(); });
    consumption_.start_timers();
    locker_.start_renewal();
    schedule_stats_log();
}

/// Bounded drain: stop the loop (no new pulls, rebalances or re-dispatches), let running listeners finish up
/// to the deadline, persist offsets, let the service release what it holds, unregister.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::shutdown() {
    const std::lock_guard lifecycle(lifecycle_mutex_);
    if (s_.lifecycle.load() != State::Running) {
        s_.lifecycle.store(State::ShutdownAlready);
        return;
    }
    if (s_.pool->on_worker() || s_.scheduler.in_loop()) {
        throw IllegalState(
            "shutdown() called from a listener or consumer thread; call it from the thread that "
            "owns the consumer");
    }
    s_.stopping.store(true);
    rebalancer_.watch_route_changes(false);
    admin_.close();
    s_.gate->close();
    if constexpr (ServiceHasStop<Service>) {
        service_.stop();
    }
    pop_.stop();
    s_.scheduler.stop();
    detach_driver();
    drain_listeners();
    pop_.close_acks();
    if (s_.tracer) {
        s_.tracer->shutdown();  // the records of the calls that finished are sent
    }
    committer_.persist_all();
    if constexpr (ServiceHasAfterDrain<Service>) {
        service_.after_drain();
    }
    if (Order::requires_queue_lock && s_.clustering) {
        locker_.unlock_all();  // Java's unlockAll(false)
    }
    s_.retired.free();
    for (auto& [mq, pq] : s_.table_snapshot()) {
        pq->set_dropped(true);
    }
    try {
        s_.transport.unregister_client(s_.client_id, std::string{}, s_.group);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "group [{}]: unregister failed: {}", s_.group, e.what());
    }
    {
        const std::lock_guard lock(s_.table_mutex);
        s_.table.clear();
    }
    s_.lifecycle.store(State::ShutdownAlready);
}

/// Waits for running listeners up to await_termination_millis_when_shutdown; the results of those still
/// running then are discarded (their queues are dropped) and their messages are redelivered. Those are not
/// waited for here (shutdown() keeps its bound whatever a listener does): the destructor joins them.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::drain_listeners() {
    s_.pool->close();
    if (s_.pool->wait_idle(s_.config.await_termination_millis_when_shutdown)) {
        s_.pool->join();
        return;
    }
    for (auto& [mq, pq] : s_.table_snapshot()) {
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
        s_.group,
        s_.config.await_termination_millis_when_shutdown,
        stuck_queue_names());
}

/// Java's rebalance; under message_request_mode Pop (no client rebalance) the subscriptions' POP queues.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::rebalance_now() {
    if constexpr (PopConsumable<Order, Tr>) {
        if (s_.config.message_request_mode == MessageRequestMode::Pop) {
            pop_.pop_subscriptions();
            return;
        }
    }
    rebalancer_.do_rebalance();
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::suspend() {
    check_not_shut_down("suspend");
    s_.paused.store(true);
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::resume() {
    check_not_shut_down("resume");
    s_.paused.store(false);
    if (s_.lifecycle.load() == State::Running) {
        s_.scheduler.post([this] { rebalance_now(); });
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::check_not_started(std::string_view what) const {
    if (s_.lifecycle.load() != State::CreateJust) {
        throw IllegalState(fmt::format("{}() must be called before start()", what));
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::check_not_shut_down(std::string_view what) const {
    if (s_.lifecycle.load() == State::ShutdownAlready) {
        throw IllegalState(fmt::format("{}() called on a consumer that was shut down", what));
    }
}

}  // namespace rmq::detail
