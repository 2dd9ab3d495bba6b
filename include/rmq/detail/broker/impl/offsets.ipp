#pragma once

#include <rmq/detail/broker/offsets.hpp>

namespace rmq::detail {

RMQ_DECL std::optional<std::int64_t> ConsumerOffsets::find(const std::string& group,
                                                           const MessageQueue& mq) const {
    if (const auto it = offsets_.find(key(group, mq)); it != offsets_.end()) {
        return it->second;
    }
    return std::nullopt;
}

RMQ_DECL void ConsumerOffsets::store(const std::string& group, const MessageQueue& mq, std::int64_t offset) {
    offsets_[key(group, mq)] = offset;
}

}  // namespace rmq::detail
