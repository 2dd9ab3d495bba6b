#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

#include <rmq/detail/broker/pop_order.hpp>

namespace rmq::detail {

namespace pop_order {

inline bool acked(const PopOrderBatch& b, std::size_t i) {
    return (b.committed & (std::uint64_t{1} << i)) != 0;
}

inline std::int64_t visible_at(const PopOrderBatch& b, std::int64_t offset) {
    const auto it = b.visible_at_of.find(offset);
    return it == b.visible_at_of.end() ? b.visible_at : it->second;
}

}  // namespace pop_order

RMQ_DECL bool PopOrderBatch::blocks(std::int64_t now) const {
    const auto until = blocked_until();
    return until && now < *until;
}

RMQ_DECL std::optional<std::int64_t> PopOrderBatch::blocked_until() const {
    // needBlock looks at the messages in order: the first not acked that is still invisible blocks; the
    // block ends when the latest of them becomes visible.
    std::optional<std::int64_t> until;
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        if (!pop_order::acked(*this, i)) {
            const auto t = pop_order::visible_at(*this, offsets[i]);
            until = until ? std::max(*until, t) : t;
        }
    }
    return until;
}

RMQ_DECL std::int64_t PopOrderBatch::next_offset() const {
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        if (!pop_order::acked(*this, i)) {
            return offsets[i];
        }
    }
    return offsets.back() + 1;
}

RMQ_DECL bool PopOrderBatches::blocked(const Key& key, std::int64_t now) const {
    const auto it = batches_.find(key);
    return it != batches_.end() && it->second.blocks(now);
}

RMQ_DECL std::map<std::int64_t, std::int32_t> PopOrderBatches::update(const Key& key,
                                                                      std::int64_t pop_time,
                                                                      std::int64_t visible_at,
                                                                      std::vector<std::int64_t> offsets) {
    PopOrderBatch next;
    next.pop_time = pop_time;
    next.visible_at = visible_at;
    next.offsets = std::move(offsets);
    std::map<std::int64_t, std::int32_t> counts;
    const auto prev = batches_.find(key);
    for (const auto o : next.offsets) {
        std::int32_t count = 0;
        if (prev != batches_.end() &&
            std::find(prev->second.offsets.begin(), prev->second.offsets.end(), o) !=
                prev->second.offsets.end()) {
            const auto c = prev->second.consumed.find(o);
            count = (c == prev->second.consumed.end() ? 0 : c->second) + 1;
            next.consumed[o] = count;
        }
        counts[o] = count;
    }
    batches_[key] = std::move(next);
    return counts;
}

RMQ_DECL std::int64_t
PopOrderBatches::commit_and_next(const Key& key, std::int64_t offset, std::int64_t pop_time) {
    const auto it = batches_.find(key);
    if (it == batches_.end()) {
        return offset + 1;  // no batch known (as after a broker restart): the ack commits past it
    }
    auto& b = it->second;
    if (b.offsets.empty()) {
        return -1;
    }
    if (b.pop_time != pop_time) {
        return -2;
    }
    const auto pos = std::find(b.offsets.begin(), b.offsets.end(), offset);
    if (pos == b.offsets.end()) {
        return -1;
    }
    b.committed |= std::uint64_t{1} << static_cast<std::size_t>(pos - b.offsets.begin());
    return b.next_offset();
}

RMQ_DECL void PopOrderBatches::set_visible_at(const Key& key,
                                              std::int64_t offset,
                                              std::int64_t pop_time,
                                              std::int64_t visible_at) {
    const auto it = batches_.find(key);
    if (it == batches_.end() || it->second.pop_time != pop_time) {
        return;
    }
    it->second.visible_at_of[offset] = visible_at;
    it->second.unblock_reported = false;
}

RMQ_DECL std::optional<std::int64_t> PopOrderBatches::next_unblock() const {
    std::optional<std::int64_t> next;
    for (const auto& [key, b] : batches_) {
        if (const auto until = b.blocked_until(); until && !b.unblock_reported) {
            next = next ? std::min(*next, *until) : *until;
        }
    }
    return next;
}

RMQ_DECL std::vector<PopOrderBatches::Key> PopOrderBatches::take_unblocked(std::int64_t now) {
    std::vector<Key> out;
    for (auto& [key, b] : batches_) {
        if (const auto until = b.blocked_until(); until && !b.unblock_reported && *until <= now) {
            b.unblock_reported = true;
            out.push_back(key);
        }
    }
    return out;
}

}  // namespace rmq::detail
