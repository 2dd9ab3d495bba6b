// The strategies against Apache RocketMQ's own allocation tests and the spec's examples
//, including the strategies allocate.json does not cover (CONFIG, MACHINE_ROOM).

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/averagely_by_circle.hpp>
#include <rmq/allocate/by_config.hpp>
#include <rmq/allocate/by_machine_room.hpp>
#include <rmq/allocate/consistent_hash.hpp>
#include <rmq/allocate/machine_room_nearby.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/util/md5.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace strategies_test {

namespace {

constexpr std::string_view group = "please_rename_unique_group_name";

std::vector<rmq::MessageQueue>
make_queues(int count, const std::string& broker = "brokerName", const std::string& topic = "topic") {
    std::vector<rmq::MessageQueue> mqs;
    for (int i = 0; i < count; ++i) {
        mqs.push_back(rmq::MessageQueue{topic, broker, i});
    }
    return mqs;
}

std::vector<std::string> make_cids(int count, const std::string& prefix = "CID_PREFIX") {
    std::vector<std::string> cids;
    for (int i = 0; i < count; ++i) {
        cids.push_back(prefix + std::to_string(i));
    }
    return cids;
}

std::vector<std::int32_t> ids(const std::vector<rmq::MessageQueue>& mqs) {
    std::vector<std::int32_t> out;
    for (const auto& mq : mqs) {
        out.push_back(mq.queue_id);
    }
    return out;
}

// Queue ids per consumer, in cid_all order.
template <rmq::AllocatePolicy P>
std::vector<std::vector<std::int32_t>> split(const P& policy, int queues, int consumers) {
    const auto mq_all = make_queues(queues);
    const auto cid_all = make_cids(consumers);
    std::vector<std::vector<std::int32_t>> out;
    for (const auto& cid : cid_all) {
        out.push_back(ids(policy.allocate(group, cid, mq_all, cid_all)));
    }
    return out;
}

// Owner (client id) of every queue, asserting that each queue is given to exactly one consumer.
template <rmq::AllocatePolicy P>
std::map<rmq::MessageQueue, std::string> owners(const P& policy,
                                                const std::vector<rmq::MessageQueue>& mq_all,
                                                const std::vector<std::string>& cid_all) {
    std::map<rmq::MessageQueue, std::string> owner;
    for (const auto& cid : cid_all) {
        for (const auto& mq : policy.allocate(group, cid, mq_all, cid_all)) {
            INFO(fmt::format("{} given to {} and {}", mq, owner[mq], cid));
            CHECK(owner[mq].empty());
            owner[mq] = cid;
        }
    }
    CHECK(owner.size() == mq_all.size());
    return owner;
}

using Ids = std::vector<std::vector<std::int32_t>>;

}  // namespace

TEST_CASE("AVG splits queues into contiguous blocks (AllocateMessageQueueAveragelyTest)", "[allocate]") {
    const rmq::AllocateAveragely avg;
    CHECK(split(avg, 10, 4) == Ids{{0, 1, 2}, {3, 4, 5}, {6, 7}, {8, 9}});
    CHECK(split(avg, 8, 3) == Ids{{0, 1, 2}, {3, 4, 5}, {6, 7}});
    CHECK(split(avg, 3, 5) == Ids{{0}, {1}, {2}, {}, {}});
    CHECK(split(avg, 7, 2) == Ids{{0, 1, 2, 3}, {4, 5, 6}});
    CHECK(split(avg, 16, 4) == Ids{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}});
    CHECK(avg.allocate(group, "CID_PREFIX", make_queues(10), make_cids(4)).empty());
}

TEST_CASE("AVG_BY_CIRCLE deals queues round-robin (AllocateMessageQueueAveragelyByCircleTest)",
          "[allocate]") {
    const rmq::AllocateAveragelyByCircle circle;
    CHECK(circle.allocate(group, "CID_PREFIX", make_queues(10), make_cids(4)).empty());
    CHECK(split(circle, 10, 4) == Ids{{0, 4, 8}, {1, 5, 9}, {2, 6}, {3, 7}});
    CHECK(split(circle, 8, 3) == Ids{{0, 3, 6}, {1, 4, 7}, {2, 5}});
    CHECK(split(circle, 3, 5) == Ids{{0}, {1}, {2}, {}, {}});
}

