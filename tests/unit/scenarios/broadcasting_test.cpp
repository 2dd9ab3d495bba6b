// Broadcasting: every member consumes every message; a restarted member
// resumes from its local offset file; when that file is corrupted between runs, the `.bak` copy is used.
// The offset files live in a temporary directory, never under $HOME.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "scenario_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/detail/offset_store/offset_file.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace broadcasting_test {

using scenario::eventually;
using scenario::fast_config;
using scenario::Recorder;
using scenario::TempDir;

namespace {

using BroadcastConsumer = rmq::
    Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::LocalFileOffsetStore, rmq::InProcessTransport>;

constexpr int queue_count = 4;

void produce(rmq::InProcessBroker& broker, int count, const std::string& prefix) {
    auto tr = broker.connect();
    for (int i = 0; i < count; ++i) {
        rmq::Message msg("BcastTopic", "TagA", prefix + std::to_string(i));
        (void)tr.send(msg, broker.queue("BcastTopic", i % queue_count));
    }
}

std::string read_all(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// One broadcasting member: its instance name keeps its client id (and so its offset file) apart from the
/// other members of this process, as in Java.
struct Member {
    std::string name;
    std::set<std::string> bodies;
    int deliveries = 0;
};

std::unique_ptr<BroadcastConsumer>
start_member(rmq::InProcessBroker& broker, const TempDir& dir, Member& member, Recorder& rec) {
    auto config = fast_config("bcast_group");
    config.message_model = rmq::MessageModel::Broadcasting;
    config.instance_name = member.name;
    rmq::LocalFileOffsetStore store;
    store.store_dir = dir.path().string();
    auto c = std::make_unique<BroadcastConsumer>(broker.connect(), config, std::move(store));
    c->subscribe("BcastTopic", "*");
    c->register_listener(
        [&member, &rec](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
            rec.update([&] {
                for (const auto& m : msgs) {
                    member.bodies.insert(m.body());
                    ++member.deliveries;
                }
            });
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    c->start();
    return c;
}

}  // namespace

TEST_CASE(
    "broadcasting: every member gets every message, a restart resumes from the local file, .bak fallback",
    "[scenario][broadcasting]") {
    rmq::InProcessBroker broker;
    broker.create_topic("BcastTopic", queue_count);
    TempDir dir("scenario-bcast");
    Recorder rec;
    produce(broker, 100, "a");

    std::vector<Member> members{{"b1", {}, 0}, {"b2", {}, 0}, {"b3", {}, 0}};
    std::filesystem::path b1_file;
    {
        std::vector<std::unique_ptr<BroadcastConsumer>> consumers;
        for (auto& m : members) {
            consumers.push_back(start_member(broker, dir, m, rec));
        }
        for (const auto& c : consumers) {
            // Every member owns every queue: broadcasting does not split.
            CHECK(eventually([&] { return c->assigned_queues().size() == queue_count; }));
        }
        REQUIRE(rec.wait([&] {
            for (const auto& m : members) {
                if (m.bodies.size() < 100) {
                    return false;
                }
            }
            return true;
        }));
        b1_file = consumers[0]->offset_store().file_path();
        for (auto& c : consumers) {
            c->shutdown();
        }
    }
    rec.read([&] {
        for (const auto& m : members) {
            INFO(m.name);
            CHECK(m.bodies.size() == 100);
            CHECK(m.deliveries == 100);
        }
        return 0;
    });
    // Broadcasting keeps nothing at the broker: the progress is in each member's own file.
    CHECK_FALSE(broker.consumer_offset("bcast_group", broker.queue("BcastTopic", 0)).has_value());
    REQUIRE(std::filesystem::exists(b1_file));
    CHECK(b1_file.string().find(dir.path().string()) == 0);
    {
        const auto table = rmq::detail::parse_offset_file(read_all(b1_file));
        for (int q = 0; q < queue_count; ++q) {
            const auto it = table.find(broker.queue("BcastTopic", q));
            REQUIRE(it != table.end());
            CHECK(it->second == 25);
        }
    }

    SECTION("a restarted member resumes from its file") {
        produce(broker, 60, "b");
        Member again{"b1", {}, 0};
        auto c = start_member(broker, dir, again, rec);
        REQUIRE(rec.wait([&] { return again.bodies.size() >= 60; }));
        c->shutdown();
        rec.read([&] {
            CHECK(again.deliveries == 60);  // none of the 100 consumed before the restart
            for (const auto& body : again.bodies) {
                CHECK(body.front() == 'b');
            }
            return 0;
        });
    }

    SECTION("a corrupted file falls back to its .bak") {
        // A second run writes the file again, so the first run's good file becomes the .bak.
        produce(broker, 20, "b");
        {
            Member again{"b1", {}, 0};
            auto c = start_member(broker, dir, again, rec);
            REQUIRE(rec.wait([&] { return again.bodies.size() >= 20; }));
            c->shutdown();
        }
        const auto bak_path = std::filesystem::path(b1_file.string() + ".bak");
        REQUIRE(std::filesystem::exists(bak_path));
        const auto bak = rmq::detail::parse_offset_file(read_all(bak_path));
        std::int64_t bak_total = 0;
        for (const auto& [mq, offset] : bak) {
            bak_total += offset;
        }
        REQUIRE(bak_total >= 100);  // the backup holds real progress (a start from 0 would be visible)
        {
            std::ofstream out(b1_file, std::ios::binary | std::ios::trunc);
            out << "{\"offsetTable\":{ this is not json";
        }
        produce(broker, 40, "c");
        // Expected: exactly what lies at or after the .bak offsets.
        std::set<std::string> expected;
        for (int q = 0; q < queue_count; ++q) {
            const auto mq = broker.queue("BcastTopic", q);
            const auto it = bak.find(mq);
            REQUIRE(it != bak.end());
            for (const auto& m : broker.messages("BcastTopic", q, it->second)) {
                expected.insert(m.body());
            }
        }
        Member third{"b1", {}, 0};
        auto c = start_member(broker, dir, third, rec);
        REQUIRE(rec.wait([&] { return third.bodies.size() >= expected.size(); }));
        c->shutdown();
        rec.read([&] {
            CHECK(third.bodies == expected);
            CHECK(third.deliveries == static_cast<int>(expected.size()));
            return 0;
        });
        // The run rewrote a good main file holding everything consumed, and the backup survived the
        // corruption: it is the old backup or a later write of this run, never less than the progress it
        // held.
        const auto main_table = rmq::detail::parse_offset_file(read_all(b1_file));
        const auto bak_after = rmq::detail::parse_offset_file(read_all(bak_path));
        CHECK(main_table.size() == static_cast<std::size_t>(queue_count));
        CHECK(bak_after.size() == static_cast<std::size_t>(queue_count));
        for (int q = 0; q < queue_count; ++q) {
            const auto mq = broker.queue("BcastTopic", q);
            CAPTURE(q);
            REQUIRE(main_table.contains(mq));
            REQUIRE(bak_after.contains(mq));
            CHECK(main_table.at(mq) == broker.max_offset(mq));
            CHECK(bak_after.at(mq) >= bak.at(mq));
            CHECK(bak_after.at(mq) <= broker.max_offset(mq));
        }
    }
}

}  // namespace broadcasting_test
