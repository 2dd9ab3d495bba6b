#pragma once

/// @file concepts/order_policy.hpp
/// The OrderPolicy concept: how a push consumer hands cached messages to its listener and turns the
/// listener's answer into offsets, retries and queue locks (Java's ConsumeMessageService). rmq::Concurrently
/// and rmq::Orderly model it; docs/policies/order.md describes the host interface a policy's Service sees.

#include <concepts>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include <rmq/message.hpp>

namespace rmq {

/// The listener vocabulary: `P::Context` (what the listener gets besides its messages), `P::Status` (what it
/// answers), `P::Listener` (the stored callable, `std::function<std::optional<Status>(std::span<const
/// MessageExt>, Context&)>`, nullopt meaning "no status", Java's null) and `P::listener_signature`, the text
/// a wrong listener's diagnostic quotes.
template <class P>
concept HasListenerVocabulary =
    requires {
        typename P::Context;
        typename P::Status;
        typename P::Listener;
        { P::listener_signature } -> std::convertible_to<std::string_view>;
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

/// An order policy. Besides the vocabulary and traits it provides `template <class Host> class Service`, the
/// dispatcher the Consumer instantiates with its internal host (constructed from `Host&`; members `start()`,
/// `on_pulled(mq, pq, std::vector<MessageExt>)`, `release_queue(mq, pq) -> bool`, `stop()`, `after_drain()`);
/// the Service is checked when the Consumer is instantiated, because the host type is internal.
///
/// Valid: rmq::Concurrently, rmq::Orderly. Invalid: a type without `Listener` (the diagnostic names
/// HasListenerVocabulary).
template <class P>
concept OrderPolicy = HasListenerVocabulary<P> && HasOrderTraits<P>;

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
