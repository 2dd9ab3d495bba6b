// rmq::AllocateSticky inside real consumers on the embedded broker: the members split the queues the way
// AllocateSticky::split says, consume everything, and a leaving member's queues are taken over.

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <consumer_fixture.hpp>

#include <catch2/catch.hpp>

#include <rmq/allocate/sticky.hpp>
#include <rmq/consumer.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

using StickyConsumer =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateSticky, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

constexpr const char* topic = "StickyTopic";
constexpr int queue_count = 8;

void produce(rmq::InProcessBroker& broker, int from, int to) {
    auto tr = broker.connect();
    for (int i = from; i < to; ++i) {
        (void)tr.send(rmq::Message(topic, "TagA", "m" + std::to_string(i)),
                      broker.queue(topic, i % queue_count));
    }
}

std::set<rmq::MessageQueue> owned(const StickyConsumer& c) {
    std::set<rmq::MessageQueue> out;
    for (const auto& mq : c.assigned_queues()) {
        if (mq.topic == topic) {
            out.insert(mq);
        }
    }
    return out;
}

// True when the members own exactly what AllocateSticky::split gives them.
bool split_as_computed(const std::vector<std::unique_ptr<StickyConsumer>>& members,
                       const std::vector<rmq::MessageQueue>& mq_all) {
    std::vector<std::string> cids;
    for (const auto& m : members) {
        cids.push_back(m->client_id());
    }
    std::sort(cids.begin(), cids.end());
    const auto owner = rmq::AllocateSticky::split(mq_all, cids);
    for (const auto& m : members) {
        std::set<rmq::MessageQueue> expected;
        for (std::size_t q = 0; q < mq_all.size(); ++q) {
            if (owner[q] == m->client_id()) {
                expected.insert(mq_all[q]);
            }
        }
        if (owned(*m) != expected) {
            return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("a group using AllocateSticky consumes everything, before and after a member leaves",
          "[allocate][sticky][consumer]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, queue_count);
    std::vector<rmq::MessageQueue> mq_all;
    for (int i = 0; i < queue_count; ++i) {
        mq_all.push_back(broker.queue(topic, i));
    }
    std::sort(mq_all.begin(), mq_all.end());
    consumer_fixture::BasicRecorder<60> rec;
    std::set<std::string> seen;
    std::vector<std::unique_ptr<StickyConsumer>> members;
    for (int i = 0; i < 3; ++i) {
        members.push_back(std::make_unique<StickyConsumer>(
            broker.connect(), consumer_fixture::fast_config("sticky_group", 10000)));
        members.back()->subscribe(topic, "*");
        members.back()->register_listener(
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                rec.update([&] {
                    for (const auto& m : msgs) {
                        seen.insert(m.body());
                    }
                });
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        members.back()->start();
    }
    const auto wait_split = [&] {
        return consumer_fixture::eventually([&] { return split_as_computed(members, mq_all); },
                                            std::chrono::seconds(60));
    };
    REQUIRE(wait_split());
    produce(broker, 0, 120);
    REQUIRE(rec.wait([&] { return seen.size() == 120; }));

    members.front()->shutdown();
    members.erase(members.begin());
    REQUIRE(wait_split());
    for (const auto& m : members) {
        CHECK(owned(*m).size() == queue_count / 2);
    }
    produce(broker, 120, 180);
    REQUIRE(rec.wait([&] { return seen.size() == 180; }));
    for (const auto& m : members) {
        m->shutdown();
    }
}
