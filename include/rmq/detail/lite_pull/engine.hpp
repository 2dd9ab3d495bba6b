#pragma once

/// @file detail/lite_pull/engine.hpp
/// rmq::detail::LitePullEngine: Java's DefaultLitePullConsumerImpl over the push consumer's core. The core
/// (detail/consumer/core.hpp) with the LitePullOrder policy rebalances, pulls, flow-controls and keeps the
/// offset store; the engine adds what an application drives: subscribe or assign, poll, seek, commit,
/// pause. One file per operation in impl/: lifecycle (construction, subscribe, assign, start, shutdown),
/// poll, seek, commit (commits, committed, offset_for_timestamp), topic_watch (topic queue change listeners).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/lite_pull_config.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/consumer/core.hpp>
#include <rmq/detail/lite_pull/assign.hpp>
#include <rmq/detail/lite_pull/core_access.hpp>
#include <rmq/detail/lite_pull/order.hpp>
#include <rmq/detail/lite_pull/poll_buffer.hpp>

namespace rmq::detail {

template <class Allocate, class OffsetStore, class Tr>
class LitePullEngine {
public:
    using Core = ConsumerCore<LitePullOrder, AssignOr<Allocate>, OffsetStore, Tr>;
    using QueueListener = PollBuffer::QueueListener;

    LitePullEngine(Tr transport, LitePullConfig config, Allocate allocate, OffsetStore store);
    LitePullEngine(const LitePullEngine&) = delete;
    LitePullEngine& operator=(const LitePullEngine&) = delete;
    ~LitePullEngine();

    // impl/lifecycle.hpp
    void subscribe(std::string_view topic, std::string_view expression, std::string_view type);
    void unsubscribe(std::string_view topic);
    void assign(const std::vector<MessageQueue>& mqs);
    void set_queue_listener(QueueListener listener);
    void start();
    void shutdown();

    [[nodiscard]] bool running() const noexcept { return core_->state() == Core::State::Running; }

    [[nodiscard]] std::vector<MessageQueue> assignment() const { return buffer().owned_queues(); }

    [[nodiscard]] std::vector<MessageQueue> fetch_message_queues(std::string_view topic);

    // impl/topic_watch.hpp
    using TopicQueueListener =
        std::function<void(const std::string& topic, const std::vector<MessageQueue>&)>;
    void watch_topic(std::string_view topic, const TopicQueueListener& listener);

    void pause(const std::vector<MessageQueue>& mqs) { buffer().pause(mqs); }

    void resume(const std::vector<MessageQueue>& mqs) { buffer().resume(mqs); }

    [[nodiscard]] bool is_paused(const MessageQueue& mq) const { return buffer().paused(mq); }

    // impl/poll.hpp
    [[nodiscard]] std::vector<MessageExt> poll(std::chrono::milliseconds timeout);

    // impl/seek.hpp
    void seek(const MessageQueue& mq, std::int64_t offset);
    void seek_to_begin(const MessageQueue& mq);
    void seek_to_end(const MessageQueue& mq);

    // impl/commit.hpp
    void commit_sync();
    void commit_async();
    [[nodiscard]] std::int64_t committed(const MessageQueue& mq);
    [[nodiscard]] std::int64_t offset_for_timestamp(const MessageQueue& mq, std::int64_t timestamp);

    [[nodiscard]] const LitePullConfig& config() const noexcept { return config_; }

    [[nodiscard]] Core& core() noexcept { return *core_; }

    [[nodiscard]] const Core& core() const noexcept { return *core_; }

private:
    enum class Mode { None, Subscribe, Assign };

    // impl/lifecycle.hpp
    void set_mode(Mode mode);
    void check_running(std::string_view what) const;
    [[nodiscard]] PollBuffer& buffer() const noexcept;
    // impl/seek.hpp
    void on_loop(const std::function<void()>& fn);
    void restart_queue(const MessageQueue& mq, std::int64_t offset);
    // impl/commit.hpp
    void commit_polled();
    // impl/topic_watch.hpp
    void start_topic_watch();
    void check_watched_topics();
    void remember_queues(const std::string& topic);

    struct WatchedTopic {
        TopicQueueListener listener;
        std::optional<std::vector<MessageQueue>> queues;  ///< last seen (sorted); none before the first fetch
    };

    LitePullConfig config_;
    std::shared_ptr<Assignment> assignment_ = std::make_shared<Assignment>();
    std::unique_ptr<Core> core_;
    QueueListener listener_;
    Mode mode_ = Mode::None;
    std::vector<std::string> assigned_topics_;
    // Java's synchronized poll / seek / commit: one application call at a time (a poll waits outside it).
    std::mutex user_mutex_;
    std::mutex watch_mutex_;
    std::map<std::string, WatchedTopic> watched_;  // guarded by watch_mutex_
};

}  // namespace rmq::detail

#include <rmq/detail/lite_pull/impl/commit.hpp>
#include <rmq/detail/lite_pull/impl/lifecycle.hpp>
#include <rmq/detail/lite_pull/impl/poll.hpp>
#include <rmq/detail/lite_pull/impl/seek.hpp>
#include <rmq/detail/lite_pull/impl/topic_watch.hpp>
