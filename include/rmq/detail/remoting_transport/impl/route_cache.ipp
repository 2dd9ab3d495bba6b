#pragma once

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/error.hpp>

#include <rmq/detail/remoting_transport/route_cache.hpp>

namespace rmq::detail {

RMQ_DECL std::optional<remoting::TopicRouteData> RouteCache::find(const std::string& topic) const {
    const std::lock_guard lock(mutex_);
    if (const auto it = routes_.find(topic); it != routes_.end()) {
        return it->second;
    }
    return std::nullopt;
}

RMQ_DECL bool RouteCache::contains(const std::string& topic) const {
    const std::lock_guard lock(mutex_);
    return routes_.contains(topic);
}

RMQ_DECL std::vector<std::string> RouteCache::store(const std::string& topic,
                                                    const remoting::TopicRouteData& data) {
    std::vector<std::string> fresh;
    const std::lock_guard lock(mutex_);
    routes_[topic] = data;
    for (const auto& bd : data.broker_datas) {
        auto& ids = brokers_[bd.broker_name];
        std::map<std::int64_t, std::string> now;
        for (const auto& [id, addr] : bd.broker_addrs) {
            now[id] = addr;
            bool seen = false;
            for (const auto& [i2, a2] : ids) {
                seen = seen || a2 == addr;
            }
            if (!seen) {
                fresh.push_back(addr);
            }
        }
        if (!now.empty()) {
            ids = std::move(now);
        }
    }
    return fresh;
}

RMQ_DECL void RouteCache::erase(const std::string& topic) {
    const std::lock_guard lock(mutex_);
    routes_.erase(topic);
}

RMQ_DECL std::vector<std::string> RouteCache::topics() const {
    std::vector<std::string> out;
    const std::lock_guard lock(mutex_);
    out.reserve(routes_.size());
    for (const auto& [t, r] : routes_) {
        out.push_back(t);
    }
    return out;
}

RMQ_DECL std::optional<std::string> RouteCache::master_address(const std::string& broker_name) const {
    const std::lock_guard lock(mutex_);
    return pick_address(broker_name, 0, true);
}

RMQ_DECL std::string RouteCache::require_master(const std::string& broker_name) const {
    if (auto a = master_address(broker_name)) {
        return *a;
    }
    throw Error(fmt::format("The broker[{}] not exist (no master address in any known route)", broker_name));
}

RMQ_DECL std::vector<std::string> RouteCache::brokers_of(const std::string& topic) const {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    const auto route = routes_.find(topic);  // gone only if invalidated meanwhile
    if (route == routes_.end()) {
        return out;
    }
    for (const auto& bd : route->second.broker_datas) {
        if (auto a = pick_address(bd.broker_name, 0, false)) {
            out.push_back(std::move(*a));
        }
    }
    return out;
}

RMQ_DECL std::pair<std::string, std::int64_t> RouteCache::pull_address(const std::string& broker_name,
                                                                       std::int64_t id) const {
    const std::lock_guard lock(mutex_);
    const auto it = brokers_.find(broker_name);
    if (it == brokers_.end() || it->second.empty()) {
        throw Error(fmt::format("The broker[{}] not exist (no address in any known route)", broker_name));
    }
    if (auto a = it->second.find(id); a != it->second.end()) {
        return {a->second, id};
    }
    if (auto a = it->second.find(0); a != it->second.end()) {
        return {a->second, 0};
    }
    return {it->second.begin()->second, it->second.begin()->first};
}

RMQ_DECL std::vector<std::string> RouteCache::broker_addresses(bool masters_only) const {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [name, ids] : brokers_) {
        for (const auto& [id, addr] : ids) {
            if (!masters_only || id == 0) {
                out.push_back(addr);
            }
        }
    }
    return out;
}

RMQ_DECL bool RouteCache::is_broker_address(const std::string& addr) const {
    const std::lock_guard lock(mutex_);
    for (const auto& [name, ids] : brokers_) {
        for (const auto& [id, a] : ids) {
            if (a == addr) {
                return true;
            }
        }
    }
    return false;
}

RMQ_DECL std::int64_t RouteCache::suggested_broker(const MessageQueue& mq) const {
    const std::lock_guard lock(mutex_);
    const auto it = suggested_.find(mq);
    return it == suggested_.end() ? 0 : it->second;
}

RMQ_DECL void RouteCache::suggest_broker(const MessageQueue& mq, std::int64_t broker_id) {
    const std::lock_guard lock(mutex_);
    suggested_[mq] = broker_id;
}

RMQ_DECL std::optional<std::string>
RouteCache::pick_address(const std::string& broker_name, std::int64_t id, bool exact) const {
    const auto it = brokers_.find(broker_name);
    if (it == brokers_.end() || it->second.empty()) {
        return std::nullopt;
    }
    if (auto a = it->second.find(id); a != it->second.end()) {
        return a->second;
    }
    if (exact) {
        return std::nullopt;
    }
    return it->second.begin()->second;
}

}  // namespace rmq::detail
