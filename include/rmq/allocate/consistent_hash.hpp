#pragma once

/// @file allocate/consistent_hash.hpp
/// rmq::AllocateConsistentHash: queues routed on an MD5 hash ring of consumers (Java's
/// AllocateMessageQueueConsistentHash, "CONSISTENT_HASH").

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/allocate/check.hpp>

namespace rmq {

/// Consistent hashing: each consumer puts `virtual_node_count` points on a ring (MD5 of "<cid>-<i>"), and
/// each queue goes to the first point at or after MD5 of its Java text `MessageQueue [topic=T, brokerName=B,
/// queueId=N]`, wrapping around. A consumer joining or leaving moves only the queues next to its points, at
/// the price of an uneven split. Same argument checks as rmq::AllocateAveragely.
class AllocateConsistentHash {
public:
    /// Java's default number of virtual nodes per consumer.
    static constexpr int default_virtual_node_count = 10;

    /// @param virtual_node_count points per consumer on the ring (Java's virtualNodeCnt); negative →
    /// InvalidArgument. Zero leaves the ring empty, so nobody gets a queue (as in Java).
    explicit AllocateConsistentHash(int virtual_node_count = default_virtual_node_count);

    /// Java's strategy name.
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "CONSISTENT_HASH"; }

    /// Points per consumer on the ring.
    [[nodiscard]] int virtual_node_count() const noexcept { return virtual_node_count_; }

    /// The queues of `mq_all` whose ring owner is `current_cid`, in `mq_all` order
    /// (docs/policies/allocate.md).
    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view /*group*/,
                                                     std::string_view current_cid,
                                                     std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string> cid_all) const;

private:
    // hash → the client id owning that point. Built like ConsistentHashRouter: consumers in cid_all order, a
    // later point overwrites an earlier one with the same hash, and a client id listed twice continues its
    // replica numbering from the points it still holds.
    [[nodiscard]] std::map<std::uint32_t, const std::string*>
    build_ring(std::span<const std::string> cid_all) const;

    int virtual_node_count_;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/allocate/impl/consistent_hash.ipp>
#endif
