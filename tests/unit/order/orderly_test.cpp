// Orderly consumption end to end on the embedded broker.

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace orderly_test {

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::Recorder;

namespace {

using OrderlyConsumer =
    rmq::Consumer<rmq::Orderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;
using Status = rmq::ConsumeOrderlyStatus;

std::int64_t
stored_offset(rmq::InProcessBroker& broker, const std::string& group, const rmq::MessageQueue& mq) {
    return broker.consumer_offset(group, mq).value_or(-1);
}

}  // namespace

TEST_CASE("orderly: each order's steps arrive in sequence, one at a time per queue", "[consumer][orderly]") {
    constexpr int queues = 8;
    constexpr int orders = 10;
    constexpr int steps = 20;
    rmq::InProcessBroker broker;
    broker.create_topic("Orders", queues);
    {
        auto tr = broker.connect();
        for (int step = 0; step < steps; ++step) {
            for (int order = 0; order < orders; ++order) {
                rmq::Message msg("Orders", "TagA", std::to_string(order) + ":" + std::to_string(step));
                (void)tr.send(msg, broker.queue("Orders", order % queues));
            }
        }
    }
    Recorder rec;
    std::map<int, std::vector<int>> seen;
    std::map<int, int> in_flight;  // per queue
    bool overlap = false;
    int total = 0;
    OrderlyConsumer consumer{broker.connect(), fast_config("og_basic")};
    consumer.subscribe("Orders", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext& ctx) {
        const int q = ctx.message_queue().queue_id;
        rec.update([&] { overlap = overlap || ++in_flight[q] > 1; });
        for (const auto& m : msgs) {
            const auto colon = m.body().find(':');
            const int order = std::stoi(m.body().substr(0, colon));
            const int step = std::stoi(m.body().substr(colon + 1));
            rec.update([&] {
                seen[order].push_back(step);
                ++total;
            });
        }
        rec.update([&] { --in_flight[q]; });
        return Status::Success;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return total >= orders * steps; }));
    consumer.shutdown();
    rec.read([&] {
        CHECK_FALSE(overlap);
        for (int order = 0; order < orders; ++order) {
            std::vector<int> expected(steps);
            for (int i = 0; i < steps; ++i) {
                expected[static_cast<std::size_t>(i)] = i;
            }
            CHECK(seen[order] == expected);
        }
        return 0;
    });
    for (int q = 0; q < queues; ++q) {
        const auto mq = broker.queue("Orders", q);
        CHECK(stored_offset(broker, "og_basic", mq) == broker.max_offset(mq));
        CHECK_FALSE(broker.lock_owner("og_basic", mq).has_value());  // released at shutdown
    }
}

TEST_CASE("orderly: a queue is locked at the broker while consumed", "[consumer][orderly]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Locked", 2);
    produce(broker, "Locked", 2, 2);
    Recorder rec;
    int total = 0;
    OrderlyConsumer consumer{broker.connect(), fast_config("og_lock")};
    consumer.subscribe("Locked", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        rec.update([&] { total += static_cast<int>(msgs.size()); });
        return Status::Success;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return total >= 2; }));
    CHECK(broker.lock_owner("og_lock", broker.queue("Locked", 0)) == consumer.client_id());
    CHECK(broker.lock_owner("og_lock", broker.queue("Locked", 1)) == consumer.client_id());
    CHECK(broker.lock_requests("og_lock") > 0);
    consumer.shutdown();
}

namespace {

/// The broker-backed store, counting the consumer's periodic persists (a test sees that one ran).
std::atomic<int> persist_rounds{0};

using CountingStore = consumer_test::PersistCountingStore<&persist_rounds>;

}  // namespace

TEST_CASE("orderly: a member whose queue lock expired commits no offset for it", "[consumer][orderly]") {
    // A paused member, or one cut off from the broker, may find on its return that another member took the
    // queue and moved its offset: committing its own older offset then would rewind the new owner's progress.
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::BrokerConfig broker_config;
    broker_config.clock = clock;
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("Expired", 1);
    produce(broker, "Expired", 1, 10);
    const auto mq = broker.queue("Expired", 0);
    Recorder rec;
    int total = 0;
    rmq::Consumer<rmq::Orderly, rmq::AllocateAveragely, CountingStore, rmq::InProcessTransport> consumer{
        broker.connect(), fast_config("og_expired")};
    consumer.subscribe("Expired", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        rec.update([&] { total += static_cast<int>(msgs.size()); });
        return Status::Success;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return total == 10; }));
    REQUIRE(eventually([&] { return broker.consumer_offset("og_expired", mq).value_or(-1) == 10; }));

    // The lock cannot be renewed and expires; meanwhile "a new owner" commits its own progress.
    broker.inject_failure(rmq::BrokerRequest::LockBatch, rmq::response_code::system_error, 1'000'000);
    clock->advance(std::chrono::seconds(61));
    broker.connect().update_consumer_offset("og_expired", mq, 4);
    const int rounds = persist_rounds.load();
    REQUIRE(eventually([&] { return persist_rounds.load() >= rounds + 5; }));
    CHECK(broker.consumer_offset("og_expired", mq).value_or(-1) == 4);

    // Renewed, the lock lets it consume and commit again.
    broker.inject_failure(rmq::BrokerRequest::LockBatch, 0, 0);
    produce(broker, "Expired", 1, 1, "after");
    REQUIRE(rec.wait([&] { return total == 11; }));
    CHECK(eventually([&] { return broker.consumer_offset("og_expired", mq).value_or(-1) == 11; }));
    consumer.shutdown();
}

