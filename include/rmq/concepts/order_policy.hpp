#pragma once

/// @file concepts/order_policy.hpp
/// The OrderPolicy concept: how a push consumer hands cached messages to its listener and turns the
/// listener's answer into offsets, retries and queue locks (Java's ConsumeMessageService). rmq::Concurrently
/// and rmq::Orderly model it; a policy's Service sees the consumer only through rmq::OrderHost
/// (order/host.hpp), and docs/policies/order.md shows a complete custom policy.

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
#include <rmq/order/host.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/protocol.hpp>

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

/// The Service members the consumer calls, one concept each so that a diagnostic names what is missing.
/// `S(Host&)`: constructed from the host facade.
template <class S, class Host>
concept ServiceConstructibleFromHost = std::constructible_from<S, Host&>;

/// `s.start()`: at the end of Consumer::start(), on the caller's thread.
template <class S>
concept ServiceHasStart = requires(S& s) { s.start(); };

/// `s.on_pulled(mq, pq, std::vector<MessageExt>)`: a pull found messages (tag-filtered, MIN_OFFSET and
/// MAX_OFFSET stamped); on the event loop.
template <class S>
concept ServiceHasOnPulled = requires(
    S& s, const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq, std::vector<MessageExt> msgs) {
    s.on_pulled(mq, pq, std::move(msgs));
};

/// `s.release_queue(mq, pq) -> bool`: rebalance drops the queue (its offset already persisted); false means
/// "not yet, retry at the next rebalance"; on the event loop.
template <class S>
concept ServiceHasReleaseQueue = requires(S& s, const MessageQueue& mq, ProcessQueue& pq) {
    { s.release_queue(mq, pq) } -> std::convertible_to<bool>;
};

/// `s.stop()`: shutdown begins; `s.after_drain()`: listeners finished and offsets were persisted.
template <class S>
concept ServiceHasStopAndDrain = requires(S& s) {
    s.stop();
    s.after_drain();
};

/// Optional: `s.on_pulled(mq, pq, msgs, PullOffsets)` instead of the three-argument form. The messages are
/// not stamped yet; the service stamps `bounds` itself (e.g. on its consume threads, sparing the event loop).
template <class S>
concept ServiceStampsPulls = requires(S& s,
                                      const MessageQueue& mq,
                                      const std::shared_ptr<ProcessQueue>& pq,
                                      std::vector<MessageExt> msgs,
                                      PullOffsets bounds) { s.on_pulled(mq, pq, std::move(msgs), bounds); };

/// An order policy's Service as the consumer uses it, with Host = rmq::OrderHost<P>.
template <class S, class Host>
concept OrderService = ServiceConstructibleFromHost<S, Host> && ServiceHasStart<S> && ServiceHasOnPulled<S> &&
                       ServiceHasReleaseQueue<S> && ServiceHasStopAndDrain<S>;

/// An order policy: the listener vocabulary, the traits and `template <class Host> class Service` modelling
/// rmq::OrderService with Host = rmq::OrderHost<P> (docs/policies/order.md shows a complete one).
///
/// Valid: rmq::Concurrently, rmq::Orderly. Invalid: a type without `Listener` (the diagnostic names
/// HasListenerVocabulary), a Service without `release_queue` (rmq::Consumer's diagnostic names it).
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
