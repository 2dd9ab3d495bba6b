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

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/allocate/check.hpp>

namespace rmq {

namespace detail {

/// The pieces of Java's `s.split("@")`: split at every '@', then drop trailing empty pieces (leading and
/// inner empty pieces stay).
std::vector<std::string_view> java_split_at(std::string_view s);

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

    /// `current_cid`'s share of the queues in the configured rooms (docs/policies/allocate.md).
    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view /*group*/,
                                                     std::string_view current_cid,
                                                     std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string> cid_all) const;

private:
    RoomSet consumeridcs_;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/allocate/impl/by_machine_room.ipp>
#endif
