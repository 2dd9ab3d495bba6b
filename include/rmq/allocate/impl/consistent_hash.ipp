#pragma once

/// @file allocate/impl/consistent_hash.ipp
/// Definitions of allocate/consistent_hash.hpp.

#include <rmq/allocate/consistent_hash.hpp>

// Only the definitions need these.
#include <unordered_map>

#include <fmt/format.h>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>

#include <rmq/detail/util/md5.hpp>

namespace rmq {

RMQ_DECL AllocateConsistentHash::AllocateConsistentHash(int virtual_node_count)
    : virtual_node_count_(virtual_node_count) {
    if (virtual_node_count < 0) {
        throw InvalidArgument(fmt::format("illegal virtualNodeCnt :{}", virtual_node_count));
    }
}

RMQ_DECL std::vector<MessageQueue>
AllocateConsistentHash::allocate(std::string_view /*group*/,
                                 std::string_view current_cid,
                                 std::span<const MessageQueue> mq_all,
                                 std::span<const std::string> cid_all) const {
    if (!detail::check_allocate_args(current_cid, mq_all, cid_all)) {
        return {};
    }
    const auto ring = build_ring(cid_all);
    if (ring.empty()) {
        return {};
    }
    const auto owned = [&](const MessageQueue& mq) {
        auto it = ring.lower_bound(detail::md5_prefix32(fmt::format("{}", mq)));
        if (it == ring.end()) {
            it = ring.begin();
        }
        return *it->second == current_cid;
    };
    return mq_all | ranges::views::filter(owned) | ranges::to<std::vector<MessageQueue>>();
}

RMQ_DECL std::map<std::uint32_t, const std::string*>
AllocateConsistentHash::build_ring(std::span<const std::string> cid_all) const {
    std::map<std::uint32_t, const std::string*> ring;
    std::unordered_map<std::string_view, int> points_held;
    for (const auto& cid : cid_all) {
        const int existing = points_held[cid];
        for (int i = 0; i < virtual_node_count_; ++i) {
            const auto hash = detail::md5_prefix32(fmt::format("{}-{}", cid, i + existing));
            const auto [it, inserted] = ring.try_emplace(hash, &cid);
            if (!inserted) {
                --points_held[*it->second];
                it->second = &cid;
            }
            ++points_held[cid];
        }
    }
    return ring;
}

}  // namespace rmq
