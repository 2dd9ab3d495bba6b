// How many queues change owner when one member joins or leaves a group, and how even the split is, for
// rmq::AllocateAveragely, rmq::AllocateConsistentHash and rmq::AllocateSticky over a grid of (queues N,
// consumers C). Deterministic: no broker, no clock; the same figures on every run and machine.
//
//   rmq_bench_allocate_movement [--max-queues 64] [--max-consumers 16] [--markdown]
//
// Three queue layouts, pooled: N queues of TopicTest on broker-0; on broker-0 and broker-1; of OrderEvents on
// b0. Per strategy, one JSON line (or, with --markdown, a table with one row per strategy):
// - join: C members (C = 1..max) become C+1; unavoidable = the queues the newcomer receives;
// - leave: C+1 members (C = 1..max) become C, each member leaving in turn; unavoidable = the leaver's queues;
// - ratio = queues whose owner changed / unavoidable: the mean over the events with unavoidable > 0
//   ("mean"), and the sum of moved over the sum of unavoidable ("total"); "spurious" counts events that moved
//   queues although nothing had to move;
// - imbalance = max owned − min owned over the members, the largest over every group of the grid.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/consistent_hash.hpp>
#include <rmq/allocate/sticky.hpp>
#include <rmq/message_queue.hpp>

namespace {

struct Totals {
    double join_ratio_sum = 0;
    int join_events = 0;
    long join_moved = 0;
    long join_unavoidable = 0;
    int join_spurious = 0;
    double leave_ratio_sum = 0;
    int leave_events = 0;
    long leave_moved = 0;
    long leave_unavoidable = 0;
    int leave_spurious = 0;
    std::size_t max_imbalance = 0;
};

// Client ids that look like rmq's (ip@pid), in a scrambled order so that a newcomer sorts anywhere.
std::vector<std::string> client_pool(int count) {
    std::vector<std::string> ids;
    std::uint32_t x = 12345;
    for (int i = 0; i < count; ++i) {
        x = x * 1103515245U + 12345U;
        ids.push_back(fmt::format("10.0.{}.{}@{}", (x >> 8) % 256, (x >> 16) % 256, 1000 + (x >> 20) % 9000));
    }
    return ids;
}

// The three queue layouts of the grid (tests/unit/allocate/sticky_test.cpp uses the same): a hash-based
// strategy's figures for one layout vary with the names hashed, so the events of all three are pooled.
std::vector<rmq::MessageQueue> queues(int n, int layout) {
    const std::string topic = layout == 2 ? "OrderEvents" : "TopicTest";
    const int brokers = layout == 1 ? 2 : 1;
    std::vector<rmq::MessageQueue> mqs;
    for (int i = 0; i < n; ++i) {
        mqs.push_back(rmq::MessageQueue{
            topic, fmt::format("{}{}", layout == 2 ? "b" : "broker-", i % brokers), i / brokers});
    }
    std::sort(mqs.begin(), mqs.end());
    return mqs;
}

// Owner of every queue (exits if a queue has no owner or two: the comparison would be meaningless).
template <class P>
std::map<rmq::MessageQueue, std::string>
owners(const P& policy, const std::vector<rmq::MessageQueue>& mq_all, std::vector<std::string> cid_all) {
    std::sort(cid_all.begin(), cid_all.end());  // the consumer's order (ASCII ids: String.compareTo)
    std::map<rmq::MessageQueue, std::string> owner;
    for (const auto& cid : cid_all) {
        for (const auto& mq : policy.allocate("bench_group", cid, mq_all, cid_all)) {
            if (!owner.emplace(mq, cid).second) {
                std::fprintf(stderr, "%s given twice\n", fmt::format("{}", mq).c_str());
                std::exit(1);
            }
        }
    }
    if (owner.size() != mq_all.size()) {
        std::fprintf(stderr, "a queue has no owner\n");
        std::exit(1);
    }
    return owner;
}

std::size_t imbalance(const std::map<rmq::MessageQueue, std::string>& owner,
                      const std::vector<std::string>& cids) {
    std::map<std::string, std::size_t> held;
    for (const auto& cid : cids) {
        held[cid] = 0;
    }
    for (const auto& [mq, cid] : owner) {
        ++held[cid];
    }
    const auto [lo, hi] = std::minmax_element(
        held.begin(), held.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return hi->second - lo->second;
}

// Queues whose owner differs, and how many of them `who` held in `owned_by` (the unavoidable moves).
std::pair<long, long> moves(const std::map<rmq::MessageQueue, std::string>& before,
                            const std::map<rmq::MessageQueue, std::string>& after,
                            const std::map<rmq::MessageQueue, std::string>& owned_by,
                            const std::string& who) {
    long moved = 0;
    long unavoidable = 0;
    for (const auto& [mq, cid] : before) {
        moved += after.at(mq) != cid ? 1 : 0;
        unavoidable += owned_by.at(mq) == who ? 1 : 0;
    }
    return {moved, unavoidable};
}

void record(double& ratio_sum,
            int& events,
            long& moved_sum,
            long& unavoidable_sum,
            int& spurious,
            long moved,
            long unavoidable) {
    moved_sum += moved;
    unavoidable_sum += unavoidable;
    if (unavoidable > 0) {
        ratio_sum += static_cast<double>(moved) / static_cast<double>(unavoidable);
        ++events;
    } else if (moved > 0) {
        ++spurious;
    }
}

// Join and leave events of one queue list for C = 1..max_consumers.
template <class P>
void measure_group(const P& policy,
                   const std::vector<rmq::MessageQueue>& mq_all,
                   const std::vector<std::string>& pool,
                   int max_consumers,
                   Totals& t) {
    for (int c = 1; c <= max_consumers; ++c) {
        const std::vector<std::string> small(pool.begin(), pool.begin() + c);
        const std::vector<std::string> big(pool.begin(), pool.begin() + c + 1);
        const auto before = owners(policy, mq_all, small);
        const auto after = owners(policy, mq_all, big);
        t.max_imbalance = std::max({t.max_imbalance, imbalance(before, small), imbalance(after, big)});
        const auto [jm, ju] = moves(before, after, after, pool[static_cast<std::size_t>(c)]);
        record(t.join_ratio_sum, t.join_events, t.join_moved, t.join_unavoidable, t.join_spurious, jm, ju);
        for (std::size_t leaver = 0; leaver < big.size(); ++leaver) {
            auto rest = big;
            rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(leaver));
            const auto [lm, lu] = moves(after, owners(policy, mq_all, rest), after, big[leaver]);
            record(t.leave_ratio_sum,
                   t.leave_events,
                   t.leave_moved,
                   t.leave_unavoidable,
                   t.leave_spurious,
                   lm,
                   lu);
        }
    }
}

template <class P>
Totals measure(const P& policy, int max_queues, int max_consumers) {
    Totals t;
    const auto pool = client_pool(max_consumers + 1);
    for (int layout = 0; layout < 3; ++layout) {
        for (int n = 1; n <= max_queues; ++n) {
            measure_group(policy, queues(n, layout), pool, max_consumers, t);
        }
    }
    return t;
}

void report(std::string_view name, const Totals& t, int max_queues, int max_consumers, bool markdown) {
    const double join_mean = t.join_ratio_sum / t.join_events;
    const double leave_mean = t.leave_ratio_sum / t.leave_events;
    const double join_total = static_cast<double>(t.join_moved) / static_cast<double>(t.join_unavoidable);
    const double leave_total = static_cast<double>(t.leave_moved) / static_cast<double>(t.leave_unavoidable);
    if (markdown) {
        fmt::print("| {} | {:.2f} | {:.2f} | {} | {:.2f} | {:.2f} | {} | {} |\n",
                   name,
                   join_mean,
                   join_total,
                   t.join_spurious,
                   leave_mean,
                   leave_total,
                   t.leave_spurious,
                   t.max_imbalance);
        return;
    }
    fmt::print(
        "{{\"mode\": \"allocate_movement\", \"strategy\": \"{}\", \"max_queues\": {}, \"max_consumers\": {}, "
        "\"join_ratio_mean\": {:.4f}, \"join_ratio_total\": {:.4f}, \"join_events\": {}, "
        "\"join_spurious\": {}, \"leave_ratio_mean\": {:.4f}, \"leave_ratio_total\": {:.4f}, "
        "\"leave_events\": {}, \"leave_spurious\": {}, \"max_imbalance\": {}}}\n",
        name,
        max_queues,
        max_consumers,
        join_mean,
        join_total,
        t.join_events,
        t.join_spurious,
        leave_mean,
        leave_total,
        t.leave_events,
        t.leave_spurious,
        t.max_imbalance);
}

}  // namespace

