#pragma once

/// @file impl/producer_routes.hpp
/// rmq::Producer's write queues of a topic (Java's tryToFindTopicPublishInfo), cached for
/// poll_name_server_interval and shared by the sends that read them.

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>

namespace rmq {

/// tryToFindTopicPublishInfo: the topic's route, else the create-topic-key route renamed to the topic
/// with at most default_topic_queue_nums queues (the broker then auto-creates the topic).
template <Transport Tr>
auto Producer<Tr>::write_queues(const std::string& topic) -> QueueList {
    if (auto cached = cached_queues(topic)) {
        return cached;
    }
    std::vector<MessageQueue> queues;
    try {
        queues = transport_.topic_route(topic).write_queues;
    } catch (const BrokerError& e) {
        if (e.code() != response_code::topic_not_exist) {
            throw;
        }
    }
    if (!queues.empty()) {
        auto list = std::make_shared<const std::vector<MessageQueue>>(std::move(queues));
        const std::lock_guard lock(mutex_);
        routes_[topic] = CachedRoute{list, now()};
        return list;
    }
    try {
        auto fallback = transport_.topic_route(config_.create_topic_key).write_queues;
        const auto n = std::min<std::size_t>(fallback.size(),
                                             static_cast<std::size_t>(config_.default_topic_queue_nums));
        for (std::size_t i = 0; i < n; ++i) {
            queues.push_back(MessageQueue{topic, fallback[i].broker_name, fallback[i].queue_id});
        }
    } catch (const BrokerError&) {  // NOLINT(bugprone-empty-catch): reported below
    }
    if (queues.empty()) {
        throw BrokerError(response_code::topic_not_exist,
                          fmt::format("No route info of this topic: {}", topic));
    }
    return std::make_shared<const std::vector<MessageQueue>>(std::move(queues));
}

/// The topic's write queues when a fresh route is cached (nothing to ask the NameServer), else null.
template <Transport Tr>
auto Producer<Tr>::cached_queues(const std::string& topic) const -> QueueList {
    const std::lock_guard lock(mutex_);
    if (const auto it = routes_.find(topic);
        it != routes_.end() && now() - it->second.fetched_at < config_.poll_name_server_interval) {
        return it->second.queues;
    }
    return nullptr;
}

}  // namespace rmq