TEST_CASE("orderly autoCommit=true: Success, Commit and Rollback all commit the batch",
          "[consumer][orderly][status]") {
    const auto status = GENERATE(Status::Success, Status::Commit, Status::Rollback);
    rmq::InProcessBroker broker;
    broker.create_topic("AutoOk", 1);
    produce(broker, "AutoOk", 1, 3);
    Recorder rec;
    std::vector<std::string> seen;
    OrderlyConsumer consumer{broker.connect(), fast_config("og_auto_ok")};
    consumer.subscribe("AutoOk", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        rec.update([&] { seen.push_back(msgs.front().body()); });
        return status;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 3; }));
    const auto mq = broker.queue("AutoOk", 0);
    REQUIRE(eventually([&] { return stored_offset(broker, "og_auto_ok", mq) == 3; }));
    consumer.shutdown();
    CHECK(rec.read([&] { return seen; }) == std::vector<std::string>{"m0", "m1", "m2"});
}

TEST_CASE("orderly autoCommit=true: Suspend retries the same message first, with reconsume times counted",
          "[consumer][orderly][status]") {
    rmq::InProcessBroker broker;
    broker.create_topic("AutoSuspend", 1);
    produce(broker, "AutoSuspend", 1, 2);
    Recorder rec;
    std::vector<std::pair<std::string, int>> seen;
    OrderlyConsumer consumer{broker.connect(), fast_config("og_auto_suspend")};
    consumer.subscribe("AutoSuspend", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext& ctx) {
        ctx.set_suspend_current_queue_time_millis(5);  // clamped to 10 ms
        bool suspend = false;
        rec.update([&] {
            seen.emplace_back(msgs.front().body(), msgs.front().reconsume_times());
            suspend = msgs.front().body() == "m0" && msgs.front().reconsume_times() < 2;
        });
        return suspend ? Status::SuspendCurrentQueueAMoment : Status::Success;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 4; }));
    REQUIRE(eventually(
        [&] { return stored_offset(broker, "og_auto_suspend", broker.queue("AutoSuspend", 0)) == 2; }));
    consumer.shutdown();
    const std::vector<std::pair<std::string, int>> expected{{"m0", 0}, {"m0", 1}, {"m0", 2}, {"m1", 0}};
    CHECK(rec.read([&] { return seen; }) == expected);
    CHECK(broker.messages("%DLQ%og_auto_suspend", 0).empty());
}

TEST_CASE("orderly: past max_reconsume_times the message goes to the DLQ and the queue moves on",
          "[consumer][orderly][dlq]") {
    rmq::InProcessBroker broker;
    broker.create_topic("OrderlyDlq", 1);
    produce(broker, "OrderlyDlq", 1, 2);
    auto config = fast_config("og_dlq");
    config.max_reconsume_times = 2;
    Recorder rec;
    std::vector<std::pair<std::string, int>> seen;
    OrderlyConsumer consumer{broker.connect(), config};
    consumer.subscribe("OrderlyDlq", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        bool fail = false;
        rec.update([&] {
            seen.emplace_back(msgs.front().body(), msgs.front().reconsume_times());
            fail = msgs.front().body() == "m0";
        });
        return fail ? Status::SuspendCurrentQueueAMoment : Status::Success;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return !seen.empty() && seen.back().first == "m1"; }));
    REQUIRE(eventually([&] { return stored_offset(broker, "og_dlq", broker.queue("OrderlyDlq", 0)) == 2; }));
    consumer.shutdown();
    const std::vector<std::pair<std::string, int>> expected{{"m0", 0}, {"m0", 1}, {"m0", 2}, {"m1", 0}};
    CHECK(rec.read([&] { return seen; }) == expected);
    const auto dlq = broker.messages("%DLQ%og_dlq", 0);
    REQUIRE(dlq.size() == 1);
    CHECK(dlq.front().body() == "m0");
}