int main(int argc, char** argv) {
    int max_queues = 64;
    int max_consumers = 16;
    bool markdown = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--max-queues" && i + 1 < argc) {
            max_queues = std::atoi(argv[++i]);
        } else if (arg == "--max-consumers" && i + 1 < argc) {
            max_consumers = std::atoi(argv[++i]);
        } else if (arg == "--markdown") {
            markdown = true;
        } else {
            std::fprintf(stderr, "usage: %s [--max-queues N] [--max-consumers C] [--markdown]\n", argv[0]);
            return 2;
        }
    }
    if (max_queues < 1 || max_consumers < 1) {
        std::fprintf(stderr, "--max-queues and --max-consumers must be >= 1\n");
        return 2;
    }
    if (markdown) {
        fmt::print("| Strategy | join: moved / unavoidable, mean | join: total | join: moves where none was "
                   "needed | "
                   "leave: moved / unavoidable, mean | leave: total | leave: moves where none was needed | "
                   "max imbalance (max − min owned) |\n|---|---|---|---|---|---|---|---|\n");
    }
    report(rmq::AllocateAveragely::name(),
           measure(rmq::AllocateAveragely{}, max_queues, max_consumers),
           max_queues,
           max_consumers,
           markdown);
    report(rmq::AllocateConsistentHash::name(),
           measure(rmq::AllocateConsistentHash{}, max_queues, max_consumers),
           max_queues,
           max_consumers,
           markdown);
    report(rmq::AllocateSticky::name(),
           measure(rmq::AllocateSticky{}, max_queues, max_consumers),
           max_queues,
           max_consumers,
           markdown);
}
