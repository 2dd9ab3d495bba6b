#pragma once

/// @file lite_pull_consumer.hpp
/// rmq::LitePullConsumer<Allocate, OffsetStore, Tr>: Java's DefaultLitePullConsumer. The application pulls:
/// poll() returns the next batch of messages; subscribe() shares the topic's queues with the group through
/// the allocation policy, assign() takes given queues; offsets are committed automatically or by
/// commit_sync(); seek(), pause() and resume() steer single queues. It runs on the push consumer's core
/// (rebalance, pull loops, flow control, offset store, heartbeat): docs/lite_pull.md.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/allocate/averagely.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/fwd.hpp>
#include <rmq/lite_pull_config.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/message_selector.hpp>
#include <rmq/offset_store/local_file.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/stats.hpp>
#include <rmq/subscription.hpp>
#include <rmq/transport/in_process.hpp>

#include <rmq/detail/lite_pull/engine.hpp>

namespace rmq {

/// A lite pull consumer. `Allocate` splits a subscribed topic's queues among the group (unused after
/// assign()), `OffsetStore` keeps committed offsets (rmq::RemoteOffsetStore in clustering,
/// rmq::LocalFileOffsetStore in broadcasting), `Tr` reaches the brokers.
///
/// @code
/// rmq::LitePullConsumer<> consumer{broker.connect(), rmq::LitePullConfig{.consumer_group = "g"}};
/// consumer.subscribe("TopicTest");
/// consumer.start();
/// while (running) {
///     for (const rmq::MessageExt& msg : consumer.poll()) { handle(msg); }
/// }   // auto-commit: each poll() commits what the previous ones returned
/// consumer.shutdown();
/// @endcode
///
/// Thread-safety: every member may be called from any thread; poll(), seek() and the commits are serialized
/// (Java's synchronized methods), a poll waiting for messages holds nothing.
template <class Allocate, class OffsetStore, class Tr>
class LitePullConsumer {
    static_assert(AllocatePolicy<Allocate>,
                  "rmq::LitePullConsumer: the first parameter must model rmq::AllocatePolicy");
    static_assert(OffsetStorePolicy<OffsetStore>,
                  "rmq::LitePullConsumer: the second parameter must model rmq::OffsetStorePolicy");
    static_assert(Transport<Tr>, "rmq::LitePullConsumer: the third parameter must model rmq::Transport");

    using Engine = detail::LitePullEngine<Allocate, OffsetStore, Tr>;

public:
    using allocate_policy = Allocate;
    using offset_store_policy = OffsetStore;
    using transport_type = Tr;
    /// Called on the event loop when a queue becomes this member's (true) or stops being (false): Java's
    /// MessageQueueListener, one queue at a time. Keep it short; it may call seek().
    using QueueListener = std::function<void(const MessageQueue&, bool owned)>;
    /// Java's TopicMessageQueueChangeListener: a watched topic's readable queues (sorted) changed.
    using TopicQueueListener =
        std::function<void(const std::string& topic, const std::vector<MessageQueue>&)>;

    explicit LitePullConsumer(Tr transport,
                              LitePullConfig config,
                              Allocate allocate = Allocate{},
                              OffsetStore store = OffsetStore{})
        : engine_(std::make_unique<Engine>(
              std::move(transport), std::move(config), std::move(allocate), std::move(store))) {}

    LitePullConsumer(const LitePullConsumer&) = delete;
    LitePullConsumer& operator=(const LitePullConsumer&) = delete;
    LitePullConsumer(LitePullConsumer&&) = delete;
    LitePullConsumer& operator=(LitePullConsumer&&) = delete;
    /// Shuts down if still running (committing, with auto-commit, what was polled).
    ~LitePullConsumer() = default;

    /// Java's subscribe(topic, subExpression): the group shares the topic's queues (rebalance through
    /// `Allocate`). rmq::IllegalState after assign(); rmq::InvalidArgument for a bad topic or expression.
    void subscribe(std::string_view topic, std::string_view expression = "*") {
        engine_->subscribe(topic, expression, expression_type_tag);
    }

    /// Java's subscribe(topic, MessageSelector): a tag or SQL92 selector.
    void subscribe(std::string_view topic, const MessageSelector& selector) {
        engine_->subscribe(topic, selector.expression(), selector.expression_type());
    }

    /// Java's unsubscribe(topic): its queues leave at the next rebalance.
    void unsubscribe(std::string_view topic) { engine_->unsubscribe(topic); }

    /// Java's assign(queues): exactly these queues are this member's, whatever the group; replaces an earlier
    /// assignment. rmq::IllegalState after subscribe(); rmq::InvalidArgument when empty.
    void assign(const std::vector<MessageQueue>& queues) { engine_->assign(queues); }

