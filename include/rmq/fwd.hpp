#pragma once

/// @file fwd.hpp
/// Forward declarations of rmq's policy-composed consumer, its default policies and the common aliases.
/// Include <rmq/consumer.hpp> (or <rmq/rmq.hpp>) for the definitions.

#include <cstddef>

namespace rmq {

struct Concurrently;
struct Orderly;
struct FirstKey;
/// Per-key orderly consumption (rmq/order/key_orderly.hpp): keys of a queue in parallel, each key in order.
template <class Extractor, std::size_t MaxInFlightPerQueue = 16>
struct KeyOrderlyBy;
/// Per-key orderly consumption keyed by the first message key (rmq::FirstKey).
using KeyOrderly = KeyOrderlyBy<FirstKey>;
struct AllocateAveragely;
class RemoteOffsetStore;
class LocalFileOffsetStore;
class InProcessTransport;

/// The push consumer: `Consumer<OrderPolicy, AllocatePolicy, OffsetStorePolicy, Transport>`. The defaults
/// give Java's DefaultMQPushConsumer with a concurrent listener on the embedded broker.
template <class Order = Concurrently,
          class Allocate = AllocateAveragely,
          class OffsetStore = RemoteOffsetStore,
          class Tr = InProcessTransport>
class Consumer;

/// Java's DefaultMQPushConsumer with a MessageListenerConcurrently: concurrent, averagely allocated, offsets
/// kept by the broker.
template <class Tr = InProcessTransport>
using PushConsumer = Consumer<Concurrently, AllocateAveragely, RemoteOffsetStore, Tr>;

/// Java's DefaultMQPushConsumer with a MessageListenerOrderly.
template <class Tr = InProcessTransport>
using OrderlyConsumer = Consumer<Orderly, AllocateAveragely, RemoteOffsetStore, Tr>;

/// Per-key orderly consumption (rmq::KeyOrderly): the listener of OrderlyConsumer.
template <class Tr = InProcessTransport>
using KeyOrderlyConsumer = Consumer<KeyOrderly, AllocateAveragely, RemoteOffsetStore, Tr>;

/// A BROADCASTING consumer: every member consumes every queue; offsets kept in a local file (set
/// `message_model = rmq::MessageModel::Broadcasting` in its ConsumerConfig).
template <class Tr = InProcessTransport>
using BroadcastConsumer = Consumer<Concurrently, AllocateAveragely, LocalFileOffsetStore, Tr>;

/// The lite pull consumer: `LitePullConsumer<AllocatePolicy, OffsetStorePolicy, Transport>`, Java's
/// DefaultLitePullConsumer (poll, seek, commit). Defaults: averagely allocated, offsets on the broker, the
/// embedded broker. No order policy: the application takes messages by poll().
template <class Allocate = AllocateAveragely,
          class OffsetStore = RemoteOffsetStore,
          class Tr = InProcessTransport>
class LitePullConsumer;

}  // namespace rmq
