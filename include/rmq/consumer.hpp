#pragma once

/// @file consumer.hpp
/// rmq::Consumer<Order, Allocate, OffsetStore, Tr>: the policy-composed push consumer (Java's
/// DefaultMQPushConsumer). See docs/semantics.md for the guarantees and docs/policies/ for each policy.

#include <chrono>
#include <concepts>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/by_broker.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/concepts/order_policy.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/consume_context.hpp>
#include <rmq/consume_hooks.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/fwd.hpp>
#include <rmq/message.hpp>
#include <rmq/message_selector.hpp>
#include <rmq/offset_store/local_file.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/order/concurrently.hpp>
#include <rmq/order/key_orderly.hpp>
#include <rmq/order/orderly.hpp>
#include <rmq/stats.hpp>
#include <rmq/trace.hpp>
#include <rmq/transport/in_process.hpp>

#include <rmq/detail/consumer/core.hpp>
#include <rmq/detail/consumer/wrong_listener.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq {

/// A push consumer. `Order` (rmq::Concurrently | rmq::Orderly | a policy of yours, see rmq::OrderPolicy)
/// decides how messages reach the listener, `Allocate` how queues are split among the group, `OffsetStore`
/// where progress is kept and `Tr` how brokers are reached.
///
/// @code
/// rmq::InProcessBroker broker;
/// broker.create_topic("TopicTest", 8);
/// rmq::Consumer<rmq::Orderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>
///     consumer{broker.connect(), rmq::ConsumerConfig{.consumer_group = "example_group_name"}};
/// consumer.subscribe("TopicTest", "TagA || TagC || TagD");
/// consumer.register_listener([](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext& ctx) {
///     return rmq::ConsumeOrderlyStatus::Success;
/// });
/// consumer.start();
/// consumer.shutdown();
/// @endcode
///
/// Thread-safety: the member functions are meant for the owning thread; stats(), client_id(),
/// subscription_inconsistent(), suspend() and resume() may be called from any thread while it runs. Listeners
/// run on the consume pool; shutdown() (and the destructor) must not be called from a listener.
template <class Order, class Allocate, class OffsetStore, class Tr>
class Consumer {
    static_assert(
        HasListenerVocabulary<Order>,
        "rmq::Consumer: the first parameter must be an order policy (rmq::Concurrently, rmq::Orderly or "
        "one of yours): it lacks the listener vocabulary (Context, Status, Listener, "
        "listener_signature, failure_status, is_success; see rmq::HasListenerVocabulary)");
    static_assert(HasOrderTraits<Order>,
                  "rmq::Consumer: the order policy lacks requires_queue_lock, span_flow_control or "
                  "unlimited_retries_by_default (rmq::HasOrderTraits)");
    static_assert(
        HasService<Order>,
        "rmq::Consumer: the order policy has no `template <class Host> class Service` (rmq::HasService)");
    using Service = typename Order::template Service<OrderHost<Order>>;
    static_assert(
        ServiceConstructibleFromHost<Service, OrderHost<Order>>,
        "rmq::Consumer: the order policy's Service cannot be constructed from Host& (rmq::OrderHost)");
    static_assert(ServiceHasOnMessages<Service>,
                  "rmq::Consumer: the order policy's Service has no on_messages(const rmq::ConsumeQueue&, "
                  "rmq::MessageBatch) (rmq::ServiceHasOnMessages)");
    static_assert(AllocatePolicy<Allocate> || BrokerAllocatePolicy<Allocate>,
                  "rmq::Consumer: the second parameter must model rmq::AllocatePolicy (or "
                  "rmq::BrokerAllocatePolicy)");
    // Broker-side assignment as Java allows it (RebalancePushImpl.clientRebalance): an orderly policy locks
    // the queues it owns and always rebalances on the client, and the broker's split knows nothing of locks.
    static_assert(
        !BrokerAllocatePolicy<Allocate> || !Order::requires_queue_lock,
        "rmq::Consumer: broker-side assignment (rmq::BrokerAllocatePolicy, e.g. rmq::AllocateByBroker) "
        "is for concurrent consumption only; an order policy with requires_queue_lock (rmq::Orderly, "
        "rmq::KeyOrderly) rebalances on the client");
    static_assert(!BrokerAllocatePolicy<Allocate> || HasAssignment<Tr>,
                  "rmq::Consumer: broker-side assignment (rmq::BrokerAllocatePolicy) needs a transport with "
                  "QUERY_ASSIGNMENT (rmq::HasAssignment)");
    static_assert(OffsetStorePolicy<OffsetStore>,
                  "rmq::Consumer: the third parameter must model rmq::OffsetStorePolicy");
    static_assert(Transport<Tr>, "rmq::Consumer: the fourth parameter must model rmq::Transport");

