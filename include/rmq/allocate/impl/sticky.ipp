#pragma once

/// @file allocate/impl/sticky.ipp
/// Definitions of allocate/sticky.hpp.

#include <rmq/allocate/sticky.hpp>

// Only the definitions need these.
#include <algorithm>
#include <limits>
#include <utility>

namespace rmq {

RMQ_DECL std::uint64_t AllocateSticky::score(const MessageQueue& mq, std::string_view client_id) noexcept {
    constexpr std::uint64_t fnv_offset = 0xcbf29ce484222325ULL;
    constexpr std::uint64_t fnv_prime = 0x100000001b3ULL;
    const auto fnv = [](std::uint64_t h, std::string_view bytes) {
        for (const char ch : bytes) {
            h = (h ^ static_cast<unsigned char>(ch)) * fnv_prime;
        }
        return h;
    };
    // SplitMix64's finalizer: every input bit reaches every output bit.
    const auto mix = [](std::uint64_t z) {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    // A NUL separates the fields ("ab"+"c" and "a"+"bc" differ); the id goes in as 4 little-endian bytes.
    std::uint64_t q = fnv(fnv(fnv_offset, mq.topic), std::string_view("\0", 1));
    q = fnv(fnv(q, mq.broker_name), std::string_view("\0", 1));
    const auto id = static_cast<std::uint32_t>(mq.queue_id);
    for (int shift = 0; shift < 32; shift += 8) {
        q = (q ^ ((id >> shift) & 0xffU)) * fnv_prime;
    }
    return mix(q ^ mix(fnv(fnv_offset, client_id)));
}

RMQ_DECL std::vector<std::string_view> AllocateSticky::checked_clients(std::span<const MessageQueue> mq_all,
                                                                       std::span<const std::string> cid_all) {
    // The checks of the stock strategies, with their messages (public text, not a helper to call).
    if (mq_all.empty()) {
        throw InvalidArgument("mqAll is null or mqAll empty");
    }
    if (cid_all.empty()) {
        throw InvalidArgument("cidAll is null or cidAll empty");
    }
    std::vector<std::string_view> clients(cid_all.begin(), cid_all.end());
    std::sort(clients.begin(), clients.end());
    clients.erase(std::unique(clients.begin(), clients.end()), clients.end());
    return clients;
}

RMQ_DECL std::vector<std::string> AllocateSticky::split(std::span<const MessageQueue> mq_all,
                                                        std::span<const std::string> cid_all) {
    const auto clients = checked_clients(mq_all, cid_all);
    std::vector<std::string> result;
    result.reserve(mq_all.size());
    for (const std::size_t owner : owners(mq_all, clients)) {
        result.emplace_back(clients[owner]);
    }
    return result;
}

RMQ_DECL std::vector<MessageQueue> AllocateSticky::allocate(std::string_view /*group*/,
                                                            std::string_view current_cid,
                                                            std::span<const MessageQueue> mq_all,
                                                            std::span<const std::string> cid_all) const {
    if (current_cid.empty()) {
        throw InvalidArgument("currentCID is empty");
    }
    const auto clients = checked_clients(mq_all, cid_all);
    const auto me = std::lower_bound(clients.begin(), clients.end(), current_cid);
    if (me == clients.end() || *me != current_cid) {
        return {};
    }
    const auto mine = static_cast<std::size_t>(me - clients.begin());
    const auto owner = owners(mq_all, clients);
    std::vector<MessageQueue> result;
    for (std::size_t q = 0; q < mq_all.size(); ++q) {
        if (owner[q] == mine) {
            result.push_back(mq_all[q]);
        }
    }
    return result;
}

struct AllocateSticky::Table {
    std::size_t queues = 0;
    std::size_t clients = 0;
    std::vector<std::uint64_t> weight;  // [q * clients + c]: score() of the pair
    std::vector<std::size_t> ranked;    // [c * queues + r]: client c's r-th heaviest queue
};

RMQ_DECL AllocateSticky::Table AllocateSticky::table(std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string_view> clients) {
    Table t{mq_all.size(), clients.size(), std::vector<std::uint64_t>(mq_all.size() * clients.size()), {}};
    for (std::size_t q = 0; q < t.queues; ++q) {
        for (std::size_t c = 0; c < t.clients; ++c) {
            t.weight[q * t.clients + c] = score(mq_all[q], clients[c]);
        }
    }
    t.ranked.reserve(t.queues * t.clients);
    std::vector<std::size_t> row(t.queues);
    for (std::size_t c = 0; c < t.clients; ++c) {
        for (std::size_t q = 0; q < t.queues; ++q) {
            row[q] = q;
        }
        // Equal weights (practically never) order by queue value, never by position, so that the split does
        // not depend on the order of the arguments.
        std::sort(row.begin(), row.end(), [&](std::size_t a, std::size_t b) {
            const auto wa = t.weight[a * t.clients + c];
            const auto wb = t.weight[b * t.clients + c];
            return wa != wb ? wa > wb : mq_all[a] < mq_all[b];
        });
        t.ranked.insert(t.ranked.end(), row.begin(), row.end());
    }
    return t;
}

RMQ_DECL std::vector<std::size_t> AllocateSticky::owners(std::span<const MessageQueue> mq_all,
                                                         std::span<const std::string_view> clients) {
    const Table t = table(mq_all, clients);
    constexpr auto none = std::numeric_limits<std::size_t>::max();
    const std::size_t base = t.queues / t.clients;
    std::size_t extras = t.queues % t.clients;  // clients that may still go to base + 1
    std::vector<std::size_t> owner(t.queues, none);
    std::vector<std::size_t> held(t.clients, 0);
    std::vector<std::size_t> bidder(t.queues, none);
    std::vector<std::size_t> bid;  // queues bid for in this round
    const auto weight = [&](std::size_t q, std::size_t c) {
        return t.weight[q * t.clients + c];
    };
    const auto has_room = [&](std::size_t c) {
        return held[c] < base || (held[c] == base && extras > 0);
    };
    // Round r: every client with room bids for the r-th queue of its own list if it is still free. A
    // client's list does not depend on who else is in the group, so a join or a leave only changes who wins
    // some bids. The bidder holding fewest queues wins (it catches up now instead of displacing someone
    // later), then the heavier pair. On bench/allocate_movement.cpp's grid, dealing in levels (each client
    // one queue per level) moves ~4 % more; the heavier pair alone moves ~3 % more and can leave a queue
    // free. With fewest-first every queue has an owner after round N: a queue left free in its round had
    // only bidders at ⌊N/C⌋ when the extra places ran out (a bidder below would have won it), room never
    // comes back, and a client with room at the end had it all along, so it bid for every free queue.
    for (std::size_t round = 0; round < t.queues; ++round) {
        bid.clear();
        for (std::size_t c = 0; c < t.clients; ++c) {
            const std::size_t q = t.ranked[c * t.queues + round];
            if (owner[q] != none || !has_room(c)) {
                continue;
            }
            if (bidder[q] == none) {
                bid.push_back(q);
                bidder[q] = c;
            } else if (held[c] != held[bidder[q]] ? held[c] < held[bidder[q]]
                                                  : weight(q, c) > weight(q, bidder[q])) {
                bidder[q] = c;  // equal weights keep the lower index, i.e. the smaller client id
            }
        }
        // Heavier pairs first: this order only decides who gets the last extra queues of a round.
        std::sort(bid.begin(), bid.end(), [&](std::size_t a, std::size_t b) {
            const auto wa = weight(a, bidder[a]);
            const auto wb = weight(b, bidder[b]);
            return wa != wb ? wa > wb : mq_all[a] < mq_all[b];
        });
        for (const std::size_t q : bid) {
            const std::size_t c = std::exchange(bidder[q], none);
            if (has_room(c)) {
                extras -= held[c] == base ? 1 : 0;
                owner[q] = c;
                ++held[c];
            }
        }
    }
    return owner;
}

}  // namespace rmq
