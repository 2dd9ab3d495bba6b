#pragma once

/// @file detail/offset_store/impl/offset_table.ipp
/// Definitions of detail/offset_store/offset_table.hpp.

#include <rmq/detail/offset_store/offset_table.hpp>

namespace rmq::detail {

RMQ_DECL void OffsetTable::update(const MessageQueue& mq, std::int64_t offset, bool increase_only) {
    {
        const std::shared_lock lock(mutex_);
        if (auto it = table_.find(mq); it != table_.end()) {
            apply(it->second, offset, increase_only);
            return;
        }
    }
    const std::unique_lock lock(mutex_);
    auto [it, inserted] = table_.try_emplace(mq, offset);
    if (!inserted) {
        apply(it->second, offset, increase_only);  // another thread created it meanwhile
    }
}

RMQ_DECL void OffsetTable::update_and_freeze(const MessageQueue& mq, std::int64_t offset) {
    const std::unique_lock lock(mutex_);
    auto [it, inserted] = table_.try_emplace(mq, offset);
    it->second.value.store(offset, std::memory_order_relaxed);
    it->second.frozen = true;
}

RMQ_DECL std::map<MessageQueue, std::int64_t> OffsetTable::snapshot(std::string_view topic) const {
    std::map<MessageQueue, std::int64_t> out;
    const std::shared_lock lock(mutex_);
    for (const auto& [mq, entry] : table_) {
        if (topic.empty() || mq.topic == topic) {
            out.emplace(mq, entry.value.load(std::memory_order_relaxed));
        }
    }
    return out;
}

RMQ_DECL void OffsetTable::remove_all(std::span<const MessageQueue> mqs) {
    if (mqs.empty()) {
        return;
    }
    const std::unique_lock lock(mutex_);
    for (const auto& mq : mqs) {
        table_.erase(mq);
    }
}

}  // namespace rmq::detail