    using Core = detail::ConsumerCore<Order, Allocate, OffsetStore, Tr>;

public:
    using order_policy = Order;
    using allocate_policy = Allocate;
    using offset_store_policy = OffsetStore;
    using transport_type = Tr;
    /// The listener's context type (ConsumeConcurrentlyContext or ConsumeOrderlyContext).
    using context_type = typename Order::Context;
    /// The listener's status type (ConsumeConcurrentlyStatus or ConsumeOrderlyStatus).
    using status_type = typename Order::Status;

    /// A consumer over `transport` with `config`; the policies are default-constructed unless given.
    explicit Consumer(Tr transport,
                      ConsumerConfig config,
                      Allocate allocate = Allocate{},
                      OffsetStore store = OffsetStore{})
        : core_(std::make_unique<Core>(
              std::move(transport), checked(std::move(config)), std::move(allocate), std::move(store))) {}

    /// Same, with an offset store instance and the default allocation.
    Consumer(Tr transport, ConsumerConfig config, OffsetStore store)
    requires(!std::same_as<Allocate, OffsetStore>)
        : Consumer(std::move(transport), std::move(config), Allocate{}, std::move(store)) {}

    Consumer(const Consumer&) = delete;
    Consumer& operator=(const Consumer&) = delete;
    Consumer(Consumer&&) = delete;
    Consumer& operator=(Consumer&&) = delete;

    /// Shuts down if still running (never from a listener thread: that is refused and logged), then waits for
    /// listeners still running, so nothing they use is freed under them: without limit by default, or up to
    /// ConsumerConfig::await_termination_millis_when_destroyed, after which the listeners still running
    /// finish on their own and the consumer's internals are freed when the last one returns.
    ~Consumer() {
        try {
            core_->shutdown();
        } catch (const std::exception& e) {
            detail::log_line(LogLevel::Warn, "consumer destroyed without a clean shutdown: {}", e.what());
        }
        const std::int64_t wait_millis = core_->config().await_termination_millis_when_destroyed;
        // Driven (rmq::sim): listeners run on the driver's thread, so none can still be running here.
        if constexpr (!detail::DrivenTransport<Tr>) {
            if (wait_millis >= 0) {
                destroy_core_within(wait_millis);
            }
        }
    }

    /// Java's subscribe(topic, subExpression): "*" or "TagA || TagB". May be called after start (heartbeat
    /// and rebalance follow at once). Throws rmq::InvalidArgument for a bad topic or expression.
    void subscribe(std::string_view topic, std::string_view expression = "*") {
        core_->subscribe(topic, expression, expression_type_tag);
    }

    /// Java's subscribe(topic, MessageSelector): MessageSelector::by_tag as above, or
    /// MessageSelector::by_sql("a > 5 AND b = 'x'") to filter on the broker by message properties (the broker
    /// must run with enablePropertyFilter=true). Throws rmq::InvalidArgument for a bad topic, tag expression
    /// or SQL92 expression (the message says what and where).
    void subscribe(std::string_view topic, const MessageSelector& selector) {
        core_->subscribe(topic, selector.expression(), selector.expression_type());
    }

    /// Java's unsubscribe(topic).
    void unsubscribe(std::string_view topic) { core_->unsubscribe(topic); }

    /// Registers the listener (before start(), else rmq::IllegalState): the policy's `listener_signature`,
    /// e.g. for rmq::Concurrently `(std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) ->
    /// rmq::ConsumeConcurrentlyStatus`, for rmq::Orderly and rmq::KeyOrderly
    /// `(std::span<const rmq::MessageExt>, rmq::ConsumeOrderlyContext&) -> rmq::ConsumeOrderlyStatus`.
    /// Returning `std::optional<Status>` is allowed too: nullopt, like a thrown exception, is Java's "null"
    /// (retry).
    template <class F>
    void register_listener(F&& listener) {
        // A wrong listener fails in detail::WrongListener<Order, "the policy's listener_signature">, whose
        // instantiation the compiler prints with both.
        if constexpr (!ListenerFor<std::decay_t<F>, Order>) {
            (void)detail::WrongListener<Order,
                                        detail::Text<Order::listener_signature.size()>(
                                            Order::listener_signature)>{};
        }
        if constexpr (ListenerFor<std::decay_t<F>, Order>) {
            core_->set_listener(wrap(std::forward<F>(listener)));
        }
    }

    /// Before/after hooks around each listener call (Java's ConsumeMessageHook); before start().
    void set_consume_hooks(ConsumeHooks hooks) { core_->set_hooks(std::move(hooks)); }

    /// What the trace dispatcher did since start (ConsumerConfig::enable_msg_trace; zeros without it).
    [[nodiscard]] TraceStats trace_stats() const noexcept { return core_->trace_stats(); }