TEST_CASE("orderly autoCommit=false: Success keeps the offset, Commit commits everything taken",
          "[consumer][orderly][status]") {
    rmq::InProcessBroker broker;
    broker.create_topic("ManualCommit", 1);
    produce(broker, "ManualCommit", 1, 3);
    const auto mq = broker.queue("ManualCommit", 0);
    Recorder rec;
    std::vector<std::int64_t> offsets_seen;  // in-memory offset when each batch arrives
    int calls = 0;
    OrderlyConsumer consumer{broker.connect(), fast_config("og_manual")};
    consumer.subscribe("ManualCommit", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt>, rmq::ConsumeOrderlyContext& ctx) {
        ctx.set_auto_commit(false);
        const auto off = consumer.offset_store().read_offset(mq, rmq::ReadOffsetType::ReadFromMemory);
        int n = 0;
        rec.update([&] {
            offsets_seen.push_back(off);
            n = ++calls;
        });
        return n < 3 ? Status::Success : Status::Commit;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return calls >= 3; }));
    REQUIRE(eventually([&] { return stored_offset(broker, "og_manual", mq) == 3; }));
    consumer.shutdown();
    rec.read([&] {
        REQUIRE(offsets_seen.size() == 3);
        CHECK(offsets_seen[1] < 1);  // Success without auto-commit did not move the offset
        CHECK(offsets_seen[2] < 1);
        return 0;
    });
    CHECK(rec.read([&] { return calls; }) == 3);
}

TEST_CASE("orderly autoCommit=false: Rollback redelivers every uncommitted message in order",
          "[consumer][orderly][status]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Rollback", 1);
    produce(broker, "Rollback", 1, 3);
    Recorder rec;
    std::vector<std::string> seen;
    OrderlyConsumer consumer{broker.connect(), fast_config("og_rollback")};
    consumer.subscribe("Rollback", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext& ctx) {
        ctx.set_auto_commit(false);
        Status answer = Status::Success;
        rec.update([&] {
            seen.push_back(msgs.front().body());
            if (seen.size() == 2) {
                answer = Status::Rollback;  // m0 (Success, uncommitted), m1 → roll both back
            } else if (msgs.front().body() == "m2") {
                answer = Status::Commit;
            }
        });
        return answer;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 5; }));
    REQUIRE(
        eventually([&] { return stored_offset(broker, "og_rollback", broker.queue("Rollback", 0)) == 3; }));
    consumer.shutdown();
    CHECK(rec.read([&] { return seen; }) == std::vector<std::string>{"m0", "m1", "m0", "m1", "m2"});
}

TEST_CASE("orderly autoCommit=false: Suspend retries the message with reconsume times counted",
          "[consumer][orderly][status]") {
    rmq::InProcessBroker broker;
    broker.create_topic("ManualSuspend", 1);
    produce(broker, "ManualSuspend", 1, 1);
    Recorder rec;
    std::vector<int> times;
    OrderlyConsumer consumer{broker.connect(), fast_config("og_manual_suspend")};
    consumer.subscribe("ManualSuspend", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext& ctx) {
        ctx.set_auto_commit(false);
        std::size_t n = 0;
        rec.update([&] {
            times.push_back(msgs.front().reconsume_times());
            n = times.size();
        });
        return n == 1 ? Status::SuspendCurrentQueueAMoment : Status::Commit;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return times.size() >= 2; }));
    REQUIRE(eventually(
        [&] { return stored_offset(broker, "og_manual_suspend", broker.queue("ManualSuspend", 0)) == 1; }));
    consumer.shutdown();
    CHECK(rec.read([&] { return times; }) == std::vector<int>{0, 1});
}

TEST_CASE("orderly: a throwing listener suspends the queue and retries", "[consumer][orderly][status]") {
    rmq::InProcessBroker broker;
    broker.create_topic("OrderlyThrow", 1);
    produce(broker, "OrderlyThrow", 1, 1);
    Recorder rec;
    std::vector<int> times;
    OrderlyConsumer consumer{broker.connect(), fast_config("og_throw")};
    consumer.subscribe("OrderlyThrow", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        std::size_t n = 0;
        rec.update([&] {
            times.push_back(msgs.front().reconsume_times());
            n = times.size();
        });
        if (n == 1) {
            throw std::runtime_error("orderly listener failure");
        }
        return Status::Success;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return times.size() >= 2; }));
    consumer.shutdown();
    CHECK(rec.read([&] { return times; }) == std::vector<int>{0, 1});
}

}  // namespace orderly_test
