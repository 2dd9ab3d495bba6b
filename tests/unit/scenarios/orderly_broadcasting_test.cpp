// Orderly with broadcasting: every member consumes every message, each queue in its stored order and one
// listener call at a time; nothing is locked at the broker (Java's broadcasting rebalance passes isOrder =
// false, and the orderly service consumes broadcasting queues without a lock) and progress lives in each
// member's local offset file.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "scenario_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace orderly_broadcasting_test {

using scenario::eventually;
using scenario::fast_config;
using scenario::Recorder;
using scenario::TempDir;

namespace {

using OrderlyBroadcast =
    rmq::Consumer<rmq::Orderly, rmq::AllocateAveragely, rmq::LocalFileOffsetStore, rmq::InProcessTransport>;

constexpr int queue_count = 4;
constexpr int per_queue = 50;

/// What one member saw: each queue's bodies in delivery order, and whether two calls of a queue overlapped.
struct Member {
    std::string name;
    std::map<int, std::vector<int>> order;  // queue id → sequence numbers in delivery order
    std::map<int, int> running;             // queue id → listener calls in progress
    bool overlapped = false;
    int total = 0;
};

std::unique_ptr<OrderlyBroadcast>
start_member(rmq::InProcessBroker& broker, const TempDir& dir, Member& member, Recorder& rec) {
    auto config = fast_config("bcast_orderly_group");
    config.message_model = rmq::MessageModel::Broadcasting;
    config.instance_name = member.name;
    config.consume_message_batch_max_size = 3;
    rmq::LocalFileOffsetStore store;
    store.store_dir = dir.path().string();
    auto c = std::make_unique<OrderlyBroadcast>(broker.connect(), config, std::move(store));
    c->subscribe("BcastOrderly", "*");
    c->register_listener([&member, &rec](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        const int q = msgs.front().queue_id();
        rec.update([&] {
            if (++member.running[q] > 1) {
                member.overlapped = true;
            }
        });
        std::this_thread::sleep_for(std::chrono::microseconds(200));  // widens any overlap window
        rec.update([&] {
            for (const auto& m : msgs) {
                member.order[q].push_back(std::stoi(m.body()));
                ++member.total;
            }
            --member.running[q];
        });
        return rmq::ConsumeOrderlyStatus::Success;
    });
    c->start();
    return c;
}

}  // namespace

TEST_CASE("orderly broadcasting: every member gets every queue in order, one call at a time, no broker locks",
          "[scenario][broadcasting][orderly]") {
    rmq::InProcessBroker broker;
    broker.create_topic("BcastOrderly", queue_count);
    {
        auto tr = broker.connect();
        for (int i = 0; i < queue_count * per_queue; ++i) {
            rmq::Message msg("BcastOrderly", "TagA", std::to_string(i / queue_count));
            (void)tr.send(msg, broker.queue("BcastOrderly", i % queue_count));
        }
    }
    TempDir dir("scenario-bcast-orderly");
    Recorder rec;
    std::vector<Member> members(2);
    members[0].name = "o1";
    members[1].name = "o2";
    std::vector<std::unique_ptr<OrderlyBroadcast>> consumers;
    for (auto& m : members) {
        consumers.push_back(start_member(broker, dir, m, rec));
    }
    REQUIRE(rec.wait([&] {
        return members[0].total >= queue_count * per_queue && members[1].total >= queue_count * per_queue;
    }));
    for (int q = 0; q < queue_count; ++q) {
        CAPTURE(q);
        CHECK_FALSE(broker.lock_owner("bcast_orderly_group", broker.queue("BcastOrderly", q)).has_value());
    }
    CHECK(broker.lock_requests("bcast_orderly_group") == 0);  // not even a lock taken and given back
    for (auto& c : consumers) {
        c->shutdown();
    }
    std::vector<int> expected(per_queue);
    for (int i = 0; i < per_queue; ++i) {
        expected[static_cast<std::size_t>(i)] = i;
    }
    rec.read([&] {
        for (const auto& m : members) {
            CAPTURE(m.name);
            CHECK_FALSE(m.overlapped);
            CHECK(m.total == queue_count * per_queue);
            for (int q = 0; q < queue_count; ++q) {
                CAPTURE(q);
                CHECK(m.order.at(q) == expected);
            }
        }
        return 0;
    });
    CHECK_FALSE(broker.consumer_offset("bcast_orderly_group", broker.queue("BcastOrderly", 0)).has_value());
}

}  // namespace orderly_broadcasting_test
