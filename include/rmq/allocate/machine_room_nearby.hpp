#pragma once

/// @file allocate/machine_room_nearby.hpp
/// rmq::AllocateMachineRoomNearby: consume brokers of one's own machine room first (Java's
/// AllocateMachineRoomNearby, "MACHINE_ROOM_NEARBY-" + the inner strategy's name).

#include <concepts>
#include <iterator>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/allocate/check.hpp>
#include <rmq/detail/util/java_string.hpp>

namespace rmq {

/// Tells which machine room a broker's queue and a consumer are deployed in (Java's
/// AllocateMachineRoomNearby.MachineRoomResolver): `broker_deploy_in(const MessageQueue&)` and
/// `consumer_deploy_in(std::string_view client_id)`, both const, both returning a non-empty room name
/// (an empty one makes allocate() throw rmq::InvalidArgument).
template <class R>
concept MachineRoomResolver =
    std::copy_constructible<R> && requires(const R& r, const MessageQueue& mq, std::string_view client_id) {
        { r.broker_deploy_in(mq) } -> std::convertible_to<std::string>;
        { r.consumer_deploy_in(client_id) } -> std::convertible_to<std::string>;
    };

namespace detail {

/// Orders room names like Java's TreeMap<String> (String.compareTo, UTF-16 order).
struct JavaStringLess {
    bool operator()(const std::string& a, const std::string& b) const noexcept {
        return java_string_compare(a, b) < 0;
    }
};

}  // namespace detail

/// Wraps an inner strategy: queues of brokers in the current consumer's room are split (by `Inner`) among the
/// consumers of that room only; queues of rooms where no consumer runs are split (by `Inner`) among all
/// consumers; queues of other rooms that have consumers are left to them. The result is the own room's share
/// followed by the shares of the consumer-less rooms in room-name order. Checks its arguments like
/// rmq::AllocateAveragely.
///
/// @code
/// rmq::AllocateMachineRoomNearby nearby{rmq::AllocateAveragely{}, MyResolver{}};
/// @endcode
template <AllocatePolicy Inner, MachineRoomResolver Resolver>
class AllocateMachineRoomNearby {
public:
    /// @param inner    the strategy applied inside each room
    /// @param resolver maps queues and client ids to rooms
    AllocateMachineRoomNearby(Inner inner, Resolver resolver)
        : inner_(std::move(inner))
        , resolver_(std::move(resolver)) {}

    /// Java's strategy name: "MACHINE_ROOM_NEARBY-" + the inner strategy's name.
    [[nodiscard]] std::string name() const
    requires requires(const Inner& i) { fmt::format("{}", i.name()); }
    {
        return fmt::format("MACHINE_ROOM_NEARBY-{}", inner_.name());
    }

    /// The strategy applied inside each room.
    [[nodiscard]] const Inner& inner() const noexcept { return inner_; }

    /// The room resolver.
    [[nodiscard]] const Resolver& resolver() const noexcept { return resolver_; }

    /// `current_cid`'s queues, nearby rooms first (docs/policies/allocate.md).
    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view group,
                                                     std::string_view current_cid,
                                                     std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string> cid_all) const {
        if (!detail::check_allocate_args(current_cid, mq_all, cid_all)) {
            return {};
        }
        std::map<std::string, std::vector<MessageQueue>, detail::JavaStringLess> mq_by_room;
        for (const auto& mq : mq_all) {
            std::string room = resolver_.broker_deploy_in(mq);
            if (room.empty()) {
                throw InvalidArgument(fmt::format("Machine room is null for mq {}", mq));
            }
            mq_by_room[std::move(room)].push_back(mq);
        }
        std::map<std::string, std::vector<std::string>, detail::JavaStringLess> cid_by_room;
        for (const auto& cid : cid_all) {
            std::string room = resolver_.consumer_deploy_in(cid);
            if (room.empty()) {
                throw InvalidArgument(fmt::format("Machine room is null for consumer id {}", cid));
            }
            cid_by_room[std::move(room)].push_back(cid);
        }

        std::vector<MessageQueue> result;
        const auto append = [&](std::span<const MessageQueue> mqs, std::span<const std::string> cids) {
            auto share = inner_.allocate(group, current_cid, mqs, cids);
            result.insert(
                result.end(), std::make_move_iterator(share.begin()), std::make_move_iterator(share.end()));
        };
        const std::string my_room = resolver_.consumer_deploy_in(current_cid);
        if (const auto mine = mq_by_room.find(my_room); mine != mq_by_room.end()) {
            append(mine->second, cid_by_room[my_room]);
            mq_by_room.erase(mine);
        }
        for (const auto& [room, mqs] : mq_by_room) {
            if (!cid_by_room.contains(room)) {  // nobody consumes nearby: everyone shares these queues
                append(mqs, cid_all);
            }
        }
        return result;
    }

private:
    RMQ_NO_UNIQUE_ADDRESS Inner inner_;
    RMQ_NO_UNIQUE_ADDRESS Resolver resolver_;
};

}  // namespace rmq
