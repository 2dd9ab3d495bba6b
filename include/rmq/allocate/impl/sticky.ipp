#pragma once

/// @file allocate/impl/sticky.ipp
/// Definitions of allocate/sticky.hpp.

#include <rmq/allocate/sticky.hpp>

// Only the definitions need these.
#include <algorithm>
#include <limits>

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

struct AllocateSticky::Pair {
    std::size_t rank;  // position of the queue in the client's list, heaviest first (0 = its favourite)
    std::uint64_t score;
    std::size_t queue;
    std::size_t client;
};

RMQ_DECL std::vector<AllocateSticky::Pair>
AllocateSticky::ranked_pairs(std::span<const MessageQueue> mq_all,
                             std::span<const std::string_view> clients) {
    const std::size_t n = mq_all.size();
    const std::size_t c_count = clients.size();
    std::vector<Pair> pairs(n * c_count);  // round r is [r * C, (r + 1) * C): one pair per client
    std::vector<Pair> row(n);
    for (std::size_t c = 0; c < c_count; ++c) {
        for (std::size_t q = 0; q < n; ++q) {
            row[q] = Pair{0, score(mq_all[q], clients[c]), q, c};
        }
        // Equal weights (practically never) order by queue value, never by position, so that the split does
        // not depend on the order of the arguments.
        std::sort(row.begin(), row.end(), [&](const Pair& a, const Pair& b) {
            return a.score != b.score ? a.score > b.score : mq_all[a.queue] < mq_all[b.queue];
        });
        for (std::size_t r = 0; r < n; ++r) {
            row[r].rank = r;
            pairs[r * c_count + c] = row[r];
        }
    }
    const auto heavier = [&](const Pair& a, const Pair& b) {
        if (a.score != b.score) {
            return a.score > b.score;
        }
        if (const auto order = mq_all[a.queue] <=> mq_all[b.queue]; order != 0) {
            return order < 0;
        }
        return clients[a.client] < clients[b.client];
    };
    for (auto round = pairs.begin(); round != pairs.end(); round += static_cast<std::ptrdiff_t>(c_count)) {
        std::sort(round, round + static_cast<std::ptrdiff_t>(c_count), heavier);
    }
    return pairs;
}

RMQ_DECL std::vector<std::size_t> AllocateSticky::owners(std::span<const MessageQueue> mq_all,
                                                         std::span<const std::string_view> clients) {
    auto pairs = ranked_pairs(mq_all, clients);
    constexpr auto none = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> owner(mq_all.size(), none);
    std::vector<std::size_t> held(clients.size(), 0);
    std::size_t left = mq_all.size();
    // Level by level, each client takes at most one more queue per level: its best-ranked queue still free,
    // the heavier pair first when two clients want one queue. Balance needs no cap: levels 1..⌊N/C⌋ start
    // with at least C free queues, so every client gets one in each; level ⌊N/C⌋+1 starts with N mod C.
    // A client's list does not depend on who else is in the group, and nobody grabs a run of queues early:
    // that keeps a join or a leave from reshuffling the others (ordering the pairs by weight alone moves
    // ~15 % more, one pass without levels ~5 % more; bench/allocate_movement.cpp).
    for (std::size_t level = 1; left > 0; ++level) {
        for (const auto& p : pairs) {
            if (owner[p.queue] == none && held[p.client] < level) {
                owner[p.queue] = p.client;
                ++held[p.client];
                --left;
            }
        }
        std::erase_if(pairs, [&](const Pair& p) { return owner[p.queue] != none; });
    }
    return owner;
}

}  // namespace rmq
