#pragma once

#include <algorithm>

#include <rmq/remoting/bodies/heartbeat_data.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/remoting_transport/heartbeat_registry.hpp>

namespace rmq::detail {

RMQ_DECL void HeartbeatRegistry::remember(const HeartbeatData& hb) {
    const std::lock_guard lock(mutex_);
    auto& stored = heartbeats_[hb.client_id];
    stored.client_id = hb.client_id;
    for (const auto& cd : hb.consumer_data_set) {
        auto it = std::find_if(stored.consumer_data_set.begin(),
                               stored.consumer_data_set.end(),
                               [&](const ConsumerData& c) { return c.group_name == cd.group_name; });
        if (it == stored.consumer_data_set.end()) {
            stored.consumer_data_set.push_back(cd);
        } else {
            *it = cd;
        }
    }
    for (const auto& g : hb.producer_groups) {
        if (std::find(stored.producer_groups.begin(), stored.producer_groups.end(), g) ==
            stored.producer_groups.end()) {
            stored.producer_groups.push_back(g);
        }
    }
}

RMQ_DECL void HeartbeatRegistry::forget(const std::string& client_id,
                                        const std::string& producer_group,
                                        const std::string& consumer_group) {
    const std::lock_guard lock(mutex_);
    const auto it = heartbeats_.find(client_id);
    if (it == heartbeats_.end()) {
        return;
    }
    auto& hb = it->second;
    std::erase_if(hb.consumer_data_set,
                  [&](const ConsumerData& c) { return c.group_name == consumer_group; });
    std::erase(hb.producer_groups, producer_group);
    if (hb.consumer_data_set.empty() && hb.producer_groups.empty()) {
        heartbeats_.erase(it);
    }
}

RMQ_DECL std::vector<remoting::Command> HeartbeatRegistry::commands() const {
    std::vector<remoting::Command> out;
    const std::lock_guard lock(mutex_);
    for (const auto& [id, hb] : heartbeats_) {
        remoting::Command c;
        c.code = remoting::request_code::heart_beat;
        c.body = remoting::encode_heartbeat_data(hb);
        out.push_back(std::move(c));
    }
    return out;
}

RMQ_DECL std::optional<std::string> HeartbeatRegistry::first_producer_group() const {
    const std::lock_guard lock(mutex_);
    for (const auto& [id, hb] : heartbeats_) {
        if (!hb.producer_groups.empty()) {
            return hb.producer_groups.front();
        }
    }
    return std::nullopt;
}

RMQ_DECL bool HeartbeatRegistry::has_consumers() const {
    const std::lock_guard lock(mutex_);
    return std::any_of(heartbeats_.begin(), heartbeats_.end(), [](const auto& e) {
        return !e.second.consumer_data_set.empty();
    });
}

RMQ_DECL std::optional<ConsumerData> HeartbeatRegistry::consumer(const std::string& group) const {
    const std::lock_guard lock(mutex_);
    for (const auto& [id, hb] : heartbeats_) {
        for (const auto& cd : hb.consumer_data_set) {
            if (cd.group_name == group) {
                return cd;
            }
        }
    }
    return std::nullopt;
}

}  // namespace rmq::detail