TEST_CASE("check() rejects empty arguments in Java's order with Java's messages", "[allocate]") {
    const auto mqs = make_queues(4);
    const auto cids = make_cids(2);
    const std::vector<rmq::MessageQueue> no_mqs;
    const std::vector<std::string> no_cids;
    const auto run_checks = [&](const auto& policy) {
        REQUIRE_THROWS_MATCHES(policy.allocate(group, "", mqs, cids),
                               rmq::InvalidArgument,
                               Catch::Message("currentCID is empty"));
        REQUIRE_THROWS_MATCHES(policy.allocate(group, "CID_PREFIX0", no_mqs, cids),
                               rmq::InvalidArgument,
                               Catch::Message("mqAll is null or mqAll empty"));
        REQUIRE_THROWS_MATCHES(policy.allocate(group, "CID_PREFIX0", no_mqs, no_cids),
                               rmq::InvalidArgument,
                               Catch::Message("mqAll is null or mqAll empty"));
        REQUIRE_THROWS_MATCHES(policy.allocate(group, "CID_PREFIX0", mqs, no_cids),
                               rmq::InvalidArgument,
                               Catch::Message("cidAll is null or cidAll empty"));
        CHECK(policy.allocate(group, "2147483647", mqs, cids).empty());
    };
    SECTION("AVG") {
        run_checks(rmq::AllocateAveragely{});
    }
    SECTION("AVG_BY_CIRCLE") {
        run_checks(rmq::AllocateAveragelyByCircle{});
    }
    SECTION("CONSISTENT_HASH") {
        run_checks(rmq::AllocateConsistentHash{});
    }
    SECTION("MACHINE_ROOM") {
        run_checks(rmq::AllocateByMachineRoom{{"room1"}});
    }
}

TEST_CASE("CONFIG returns the configured queues to everyone (AllocateMessageQueueByConfigTest)",
          "[allocate]") {
    const auto configured = make_queues(4);
    const rmq::AllocateByConfig config{configured};
    CHECK(config.name() == "CONFIG");
    CHECK(config.message_queue_list() == configured);
    const auto mq_all = make_queues(10);
    const auto cid_all = make_cids(2);
    CHECK(config.allocate(group, "CID_PREFIX0", mq_all, cid_all) == configured);
    CHECK(config.allocate(group, "CID_PREFIX1", mq_all, cid_all) == configured);
    // No check(): even arguments every other strategy rejects return the list.
    CHECK(config.allocate(group, "", {}, {}) == configured);
    CHECK(rmq::AllocateByConfig{}.allocate(group, "CID_PREFIX0", mq_all, cid_all).empty());
}

TEST_CASE("MACHINE_ROOM averages the queues of the configured rooms (AllocateMessageQueueByMachineRoomTest)",
          "[allocate]") {
    std::vector<rmq::MessageQueue> mq_all;
    for (int i = 0; i < 10; ++i) {
        mq_all.push_back(rmq::MessageQueue{"topic", i < 5 ? "room1@broker-a" : "room2@broker-b", i});
    }
    const rmq::AllocateByMachineRoom by_room{{"room1"}};
    CHECK(by_room.name() == "MACHINE_ROOM");
    CHECK(by_room.consumeridcs() == rmq::AllocateByMachineRoom::RoomSet{"room1"});
    const auto cid_all = make_cids(2);
    CHECK(ids(by_room.allocate(group, "CID_PREFIX0", mq_all, cid_all)) == std::vector<std::int32_t>{0, 1, 4});
    CHECK(ids(by_room.allocate(group, "CID_PREFIX1", mq_all, cid_all)) == std::vector<std::int32_t>{2, 3});
    CHECK(by_room.allocate(group, "CID_PREFIX2", mq_all, cid_all).empty());
    REQUIRE_THROWS_MATCHES(by_room.allocate(group, "CID_PREFIX0", {}, cid_all),
                           rmq::InvalidArgument,
                           Catch::Message("mqAll is null or mqAll empty"));

    SECTION("both rooms configured: all ten queues are split") {
        const rmq::AllocateByMachineRoom both{{"room1", "room2"}};
        const auto owner = owners(both, mq_all, make_cids(3));
        CHECK(owner.size() == 10);
    }
    SECTION("no room configured: nothing to consume") {
        CHECK(rmq::AllocateByMachineRoom{}.allocate(group, "CID_PREFIX0", mq_all, cid_all).empty());
    }
}

