#pragma once

/// @file detail/lite_pull/impl/lifecycle.hpp
/// LitePullEngine: construction, subscribe / assign (mutually exclusive, as in Java), start, shutdown.

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/subscription.hpp>

#include <rmq/detail/lite_pull/engine.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

template <class Allocate, class OffsetStore, class Tr>
LitePullEngine<Allocate, OffsetStore, Tr>::LitePullEngine(Tr transport,
                                                          LitePullConfig config,
                                                          Allocate allocate,
                                                          OffsetStore store)
    : config_(std::move(config))
    , core_(std::make_unique<Core>(std::move(transport),
                                   config_.to_consumer_config(),
                                   AssignOr<Allocate>(std::move(allocate), assignment_),
                                   std::move(store))) {}

template <class Allocate, class OffsetStore, class Tr>
LitePullEngine<Allocate, OffsetStore, Tr>::~LitePullEngine() {
    try {
        shutdown();
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "lite pull consumer destroyed without a clean shutdown: {}", e.what());
    }
}

template <class Allocate, class OffsetStore, class Tr>
PollBuffer& LitePullEngine<Allocate, OffsetStore, Tr>::buffer() const noexcept {
    return CoreAccess::service(*core_).buffer();
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::set_mode(Mode mode) {
    if (mode_ != Mode::None && mode_ != mode) {
        throw IllegalState(
            fmt::format("group [{}]: subscribe and assign are mutually exclusive (this consumer "
                        "already uses {})",
                        config_.consumer_group,
                        mode_ == Mode::Assign ? "assign()" : "subscribe()"));
    }
    mode_ = mode;
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::check_running(std::string_view what) const {
    if (!running()) {
        throw IllegalState(
            fmt::format("{}() on a lite pull consumer that is {}: call start() first",
                        what,
                        core_->state() == Core::State::CreateJust ? "not started" : "shut down"));
    }
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::subscribe(std::string_view topic,
                                                          std::string_view expression,
                                                          std::string_view type) {
    const std::lock_guard lock(user_mutex_);
    set_mode(Mode::Subscribe);
    core_->subscribe(topic, expression, type);
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::unsubscribe(std::string_view topic) {
    const std::lock_guard lock(user_mutex_);
    core_->unsubscribe(topic);
}

/// Java's assign(): these queues are this member's, whatever the group; each topic is subscribed with "*"
/// so its queues are pulled, and a topic no longer assigned leaves. Replaces any earlier assignment.
template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::assign(const std::vector<MessageQueue>& mqs) {
    if (mqs.empty()) {
        throw InvalidArgument("assign(): message queues can not be empty");
    }
    const std::lock_guard lock(user_mutex_);
    set_mode(Mode::Assign);
    assignment_->set(mqs);
    std::set<std::string> topics;
    for (const auto& mq : mqs) {
        topics.insert(mq.topic);
    }
    for (const auto& old : assigned_topics_) {
        if (!topics.contains(old)) {
            core_->unsubscribe(old);
        }
    }
    for (const auto& topic : topics) {
        if (std::find(assigned_topics_.begin(), assigned_topics_.end(), topic) == assigned_topics_.end()) {
            core_->subscribe(topic, sub_all, expression_type_tag);
        }
    }
    assigned_topics_.assign(topics.begin(), topics.end());
    if (running()) {
        auto& rebalancer = CoreAccess::rebalancer(*core_);
        CoreAccess::state(*core_).scheduler.post([&rebalancer] { rebalancer.do_rebalance(); });
    }
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::set_queue_listener(QueueListener listener) {
    if (core_->state() != Core::State::CreateJust) {
        throw IllegalState("set_queue_listener() must be called before start()");
    }
    listener_ = std::move(listener);
}

template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::start() {
    const std::lock_guard lock(user_mutex_);
    config_.validate();
    PollBuffer::Commit commit_on_leave;
    if (config_.auto_commit) {
        auto& committer = CoreAccess::committer(*core_);
        commit_on_leave = [&committer](const MessageQueue& mq, std::int64_t offset) {
            committer.commit(mq, offset, false);
        };
    }
    buffer().configure(
        PollBuffer::Limits{.pull_batch_size = config_.pull_batch_size,
                           .pull_threshold_for_all = config_.pull_threshold_for_all,
                           .pause_delay_millis = config_.pull_time_delay_mills_when_pause,
                           .flow_control_delay_millis = config_.pull_time_delay_mills_when_flow_control},
        listener_,
        std::move(commit_on_leave));
    core_->start();
    start_topic_watch();
}

/// Java's shutdown: with auto-commit, what was polled is committed; the core then stops pulling, persists
/// the committed offsets and unregisters. Pollers waiting wake up with nothing. Idempotent.
template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::shutdown() {
    if (running() && config_.auto_commit) {
        commit_polled();
    }
    core_->shutdown();
}

template <class Allocate, class OffsetStore, class Tr>
std::vector<MessageQueue>
LitePullEngine<Allocate, OffsetStore, Tr>::fetch_message_queues(std::string_view topic) {
    check_running("fetch_message_queues");
    auto mqs = CoreAccess::state(*core_).transport.topic_route(std::string(topic)).read_queues;
    std::sort(mqs.begin(), mqs.end());
    return mqs;
}

}  // namespace rmq::detail
