#pragma once

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>

#include <rmq/detail/broker/membership.hpp>

namespace rmq::detail {

RMQ_DECL std::uint64_t Membership::register_handle(std::shared_ptr<NotificationSlot> slot) {
    const std::uint64_t id = ++next_handle_id_;
    handles_.emplace(id, std::move(slot));
    return id;
}

RMQ_DECL void Membership::close_handle(std::uint64_t handle_id, BrokerTasks& out) {
    handles_.erase(handle_id);
    remove_channels([&](const Channel& ch) { return ch.handle_id == handle_id; }, out);
}

RMQ_DECL std::vector<std::shared_ptr<NotificationSlot>> Membership::slots() const {
    std::vector<std::shared_ptr<NotificationSlot>> out;
    for (const auto& [id, weak] : handles_) {
        if (auto slot = weak.lock()) {
            out.push_back(std::move(slot));
        }
    }
    return out;
}

RMQ_DECL void Membership::register_consumer(const std::string& client_id,
                                            const ConsumerData& data,
                                            std::uint64_t handle_id,
                                            std::int64_t now,
                                            BrokerTasks& out) {
    auto& group = groups_[data.group_name];
    group.consume_type = data.consume_type;
    group.message_model = data.message_model;
    group.consume_from_where = data.consume_from_where;
    auto [it, inserted] = group.channels.try_emplace(client_id);
    bool updated = inserted;
    it->second.client_id = client_id;
    it->second.handle_id = handle_id;
    it->second.last_update = now;
    it->second.data = data;
    if (update_subscriptions(group, data)) {
        updated = true;
    }
    if (updated) {
        notify_change(data.group_name, group, out);
    }
}

RMQ_DECL bool Membership::update_subscriptions(GroupInfo& group, const ConsumerData& data) {
    // One SubscriptionData per topic: a new topic is added, the newest subVersion wins, topics this heartbeat
    // does not carry are removed.
    bool changed = false;
    std::set<std::string> carried;
    for (const auto& sub : data.subscription_data_set) {
        carried.insert(sub.topic);
        const auto old = group.subscriptions.find(sub.topic);
        if (old == group.subscriptions.end()) {
            group.subscriptions.emplace(sub.topic, sub);
            changed = true;
        } else if (sub.sub_version > old->second.sub_version) {
            old->second = sub;
        }
    }
    if (std::erase_if(group.subscriptions, [&](const auto& e) { return !carried.contains(e.first); }) > 0) {
        changed = true;
    }
    return changed;
}

RMQ_DECL void
Membership::unregister(const std::string& client_id, const std::string& group, BrokerTasks& out) {
    const auto git = groups_.find(group);
    if (git == groups_.end()) {
        return;
    }
    git->second.channels.erase(client_id);
    notify_change(group, git->second, out);
    if (git->second.channels.empty()) {
        groups_.erase(git);
    }
}

RMQ_DECL void Membership::expire(std::int64_t now, BrokerTasks& out) {
    remove_channels([&](const Channel& ch) { return now - ch.last_update > expiry_millis_; }, out);
}

RMQ_DECL void Membership::remove_channels(const std::function<bool(const Channel&)>& leaves,
                                          BrokerTasks& out) {
    for (auto git = groups_.begin(); git != groups_.end();) {
        const auto removed =
            std::erase_if(git->second.channels, [&](const auto& e) { return leaves(e.second); });
        if (removed > 0) {
            notify_change(git->first, git->second, out);
        }
        git = git->second.channels.empty() && removed > 0 ? groups_.erase(git) : std::next(git);
    }
}

RMQ_DECL std::optional<std::int64_t> Membership::next_expiry() const {
    std::optional<std::int64_t> next;
    for (const auto& [name, g] : groups_) {
        for (const auto& [id, ch] : g.channels) {
            const std::int64_t t = ch.last_update + expiry_millis_ + 1;
            next = next ? std::min(*next, t) : t;
        }
    }
    return next;
}

RMQ_DECL std::vector<std::string> Membership::consumer_ids(const std::string& group) const {
    const auto it = groups_.find(group);
    if (it == groups_.end() || it->second.channels.empty()) {
        throw BrokerError(response_code::system_error, fmt::format("no consumer for this group, {}", group));
    }
    std::vector<std::string> ids;
    for (const auto& [id, ch] : it->second.channels) {
        ids.push_back(id);
    }
    return ids;
}

RMQ_DECL std::vector<GroupMember> Membership::members(const std::string& group) const {
    std::vector<GroupMember> out;
    if (const auto it = groups_.find(group); it != groups_.end()) {
        for (const auto& [id, ch] : it->second.channels) {
            out.push_back(GroupMember{id, ch.data, ch.last_update});
        }
    }
    return out;
}

RMQ_DECL const SubscriptionData* Membership::find_subscription(const std::string& group,
                                                               const std::string& topic) const {
    const auto it = groups_.find(group);
    if (it == groups_.end()) {
        return nullptr;
    }
    const auto s = it->second.subscriptions.find(topic);
    return s == it->second.subscriptions.end() ? nullptr : &s->second;
}

RMQ_DECL void
Membership::notify_change(const std::string& group_name, const GroupInfo& group, BrokerTasks& out) const {
    if (!notify_) {
        return;
    }
    for (const auto& [id, ch] : group.channels) {
        const auto h = handles_.find(ch.handle_id);
        if (h == handles_.end()) {
            continue;
        }
        if (auto slot = h->second.lock()) {
            out.push_back([slot, group_name] {
                NotificationHandler handler;
                {
                    const std::lock_guard lock(slot->mutex);
                    handler = slot->handler;
                }
                if (handler) {
                    handler(ConsumerIdsChanged{group_name});
                }
            });
        }
    }
}

}  // namespace rmq::detail