TEST_CASE("MACHINE_ROOM splits broker names like Java's split(\"@\")", "[allocate]") {
    // Java drops trailing empty pieces: "room1@b@" has two pieces, "room1@" one, "room1@a@b" three.
    const std::vector<rmq::MessageQueue> mq_all{
        {"t", "room1@b", 0},
        {"t", "room1@b@", 1},
        {"t", "room1@b@@", 2},
        {"t", "room1@", 3},
        {"t", "room1@a@b", 4},
        {"t", "room1", 5},
        {"t", "@b", 6},
        {"t", "room2@b", 7},
    };
    const std::vector<std::string> cid_all{"c0"};
    CHECK(ids(rmq::AllocateByMachineRoom{{"room1"}}.allocate(group, "c0", mq_all, cid_all)) ==
          std::vector<std::int32_t>{0, 1, 2});
    CHECK(ids(rmq::AllocateByMachineRoom{{""}}.allocate(group, "c0", mq_all, cid_all)) ==
          std::vector<std::int32_t>{6});
    CHECK(rmq::detail::java_split_at("@").empty());
    CHECK(rmq::detail::java_split_at("") == std::vector<std::string_view>{""});
}

TEST_CASE("CONSISTENT_HASH hashes like ConsistentHashRouter.MD5Hash", "[allocate]") {
    CHECK(rmq::detail::md5_prefix32("CID-0-0") == 0x71479af9U);
    CHECK(rmq::detail::md5_prefix32("CID-0-1") == 0x9ba72d02U);
    CHECK(rmq::detail::md5_prefix32("MessageQueue [topic=topic_test, brokerName=brokerName, queueId=0]") ==
          0x81744117U);
    CHECK(fmt::format("{}", rmq::MessageQueue{"topic_test", "brokerName", 0}) ==
          "MessageQueue [topic=topic_test, brokerName=brokerName, queueId=0]");
}

TEST_CASE("CONSISTENT_HASH golden owners", "[allocate]") {
    const auto owner_index = [](int vnodes, int queues, int consumers) {
        const rmq::AllocateConsistentHash policy{vnodes};
        const auto mq_all = make_queues(queues, "brokerName", "topic_test");
        const auto cid_all = make_cids(consumers, "CID-");
        const auto owner = owners(policy, mq_all, cid_all);
        std::vector<int> out;
        for (const auto& mq : mq_all) {
            out.push_back(std::stoi(owner.at(mq).substr(4)));
        }
        return out;
    };
    CHECK(owner_index(10, 8, 3) == std::vector<int>{2, 0, 1, 2, 2, 2, 0, 0});
    CHECK(owner_index(10, 10, 4) == std::vector<int>{2, 0, 3, 2, 2, 2, 3, 3, 2, 3});
    CHECK(owner_index(10, 6, 2) == std::vector<int>{1, 0, 1, 0, 0, 0});
    CHECK(owner_index(3, 20, 10) ==
          std::vector<int>{7, 8, 7, 0, 2, 0, 3, 3, 0, 3, 5, 5, 7, 8, 8, 5, 9, 5, 0, 0});
    CHECK(owner_index(3, 10, 20) == std::vector<int>{7, 10, 12, 15, 2, 15, 3, 3, 15, 3});
}

