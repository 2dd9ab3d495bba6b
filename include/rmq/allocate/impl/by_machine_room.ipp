#pragma once

/// @file allocate/impl/by_machine_room.ipp
/// Definitions of allocate/by_machine_room.hpp.

#include <rmq/allocate/by_machine_room.hpp>

// Only the definitions need these.
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>

namespace rmq {

RMQ_DECL std::vector<std::string_view> detail::java_split_at(std::string_view s) {
    std::vector<std::string_view> pieces;
    if (s.empty()) {
        pieces.emplace_back();  // no match: Java returns the input itself
        return pieces;
    }
    std::size_t from = 0;
    for (std::size_t at = s.find('@'); at != std::string_view::npos; at = s.find('@', from)) {
        pieces.push_back(s.substr(from, at - from));
        from = at + 1;
    }
    pieces.push_back(s.substr(from));
    while (!pieces.empty() && pieces.back().empty()) {
        pieces.pop_back();
    }
    return pieces;
}

RMQ_DECL std::vector<MessageQueue>
AllocateByMachineRoom::allocate(std::string_view /*group*/,
                                std::string_view current_cid,
                                std::span<const MessageQueue> mq_all,
                                std::span<const std::string> cid_all) const {
    const auto index = detail::check_allocate_args(current_cid, mq_all, cid_all);
    if (!index) {
        return {};
    }
    const auto in_my_rooms = [this](const MessageQueue& mq) {
        const auto pieces = detail::java_split_at(mq.broker_name);
        return pieces.size() == 2 && consumeridcs_.contains(pieces[0]);
    };
    const auto pre = mq_all | ranges::views::filter(in_my_rooms) | ranges::to<std::vector<MessageQueue>>();
    const std::size_t c = cid_all.size();
    const std::size_t quota = pre.size() / c;
    const std::size_t rem = pre.size() % c;
    std::vector<MessageQueue> result(pre.begin() + static_cast<std::ptrdiff_t>(*index * quota),
                                     pre.begin() + static_cast<std::ptrdiff_t>((*index + 1) * quota));
    if (rem > *index) {
        result.push_back(pre[*index + quota * c]);
    }
    return result;
}

}  // namespace rmq
