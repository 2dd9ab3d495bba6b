#pragma once

/// @file allocate/by_machine_room.hpp
/// rmq::AllocateByMachineRoom: averaging over the queues of chosen machine rooms (Java's
/// AllocateMessageQueueByMachineRoom, "MACHINE_ROOM").

#include <cstddef>
#include <functional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>

#include <rmq/message_queue.hpp>

#include <rmq/detail/allocate_check.hpp>

namespace rmq {

namespace detail {

/// The pieces of Java's `s.split("@")`: split at every '@', then drop trailing empty pieces (leading and
/// inner empty pieces stay).
inline std::vector<std::string_view> java_split_at(std::string_view s) {
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

}  // namespace detail

/// Consumers of a group deployed across machine rooms consume only brokers named "<room>@<broker>" whose room
/// is in `consumeridcs`; those queues are split in blocks among all consumers (`|queues| / C` each, the
/// remainder dealt one by one from the tail), queues of other rooms are left alone. Same argument checks as
/// rmq::AllocateAveragely.
class AllocateByMachineRoom {
public:
    /// The set of room names, looked up without copying the broker name.
    using RoomSet = std::set<std::string, std::less<>>;

    /// No rooms: the consumer owns nothing until configured.
    AllocateByMachineRoom() = default;

    /// @param consumeridcs the machine rooms whose brokers this group consumes (Java's consumeridcs).
    explicit AllocateByMachineRoom(RoomSet consumeridcs)
        : consumeridcs_(std::move(consumeridcs)) {}

    /// Java's strategy name.
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "MACHINE_ROOM"; }

    /// The configured machine rooms.
    [[nodiscard]] const RoomSet& consumeridcs() const noexcept { return consumeridcs_; }

    /// `current_cid`'s share of the queues in the configured rooms (consumer.md §3.4.5).
    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view /*group*/,
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
        const auto pre =
            mq_all | ranges::views::filter(in_my_rooms) | ranges::to<std::vector<MessageQueue>>();
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

private:
    RoomSet consumeridcs_;
};

}  // namespace rmq
