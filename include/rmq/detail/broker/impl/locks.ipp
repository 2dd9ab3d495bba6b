#pragma once

#include <algorithm>

#include <rmq/detail/broker/locks.hpp>

namespace rmq::detail {

RMQ_DECL std::vector<MessageQueue> QueueLocks::lock_batch(const std::string& group,
                                                          const std::string& client_id,
                                                          const std::vector<MessageQueue>& mqs,
                                                          std::int64_t now) {
    ++requests_[group];
    auto& table = locks_[group];
    std::vector<MessageQueue> granted;
    for (const auto& mq : mqs) {
        if (std::find(granted.begin(), granted.end(), mq) != granted.end()) {
            continue;
        }
        auto [it, inserted] = table.try_emplace(mq, Entry{client_id, now});
        Entry& e = it->second;
        const bool is_expired = expired(e, now);
        if (e.client_id == client_id && !is_expired) {
            e.last_update = now;
            granted.push_back(mq);
        } else if (is_expired) {
            e.client_id = client_id;
            e.last_update = now;
            granted.push_back(mq);
        }
    }
    return granted;
}

RMQ_DECL void QueueLocks::unlock_batch(const std::string& group,
                                       const std::string& client_id,
                                       const std::vector<MessageQueue>& mqs) {
    const auto it = locks_.find(group);
    if (it == locks_.end()) {
        return;
    }
    for (const auto& mq : mqs) {
        if (const auto e = it->second.find(mq); e != it->second.end() && e->second.client_id == client_id) {
            it->second.erase(e);
        }
    }
}

RMQ_DECL std::optional<std::string>
QueueLocks::owner(const std::string& group, const MessageQueue& mq, std::int64_t now) const {
    const auto it = locks_.find(group);
    if (it == locks_.end()) {
        return std::nullopt;
    }
    const auto e = it->second.find(mq);
    if (e == it->second.end() || expired(e->second, now)) {
        return std::nullopt;
    }
    return e->second.client_id;
}

RMQ_DECL std::uint64_t QueueLocks::requests(const std::string& group) const {
    const auto it = requests_.find(group);
    return it == requests_.end() ? 0 : it->second;
}

}  // namespace rmq::detail