    /// Java's start(): validates the configuration (rmq::InvalidArgument), requires a listener, loads
    /// offsets, heartbeats and rebalances at once. rmq::IllegalState when started twice or after shutdown.
    void start() { core_->start(); }

    /// Bounded drain (docs/semantics.md): stop pulling and rebalancing, let running listeners finish for up
    /// to await_termination_millis_when_shutdown, persist offsets, release orderly locks, unregister. Returns
    /// within that wait (plus a small margin) whatever listeners do: the results of those still running are
    /// discarded, and the destructor waits for them. Idempotent.
    void shutdown() { core_->shutdown(); }

    /// Java's suspend(): pulls pause (retried every pull_time_delay_mills_when_suspend), rebalance is
    /// skipped.
    void suspend() { core_->suspend(); }

    /// Java's resume(): pulls continue and a rebalance runs at once.
    void resume() { core_->resume(); }

    /// Whether suspend() is in effect.
    [[nodiscard]] bool paused() const noexcept { return core_->paused(); }

    /// Whether the consumer is running (started and not shut down).
    [[nodiscard]] bool running() const noexcept { return core_->state() == Core::State::Running; }

    /// The client id (`ip@instance...`), empty before start().
    [[nodiscard]] const std::string& client_id() const noexcept { return core_->client_id(); }

    /// The group with the namespace applied (empty before start()).
    [[nodiscard]] const std::string& group() const noexcept { return core_->group(); }

    /// Whether this member's subscriptions were seen to differ from its group's (see docs/semantics.md):
    /// messages are then silently skipped, so fix the subscriptions.
    [[nodiscard]] bool subscription_inconsistent() const noexcept {
        return core_->subscription_inconsistent();
    }

    /// Pull/consume counters per topic and the state of each owned queue (Java's ConsumerRunningInfo).
    [[nodiscard]] ConsumerStats stats() const { return core_->stats(); }

    /// The queues this member currently owns.
    [[nodiscard]] std::vector<MessageQueue> assigned_queues() const { return core_->assigned_queues(); }

    /// The offset store (e.g. to read committed offsets in tests or admin tools).
    [[nodiscard]] OffsetStore& offset_store() noexcept { return core_->offset_store(); }

    /// The configuration as given.
    [[nodiscard]] const ConsumerConfig& config() const noexcept { return core_->config(); }

private:
    /// Broker-side assignment is for clustering only (Java's clientRebalance for BROADCASTING): refused at
    /// construction, where the configuration is given, with rmq::InvalidArgument.
    static ConsumerConfig checked(ConsumerConfig config) {
        if constexpr (BrokerAllocatePolicy<Allocate>) {
            if (config.message_model == MessageModel::Broadcasting) {
                throw InvalidArgument(
                    "rmq::Consumer: broker-side assignment (rmq::BrokerAllocatePolicy) needs clustering "
                    "consumption; a broadcasting member consumes every queue");
            }
        }
        return config;
    }

    template <class F>
    static typename Order::Listener wrap(F&& f) {
        using Fn = std::decay_t<F>;
        using Result = std::invoke_result_t<Fn&, std::span<const MessageExt>, context_type&>;
        if constexpr (std::is_same_v<std::decay_t<Result>, std::optional<status_type>>) {
            return typename Order::Listener(std::forward<F>(f));
        } else {
            return [fn = Fn(std::forward<F>(f))](std::span<const MessageExt> msgs,
                                                 context_type& ctx) mutable -> std::optional<status_type> {
                return static_cast<status_type>(fn(msgs, ctx));
            };
        }
    }

    /// Frees the core on a thread of its own (its destructor waits for running listeners, which use it) and
    /// waits for that thread up to `wait_millis`. Past that the thread is left to finish alone: the core is
    /// freed once the last listener returns, or never if the process exits first. Leaking it instead would
    /// keep a stuck consumer's memory, threads and broker connections for the rest of the process.
    void destroy_core_within(std::int64_t wait_millis) noexcept {
        std::promise<void> freed;
        auto done = freed.get_future();
        try {
            std::thread([core = std::move(core_), freed = std::move(freed)]() mutable {
                core.reset();
                freed.set_value();
            }).detach();
        } catch (const std::exception& e) {
            // No thread: the callable, core included, was freed here, after waiting for the listeners.
            detail::log_line(LogLevel::Warn, "consumer destroyed on the caller's thread: {}", e.what());
            return;
        }
        if (done.wait_for(std::chrono::milliseconds(wait_millis)) != std::future_status::ready) {
            detail::log_line(LogLevel::Warn,
                             "consumer destroyed while listeners still run (await_termination_millis_when_"
                             "destroyed {} ms): they finish on their own; what they use must outlive them",
                             wait_millis);
        }
    }

    std::unique_ptr<Core> core_;
};

}  // namespace rmq