TEST_CASE("CONSISTENT_HASH moves only the queues of a leaving or joining consumer "
          "(AllocateMessageQueueConsitentHashTest)",
          "[allocate]") {
    const rmq::AllocateConsistentHash policy{3};
    std::mt19937 rng(20260101);
    std::vector<std::pair<int, int>> shapes{{20, 10}, {10, 20}};
    for (int i = 0; i < 10; ++i) {
        std::uniform_int_distribution<int> size(1, 20);
        shapes.emplace_back(size(rng), size(rng));
    }
    for (const auto& [queues, consumers] : shapes) {
        INFO(queues << " queues, " << consumers << " consumers");
        const auto mq_all = make_queues(queues, "brokerName", "topic_test");
        auto cid_all = make_cids(consumers, "CID-");
        const auto before = owners(policy, mq_all, cid_all);  // (a) every queue exactly once

        auto without = cid_all;
        without.erase(without.begin());  // CID-0 leaves
        const auto after_leave = owners(policy, mq_all, without);
        for (const auto& [mq, cid] : before) {
            if (cid != "CID-0") {
                CHECK(after_leave.at(mq) == cid);  // (b)
            }
        }

        auto with = cid_all;
        with.push_back("CID-NEW");
        const auto after_join = owners(policy, mq_all, with);
        for (const auto& [mq, cid] : after_join) {
            if (cid != "CID-NEW") {
                CHECK(before.at(mq) == cid);  // (c)
            }
        }
    }
}

TEST_CASE("CONSISTENT_HASH virtual node count", "[allocate]") {
    CHECK(rmq::AllocateConsistentHash{}.virtual_node_count() == 10);
    CHECK(rmq::AllocateConsistentHash::name() == "CONSISTENT_HASH");
    REQUIRE_THROWS_MATCHES(
        rmq::AllocateConsistentHash{-1}, rmq::InvalidArgument, Catch::Message("illegal virtualNodeCnt :-1"));
    // No virtual nodes: the ring is empty and Java's routeNode returns null for every queue.
    const rmq::AllocateConsistentHash none{0};
    CHECK(none.allocate(group, "CID_PREFIX0", make_queues(4), make_cids(2)).empty());
}

namespace {

// The resolver of Apache's AllocateMachineRoomNearByTest: room = text before the first '-'.
struct DashRoomResolver {
    static std::string room_of(std::string_view name) { return std::string(name.substr(0, name.find('-'))); }

    std::string broker_deploy_in(const rmq::MessageQueue& mq) const { return room_of(mq.broker_name); }

    std::string consumer_deploy_in(std::string_view client_id) const { return room_of(client_id); }
};

std::vector<rmq::MessageQueue> room_queues(const std::vector<int>& rooms, int per_room) {
    std::vector<rmq::MessageQueue> mqs;
    for (const int k : rooms) {
        for (int i = 0; i < per_room; ++i) {
            mqs.push_back(rmq::MessageQueue{"topic", fmt::format("IDC{}-brokerName", k), i});
        }
    }
    return mqs;
}

std::vector<std::string> room_cids(const std::vector<int>& rooms, int per_room) {
    std::vector<std::string> cids;
    for (const int k : rooms) {
        for (int i = 0; i < per_room; ++i) {
            cids.push_back(fmt::format("IDC{}-CID-{}", k, i));
        }
    }
    return cids;
}

}  // namespace

TEST_CASE("MACHINE_ROOM_NEARBY keeps queues in their room (AllocateMachineRoomNearByTest)", "[allocate]") {
    const rmq::AllocateMachineRoomNearby nearby{rmq::AllocateAveragely{}, DashRoomResolver{}};
    CHECK(nearby.name() == "MACHINE_ROOM_NEARBY-AVG");

    SECTION("equal room counts") {
        for (const int per_room : {10, 20, 30}) {
            const auto mq_all = room_queues({1, 2, 3, 4, 5}, 20);
            const auto cid_all = room_cids({1, 2, 3, 4, 5}, per_room);
            for (const auto& [mq, cid] : owners(nearby, mq_all, cid_all)) {
                CHECK(DashRoomResolver::room_of(mq.broker_name) == DashRoomResolver::room_of(cid));
            }
        }
    }
    SECTION("more consumer rooms than broker rooms") {
        const auto mq_all = room_queues({1, 2, 3, 4, 5}, 20);
        const auto cid_all = room_cids({1, 2, 3, 4, 5, 6}, 7);
        for (const auto& [mq, cid] : owners(nearby, mq_all, cid_all)) {
            CHECK(DashRoomResolver::room_of(mq.broker_name) == DashRoomResolver::room_of(cid));
        }
    }
    SECTION("fewer consumer rooms: orphan rooms are shared by all") {
        const auto mq_all = room_queues({1, 2, 3, 4, 5}, 20);
        const auto cid_all = room_cids({1, 2, 3}, 8);
        std::set<std::string> orphan_takers;
        for (const auto& [mq, cid] : owners(nearby, mq_all, cid_all)) {
            const auto room = DashRoomResolver::room_of(mq.broker_name);
            if (room == "IDC1" || room == "IDC2" || room == "IDC3") {
                CHECK(room == DashRoomResolver::room_of(cid));
            } else {
                orphan_takers.insert(DashRoomResolver::room_of(cid));
            }
        }
        CHECK(orphan_takers == std::set<std::string>{"IDC1", "IDC2", "IDC3"});
    }
    SECTION("own room first, then orphan rooms in name order") {
        const auto mq_all = room_queues({3, 2, 1}, 2);
        const std::vector<std::string> cid_all{"IDC2-CID-0"};
        std::vector<std::string> brokers;
        for (const auto& mq : nearby.allocate(group, "IDC2-CID-0", mq_all, cid_all)) {
            brokers.push_back(mq.broker_name);
        }
        CHECK(brokers == std::vector<std::string>{"IDC2-brokerName",
                                                  "IDC2-brokerName",
                                                  "IDC1-brokerName",
                                                  "IDC1-brokerName",
                                                  "IDC3-brokerName",
                                                  "IDC3-brokerName"});
    }
}

