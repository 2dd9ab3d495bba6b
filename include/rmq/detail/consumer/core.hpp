#pragma once

/// @file detail/consumer/core.hpp
/// rmq::detail::ConsumerCore: a push consumer as the boxes of the runtime over one shared state
/// (ConsumerState): the Puller, the Rebalancer, the OffsetCommitter (the one door to the offset store), the
/// QueueLocker, Consumption (a listener call and what its verdict does, for every policy) with SendBack, the
/// AdminResponder and the Heartbeat. The core owns them, the order policy's Service (which sees the core
/// through rmq::OrderHost, detail/consumer/host.hpp) and the user-facing API: lifecycle (impl/lifecycle.hpp)
/// and stats (impl/stats.hpp).
///
/// Threads: one Scheduler loop (rebalance, pull loops, timers, transport completions) and the ConsumePool
/// (listener calls and their result processing). Transport completions reach the boxes only through a
/// LifeGate, which shutdown closes first, so a late completion can never touch a dead consumer.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/concepts/order_policy.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/consume_hooks.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/stats.hpp>
#include <rmq/trace.hpp>

#include <rmq/detail/consumer/admin_responder.hpp>
#include <rmq/detail/consumer/consumption.hpp>
#include <rmq/detail/consumer/driven.hpp>
#include <rmq/detail/consumer/heartbeat.hpp>
#include <rmq/detail/consumer/host.hpp>
#include <rmq/detail/consumer/offset_committer.hpp>
#include <rmq/detail/consumer/puller.hpp>
#include <rmq/detail/consumer/queue_locker.hpp>
#include <rmq/detail/consumer/rebalancer.hpp>
#include <rmq/detail/consumer/send_back.hpp>
#include <rmq/detail/consumer/state.hpp>
#include <rmq/detail/filter/parser.hpp>
#include <rmq/detail/pop_consumer/pop_consumer.hpp>

namespace rmq::detail {

struct CoreAccess;

/// The consumer's engine; see the file comment.
template <class Order, class Allocate, class OffsetStore, class Tr>
class ConsumerCore {
public:
    using Types = ConsumerTypes<Order, Allocate, OffsetStore, Tr>;
    using Listener = typename Order::Listener;
    using Host = ConsumerHost<ConsumerCore>;
    using Service = typename Types::Service;
    using order_policy = Order;
    using State = ConsumerLifecycle;

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

    /// What the trace dispatcher did (zeros without enable_msg_trace).
    [[nodiscard]] TraceStats trace_stats() const noexcept {
        return s_.tracer ? s_.tracer->dispatcher().stats() : TraceStats{};
    }

    void start();
    void shutdown();
    void suspend();
    void resume();

    [[nodiscard]] bool paused() const noexcept { return s_.paused.load(); }

    [[nodiscard]] State state() const noexcept { return s_.lifecycle.load(); }

    [[nodiscard]] bool subscription_inconsistent() const noexcept {
        return s_.subscription_inconsistent.load();
    }

    [[nodiscard]] const ConsumerConfig& config() const noexcept { return s_.config; }

    [[nodiscard]] const std::string& group() const noexcept { return s_.group; }

    [[nodiscard]] const std::string& client_id() const noexcept { return s_.client_id; }

    [[nodiscard]] OffsetStore& offset_store() noexcept { return committer_.store(); }

    /// The POP mode (detail/pop_consumer/): PopConsumer::update_pop_queues(topic, queues) starts and stops
    /// the POP requests of a topic's POP queues, for whoever assigns them. Inert until called, and only
    /// usable when PopConsumable<Order, Tr>.
    [[nodiscard]] PopConsumer<Types>& pop_consumer() noexcept { return pop_; }

    // ---------------------------------------------------------------- impl/stats.hpp
    [[nodiscard]] ConsumerStats stats() const;
    /// Queues currently owned (a snapshot).
    [[nodiscard]] std::vector<MessageQueue> assigned_queues() const;

private:
    friend Host;
    friend struct CoreAccess;  // rmq::LitePullConsumer's engine (detail/lite_pull/core_access.hpp)

    // impl/lifecycle.hpp
    /// A rebalance, or under message_request_mode Pop the POP queues of the subscriptions.
    void rebalance_now();
    void check_not_started(std::string_view what) const;
    void check_not_shut_down(std::string_view what) const;
    void start_timers();
    void start_tracer();
    void drain_listeners();
    /// With a driven transport (rmq::sim): no threads; the driver runs the loop and the pool.
    void attach_driver();
    void detach_driver();
    [[nodiscard]] std::string stuck_queue_names() const;
    // impl/stats.hpp
    void schedule_stats_log();

    // Declared in construction order: the state first, then the boxes (a box may refer to one declared after
    // it, never use it before the core is built), then the host and the Service, which the boxes call.
    ConsumerState<Types> s_;
    OffsetCommitter<Types> committer_;
    QueueLocker<Types> locker_;
    SendBack<Types> sender_{s_};
    Heartbeat<Types> heartbeat_{s_};
    Consumption<Types> consumption_{s_, committer_, sender_, service_};
    Puller<Types> puller_{s_, committer_, rebalancer_, service_};
    Rebalancer<Types> rebalancer_;
    AdminResponder<Types> admin_{s_, committer_, rebalancer_, consumption_};
    PopConsumer<Types> pop_{s_};
    // Queues that held unfinished messages when shutdown() stopped waiting for listeners (logged by the
    // destructor, which waits for those listeners). Written by shutdown(), read by the destructor.
    std::vector<MessageQueue> stuck_queues_;
    std::mutex lifecycle_mutex_;
    Host host_{*this};
    Service service_{host_};
};

}  // namespace rmq::detail

#include <rmq/detail/consumer/impl/lifecycle.hpp>
#include <rmq/detail/consumer/impl/stats.hpp>
