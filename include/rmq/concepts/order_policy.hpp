#pragma once

/// @file concepts/order_policy.hpp
/// The OrderPolicy concept: how a push consumer hands cached messages to its listener and turns the
/// listener's answer into offsets, retries and queue locks (Java's ConsumeMessageService). rmq::Concurrently
/// rmq::Orderly and rmq::KeyOrderly model it; a policy's Service sees the consumer only through
/// rmq::OrderHost (order/host.hpp), which keeps the data path's invariants; docs/policies/order.md shows a
/// complete custom policy.

#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/order/consume_queue.hpp>
#include <rmq/order/host.hpp>
#include <rmq/order/message_batch.hpp>

namespace rmq {

/// The listener vocabulary: `P::Context` (what the listener gets besides its messages), `P::Status` (what it
/// answers), `P::Listener` (the stored callable, `std::function<std::optional<Status>(std::span<const
/// MessageExt>, Context&)>`, nullopt meaning "no status", Java's null), `P::listener_signature` (the text a
/// wrong listener's diagnostic quotes), `P::failure_status` (what an exception or nullopt counts as) and
/// `P::is_success(Status)` (what the after-hook is told).
template <class P>
concept HasListenerVocabulary =
    requires(typename P::Status status) {
        typename P::Context;
        typename P::Listener;
        { P::listener_signature } -> std::convertible_to<std::string_view>;
        { P::failure_status } -> std::convertible_to<typename P::Status>;
        { P::is_success(status) } -> std::convertible_to<bool>;
    } &&
    std::is_same_v<
        typename P::Listener,
        std::function<std::optional<typename P::Status>(std::span<const MessageExt>, typename P::Context&)>>;

/// The host-facing traits: `P::requires_queue_lock` (clustering queues need the broker lock before they are
/// pulled and while consumed, Java's isOrder), `P::span_flow_control` (pulls pause on a wide offset span,
/// Java's consumeConcurrentlyMaxSpan) and `P::unlimited_retries_by_default` (max_reconsume_times -1 means
/// INT32_MAX rather than 16).
template <class P>
concept HasOrderTraits = requires {
    { P::requires_queue_lock } -> std::convertible_to<bool>;
    { P::span_flow_control } -> std::convertible_to<bool>;
    { P::unlimited_retries_by_default } -> std::convertible_to<bool>;
};

/// `P::Service<Host>` exists: the dispatcher the consumer instantiates with Host = rmq::OrderHost<P>.
template <class P>
concept HasService = requires { typename P::template Service<OrderHost<P>>; };

/// `S(Host&)`: constructed from the host facade.
template <class S, class Host>
concept ServiceConstructibleFromHost = std::constructible_from<S, Host&>;

/// `s.on_messages(q, batch)`: a pull found messages for `q`, already cached (tag-filtered); the Service
/// turns them into listener calls. Also called with messages whose send-back failed (OrderHost::settle), 5 s
/// later. On the event loop: hand the calls to the consume pool (OrderHost::submit), never run them here.
template <class S>
concept ServiceHasOnMessages =
    requires(S& s, const ConsumeQueue& q, MessageBatch batch) { s.on_messages(q, std::move(batch)); };

/// Optional: `s.start()` at the end of Consumer::start(), on the caller's thread.
template <class S>
concept ServiceHasStart = requires(S& s) { s.start(); };

/// Optional: `s.stop()` when shutdown begins (before the listeners drain).
template <class S>
concept ServiceHasStop = requires(S& s) { s.stop(); };

/// Optional: `s.after_drain()` once the listeners finished (or the drain's deadline passed) and offsets were
/// persisted; the last call a Service gets.
template <class S>
concept ServiceHasAfterDrain = requires(S& s) { s.after_drain(); };

/// Optional: `s.on_queue_added(q)`: this member took `q` on, before its first pull (event loop).
template <class S>
concept ServiceObservesQueueAdded = requires(S& s, const ConsumeQueue& q) { s.on_queue_added(q); };

/// Optional: `s.on_queue_removed(q) -> bool`: `q` was dropped (rebalance, unsubscribe, an offset reset, an
/// illegal offset), its offset persisted and, under a queue lock, no listener call of it runs; false defers
/// the removal (asked again at the next rebalance), true lets it go (the broker lock is released after).
/// Event loop.
template <class S>
concept ServiceObservesQueueRemoved = requires(S& s, const ConsumeQueue& q) {
    { s.on_queue_removed(q) } -> std::convertible_to<bool>;
};

/// An order policy's Service as the consumer uses it, with Host = rmq::OrderHost<P>.
template <class S, class Host>
concept OrderService = ServiceConstructibleFromHost<S, Host> && ServiceHasOnMessages<S>;

/// An order policy: the listener vocabulary, the traits and `template <class Host> class Service` modelling
/// rmq::OrderService with Host = rmq::OrderHost<P> (docs/policies/order.md shows a complete one).
///
/// Valid: rmq::Concurrently, rmq::Orderly, rmq::KeyOrderly. Invalid: a type without `Listener` (the
/// diagnostic names HasListenerVocabulary), a Service without `on_messages` (rmq::Consumer's diagnostic
/// names it).
template <class P>
concept OrderPolicy = HasListenerVocabulary<P> && HasOrderTraits<P> && HasService<P> &&
                      OrderService<typename P::template Service<OrderHost<P>>, OrderHost<P>>;

/// Whether `F` can serve as a listener of policy `P`: callable with `(std::span<const MessageExt>,
/// P::Context&)` and returning `P::Status` or `std::optional<P::Status>`.
template <class F, class P>
concept ListenerFor =
    OrderPolicy<P> &&
    (std::is_invocable_r_v<typename P::Status, F&, std::span<const MessageExt>, typename P::Context&> ||
     std::is_invocable_r_v<std::optional<typename P::Status>,
                           F&,
                           std::span<const MessageExt>,
                           typename P::Context&>);

}  // namespace rmq