TEST_CASE("MACHINE_ROOM_NEARBY rejects an empty room", "[allocate]") {
    struct Resolver {
        std::string broker_deploy_in(const rmq::MessageQueue& mq) const {
            return mq.queue_id == 3 ? "" : "room";
        }

        std::string consumer_deploy_in(std::string_view client_id) const {
            return client_id == "nowhere" ? "" : "room";
        }
    };

    const rmq::AllocateMachineRoomNearby nearby{rmq::AllocateAveragelyByCircle{}, Resolver{}};
    CHECK(nearby.name() == "MACHINE_ROOM_NEARBY-AVG_BY_CIRCLE");
    const std::vector<std::string> just_c0{"c0"};
    REQUIRE_THROWS_MATCHES(nearby.allocate(group, "c0", make_queues(4), just_c0),
                           rmq::InvalidArgument,
                           Catch::Message("Machine room is null for mq MessageQueue [topic=topic, "
                                          "brokerName=brokerName, queueId=3]"));
    const std::vector<std::string> cids{"c0", "nowhere"};
    REQUIRE_THROWS_MATCHES(nearby.allocate(group, "c0", make_queues(3), cids),
                           rmq::InvalidArgument,
                           Catch::Message("Machine room is null for consumer id nowhere"));
    REQUIRE_THROWS_MATCHES(nearby.allocate(group, "c0", {}, cids),
                           rmq::InvalidArgument,
                           Catch::Message("mqAll is null or mqAll empty"));
    CHECK(nearby.allocate(group, "c9", make_queues(3), cids).empty());
}

TEST_CASE("a const strategy can be shared between threads", "[allocate]") {
    // Several consumers of one process (or a rebalance racing a status query) may share a policy object; the
    // stock strategies keep no mutable state, which TSan checks here.
    const rmq::AllocateConsistentHash hash;
    const rmq::AllocateMachineRoomNearby nearby{rmq::AllocateAveragely{}, DashRoomResolver{}};
    const auto mq_all = room_queues({1, 2, 3}, 16);
    const auto cid_all = room_cids({1, 2}, 5);
    const auto want_hash = hash.allocate(group, cid_all[3], mq_all, cid_all);
    const auto want_nearby = nearby.allocate(group, cid_all[3], mq_all, cid_all);
    std::vector<int> same(4, 0);
    {
        std::vector<std::jthread> threads;
        for (std::size_t t = 0; t < same.size(); ++t) {
            threads.emplace_back([&, t] {
                for (int i = 0; i < 20; ++i) {
                    same[t] += hash.allocate(group, cid_all[3], mq_all, cid_all) == want_hash &&
                               nearby.allocate(group, cid_all[3], mq_all, cid_all) == want_nearby;
                }
            });
        }
    }
    CHECK(same == std::vector<int>(4, 20));
}

}  // namespace strategies_test