    /// Before start(): see QueueListener.
    void set_queue_listener(QueueListener listener) { engine_->set_queue_listener(std::move(listener)); }

    /// Java's start(): validates the configuration (rmq::InvalidArgument), heartbeats and rebalances at once.
    void start() { engine_->start(); }

    /// Commits (auto-commit) what was polled, stops pulling, persists committed offsets, unregisters.
    /// Pollers waiting return empty. Idempotent.
    void shutdown() { engine_->shutdown(); }

    /// Java's poll(timeout): the next batch pulled from one queue (at most pull_batch_size messages, in
    /// offset order; batches of a queue come in order), or empty after `timeout`. With auto-commit, first
    /// commits what earlier polls returned. rmq::IllegalState before start() or after shutdown().
    [[nodiscard]] std::vector<MessageExt> poll(std::chrono::milliseconds timeout) {
        return engine_->poll(timeout);
    }

    /// poll(poll_timeout_millis).
    [[nodiscard]] std::vector<MessageExt> poll() {
        return engine_->poll(std::chrono::milliseconds(engine_->config().poll_timeout_millis));
    }

    /// Java's seek(mq, offset): the next messages of `mq` start at `offset` (within [min, max] offset of the
    /// queue, else rmq::InvalidArgument); what was pulled of it and not polled is discarded; `offset` becomes
    /// its consume and committed offset. rmq::IllegalState when `mq` is not this member's.
    void seek(const MessageQueue& mq, std::int64_t offset) { engine_->seek(mq, offset); }

    /// seek(mq, the queue's min offset).
    void seek_to_begin(const MessageQueue& mq) { engine_->seek_to_begin(mq); }

    /// seek(mq, the queue's max offset): only messages sent from now on.
    void seek_to_end(const MessageQueue& mq) { engine_->seek_to_end(mq); }

    /// Java's offsetForTimestamp: the first offset of `mq` stored at or after `timestamp` (wall ms).
    [[nodiscard]] std::int64_t offset_for_timestamp(const MessageQueue& mq, std::int64_t timestamp) {
        return engine_->offset_for_timestamp(mq, timestamp);
    }

    /// Java's committed(mq): the committed offset (memory first, then the broker or file); -1: none.
    [[nodiscard]] std::int64_t committed(const MessageQueue& mq) { return engine_->committed(mq); }

    /// Java's commitSync(): every owned queue's consume offset is committed and persisted before returning.
    void commit_sync() { engine_->commit_sync(); }

    /// Commits every owned queue's consume offset; it is persisted in the background.
    void commit_async() { engine_->commit_async(); }

    /// Java's pause(queues): they are not pulled until resume() (what was pulled can still be polled).
    void pause(const std::vector<MessageQueue>& queues) { engine_->pause(queues); }

    /// Java's resume(queues): pulled again (within pull_time_delay_mills_when_pause).
    void resume(const std::vector<MessageQueue>& queues) { engine_->resume(queues); }

    [[nodiscard]] bool is_paused(const MessageQueue& mq) const { return engine_->is_paused(mq); }

    /// Java's assignment(): the queues this member owns now.
    [[nodiscard]] std::vector<MessageQueue> assignment() const { return engine_->assignment(); }

    /// Java's registerTopicMessageQueueChangeListener(topic, listener): every
    /// topic_metadata_check_interval_millis while running, the topic's readable queues are compared with
    /// those seen last (at start(), or at this call when running) and `listener` gets them when they differ,
    /// on the event loop (keep it short; an assign() from it is fine). A second listener for a topic replaces
    /// the first. rmq::InvalidArgument for an empty topic or listener.
    void register_topic_message_queue_change_listener(std::string_view topic,
                                                      const TopicQueueListener& listener) {
        engine_->watch_topic(topic, listener);
    }

    /// Java's fetchMessageQueues(topic): the topic's readable queues (for assign()).
    [[nodiscard]] std::vector<MessageQueue> fetch_message_queues(std::string_view topic) {
        return engine_->fetch_message_queues(topic);
    }

    [[nodiscard]] bool running() const noexcept { return engine_->running(); }

    [[nodiscard]] const std::string& client_id() const noexcept { return engine_->core().client_id(); }

    /// Pull counters per topic and the state of each owned queue (cached = pulled, not yet polled).
    [[nodiscard]] ConsumerStats stats() const { return engine_->core().stats(); }

    /// The offset store.
    [[nodiscard]] OffsetStore& offset_store() noexcept { return engine_->core().offset_store(); }

    [[nodiscard]] const LitePullConfig& config() const noexcept { return engine_->config(); }

private:
    std::unique_ptr<Engine> engine_;
};

}  // namespace rmq
