#pragma once

/// @file detail/lite_pull/impl/topic_watch.hpp
/// LitePullEngine: Java's registerTopicMessageQueueChangeListener and fetchTopicMessageQueuesAndCompare. The
/// queues come from the transport's route view (refreshed from the NameServer every
/// poll_name_server_interval).

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <rmq/error.hpp>

#include <rmq/detail/lite_pull/engine.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

/// Java: the queues are fetched at once when running (else at start()), without calling the listener.
template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::watch_topic(std::string_view topic,
                                                            const TopicQueueListener& listener) {
    if (topic.empty() || !listener) {
        throw InvalidArgument(
            "register_topic_message_queue_change_listener: the topic and the listener are required");
    }
    const std::string name(topic);
    {
        const std::lock_guard lock(watch_mutex_);
        if (watched_.contains(name)) {
            log_line(LogLevel::Warn, "topic {}: a new queue change listener replaces the old one", name);
        }
        watched_[name].listener = listener;
    }
    if (running()) {
        remember_queues(name);
    }
}

/// Java's operateAfterRunning (the watched topics' queues) and startScheduleTask: the first check after 10 s,
/// or after one interval when that is shorter (Java waits 10 s whatever the interval).
template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::start_topic_watch() {
    std::vector<std::string> topics;
    {
        const std::lock_guard lock(watch_mutex_);
        for (const auto& [topic, watched] : watched_) {
            topics.push_back(topic);
        }
    }
    for (const auto& topic : topics) {
        remember_queues(topic);
    }
    const std::int64_t period = config_.topic_metadata_check_interval_millis;
    CoreAccess::state(*core_).scheduler.every(
        std::min<std::int64_t>(10000, period), period, [this] { check_watched_topics(); });
}

/// The topic's queues now become the ones seen last; a failed fetch keeps the earlier ones (logged).
template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::remember_queues(const std::string& topic) {
    try {
        auto queues = fetch_message_queues(topic);
        const std::lock_guard lock(watch_mutex_);
        watched_[topic].queues = std::move(queues);
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn,
                 "topic {}: fetching its queues for the change listener failed: {}",
                 topic,
                 e.what());
    }
}

/// Java's fetchTopicMessageQueuesAndCompare, on the event loop: each watched topic whose queues differ from
/// the last seen gets its listener called (outside the lock, so it may register again). Unlike Java, a
/// failed fetch skips only its own topic.
template <class Allocate, class OffsetStore, class Tr>
void LitePullEngine<Allocate, OffsetStore, Tr>::check_watched_topics() {
    std::vector<std::pair<std::string, TopicQueueListener>> topics;
    {
        const std::lock_guard lock(watch_mutex_);
        for (const auto& [topic, watched] : watched_) {
            topics.emplace_back(topic, watched.listener);
        }
    }
    for (const auto& [topic, listener] : topics) {
        std::vector<MessageQueue> now;
        try {
            now = fetch_message_queues(topic);
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn,
                     "topic {}: fetching its queues for the change listener failed: {}",
                     topic,
                     e.what());
            continue;
        }
        {
            const std::lock_guard lock(watch_mutex_);
            auto& watched = watched_[topic];
            if (watched.queues == now) {
                continue;
            }
            watched.queues = now;
        }
        try {
            listener(topic, now);
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn, "topic {}: the queue change listener threw: {}", topic, e.what());
        }
    }
}

}  // namespace rmq::detail
