#pragma once

/// @file offset_store/impl/remote.ipp
/// Definitions of offset_store/remote.hpp.

#include <rmq/offset_store/remote.hpp>

// Only the definitions need these.
#include <exception>
#include <vector>

namespace rmq {

RMQ_DECL std::int64_t RemoteOffsetStore::read_offset(const MessageQueue& mq, ReadOffsetType type) {
    if (type != ReadOffsetType::ReadFromStore) {
        if (auto v = table_.get(mq)) {
            return *v;
        }
        if (type == ReadOffsetType::ReadFromMemory) {
            return -1;
        }
    }
    if (!ctx_.query_broker) {
        return -2;  // not started: no way to reach the broker
    }
    try {
        const std::optional<std::int64_t> offset = ctx_.query_broker(mq);
        if (!offset) {
            return -1;
        }
        table_.update(mq, *offset, false);
        return *offset;
    } catch (const BrokerError& e) {
        return e.code() == response_code::query_not_found ? -1 : -2;
    } catch (const std::exception&) {
        return -2;
    }
}

RMQ_DECL void RemoteOffsetStore::persist_all(std::span<const MessageQueue> mqs) {
    if (mqs.empty()) {
        return;
    }
    std::vector<MessageQueue> unused;
    for (const auto& [mq, offset] : table_.snapshot()) {
        if (detail::contains_queue(mqs, mq)) {
            send(mq, offset);
        } else {
            unused.push_back(mq);
        }
    }
    table_.remove_all(unused);
}

RMQ_DECL void RemoteOffsetStore::send(const MessageQueue& mq, std::int64_t offset) const {
    if (!ctx_.update_broker) {
        return;
    }
    try {
        ctx_.update_broker(mq, offset);
    } catch (const std::exception& e) {
        if (on_persist_error) {
            on_persist_error(mq, e.what());
        }
    }
}

}  // namespace rmq
