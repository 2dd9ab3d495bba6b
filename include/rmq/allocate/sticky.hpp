#pragma once

/// @file allocate/sticky.hpp
/// rmq::AllocateSticky: balanced allocation that moves few queues when a member joins or leaves
/// (rendezvous hashing with bounded loads; no Java counterpart).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

namespace rmq {

/// Every (queue, client) pair has a fixed weight, a 64-bit hash of the queue's topic, broker name and queue
/// id and of the client id (score()). Each client ranks the queues by its weights, a list that does not
/// depend on the other members. Queues are dealt in rounds: in round r every client that may still take a
/// queue bids for the r-th queue of its list if it is free; when several bid for one queue, the one holding
/// fewest queues wins, then the heavier pair. A client may take ⌊N/C⌋ queues, and one more while fewer than
/// N mod C clients have, so every client owns ⌊N/C⌋ or ⌈N/C⌉ queues and every queue has one owner; and a
/// member joining or leaving changes the owner of few queues besides its own (docs/policies/allocate.md has
/// the measured figures).
///
/// The result depends only on the arguments, not on their order nor on any history: no five-argument
/// (rmq::StickyAllocatePolicy) overload, "sticky" here means little movement by construction. A client id
/// listed twice counts once. Throws rmq::InvalidArgument for an empty current id, `mq_all` or `cid_all` (in
/// that order, with rmq::AllocateAveragely's messages), returns [] for a client id not in `cid_all`. Cost per
/// call: O(N·C·log N) time, O(N·C) memory (1,000 queues and 100 clients: ~10 ms at -O2).
struct AllocateSticky {
    /// The strategy's name (no Java strategy has it).
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "STICKY"; }

    /// The weight of the pair (`mq`, `client_id`): FNV-1a over the queue's fields and over the client id,
    /// combined by a SplitMix64 finalizer. Fixed-width arithmetic on bytes only, so every platform, compiler
    /// and build computes the same value (members of one group may run different builds).
    [[nodiscard]] static std::uint64_t score(const MessageQueue& mq, std::string_view client_id) noexcept;

    /// The whole group's split: the owner (an id of `cid_all`) of every queue of `mq_all`, in `mq_all` order;
    /// allocate() of each member returns its part of this. Throws rmq::InvalidArgument for an empty `mq_all`
    /// or `cid_all`, like allocate().
    [[nodiscard]] static std::vector<std::string> split(std::span<const MessageQueue> mq_all,
                                                        std::span<const std::string> cid_all);

    /// The queues of `mq_all` owned by `current_cid`, in `mq_all` order (docs/policies/allocate.md).
    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view /*group*/,
                                                     std::string_view current_cid,
                                                     std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string> cid_all) const;

private:
    struct Table;

    // The weight of every pair and every client's list of the queues, heaviest first.
    [[nodiscard]] static Table table(std::span<const MessageQueue> mq_all,
                                     std::span<const std::string_view> clients);

    // The client ids sorted, without duplicates; throws for an empty mq_all or cid_all.
    [[nodiscard]] static std::vector<std::string_view> checked_clients(std::span<const MessageQueue> mq_all,
                                                                       std::span<const std::string> cid_all);

    // Owner of every queue of mq_all: an index into `clients` (sorted, without duplicates).
    [[nodiscard]] static std::vector<std::size_t> owners(std::span<const MessageQueue> mq_all,
                                                         std::span<const std::string_view> clients);
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/allocate/impl/sticky.ipp>
#endif
