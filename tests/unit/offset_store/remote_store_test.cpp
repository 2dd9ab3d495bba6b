#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/protocol.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace remote_store_test {

namespace {

const std::string topic = "FooBar";
const std::string broker = "DefaultBrokerName";

rmq::MessageQueue queue(int id) {
    return rmq::MessageQueue{topic, broker, id};
}

/// A broker that remembers the last committed offset per queue (the fixture of RemoteBrokerOffsetStoreTest).
struct FakeBroker {
    std::mutex mutex;
    std::map<rmq::MessageQueue, std::int64_t> committed;
    std::vector<std::pair<rmq::MessageQueue, std::int64_t>> updates;

    rmq::OffsetStoreContext context() {
        rmq::OffsetStoreContext ctx;
        ctx.group = "FooBarGroup";
        ctx.client_id = "127.0.0.1@test";
        ctx.query_broker = [this](const rmq::MessageQueue& mq) -> std::optional<std::int64_t> {
            const std::lock_guard lock(mutex);
            if (auto it = committed.find(mq); it != committed.end()) {
                return it->second;
            }
            return std::nullopt;
        };
        ctx.update_broker = [this](const rmq::MessageQueue& mq, std::int64_t offset) {
            const std::lock_guard lock(mutex);
            committed[mq] = offset;
            updates.emplace_back(mq, offset);
        };
        return ctx;
    }
};

}  // namespace

TEST_CASE("remote store: update offset sets, increase-only never lowers (12.7 testUpdateOffset)",
          "[remote]") {
    rmq::RemoteOffsetStore store;
    FakeBroker b;
    store.load(b.context());
    const auto mq = queue(1);
    store.update_offset(mq, 1024, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1024);
    store.update_offset(mq, 1023, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1023);
    store.update_offset(mq, 1022, true);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1023);
    store.update_offset(mq, 2000, true);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 2000);
}

TEST_CASE("remote store: a frozen offset ignores updates until removed (12.7 5.x freeze)", "[remote]") {
    rmq::RemoteOffsetStore store;
    const auto mq = queue(1);
    store.update_and_freeze_offset(mq, 1024);
    store.update_offset(mq, 1023, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1024);
    store.update_offset(mq, 1022, true);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1024);
    store.update_offset(mq, 5000, true);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1024);
    store.remove_offset(mq);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == -1);
    store.update_offset(mq, 1023, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1023);
}

TEST_CASE("remote store: ControllableOffset cases (12.7 5.x)", "[remote]") {
    const auto mq = queue(7);
    {
        rmq::RemoteOffsetStore s;
        s.update_and_freeze_offset(mq, 100);
        s.update_offset(mq, 200, false);
        REQUIRE(s.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 100);
    }
    {
        rmq::RemoteOffsetStore s;
        s.update_offset(mq, 200, false);
        REQUIRE(s.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 200);
        s.update_offset(mq, 100, true);
        REQUIRE(s.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 200);
    }
    {
        rmq::RemoteOffsetStore s;
        s.update_offset(mq, 100, false);
        s.update_offset(mq, 200, true);
        REQUIRE(s.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 200);
    }
}

TEST_CASE("remote store: read from store maps failures like RocketMQ 5.x (12.7 testReadOffset_WithException)",
          "[remote]") {
    rmq::RemoteOffsetStore store;
    auto ctx = FakeBroker{}.context();
    const auto mq = queue(2);
    int mode = 0;
    ctx.query_broker = [&mode](const rmq::MessageQueue&) -> std::optional<std::int64_t> {
        switch (mode) {
        case 0:
            return std::nullopt;
        case 1:
            throw rmq::BrokerError(rmq::response_code::query_not_found, "not found");
        case 2:
            throw rmq::BrokerError(-1, "broker failure");
        case 3:
            throw rmq::BrokerError(rmq::response_code::system_error, "system error");
        default:
            throw rmq::Error("connection refused");
        }
    };
    store.load(ctx);
    store.update_offset(mq, 1024, false);
    mode = 0;
    CHECK(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == -1);
    mode = 1;
    CHECK(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == -1);
    mode = 2;
    CHECK(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == -2);
    mode = 3;
    CHECK(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == -2);
    mode = 4;
    CHECK(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == -2);
    // Memory is untouched by failed reads.
    CHECK(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1024);
    CHECK(store.read_offset(mq, rmq::ReadOffsetType::MemoryFirstThenStore) == 1024);
}

TEST_CASE("remote store: persisted offsets read back from the broker (12.7 testReadOffset_Success)",
          "[remote]") {
    rmq::RemoteOffsetStore store;
    FakeBroker b;
    store.load(b.context());
    const auto mq = queue(3);
    store.update_offset(mq, 1024, false);
    store.persist(mq);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == 1024);
    store.update_offset(mq, 1023, false);
    store.persist(mq);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == 1023);
    store.update_offset(mq, 1022, true);
    store.persist(mq);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == 1023);
    store.update_offset(mq, 1025, false);
    const std::vector<rmq::MessageQueue> mqs{mq};
    store.persist_all(mqs);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == 1025);
}

TEST_CASE("remote store: read from store refreshes memory, memory-first falls back to the broker",
          "[remote]") {
    rmq::RemoteOffsetStore store;
    FakeBroker b;
    store.load(b.context());
    const auto mq = queue(5);
    b.committed[mq] = 77;
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == -1);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::MemoryFirstThenStore) == 77);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 77);
    store.update_offset(mq, 90, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::MemoryFirstThenStore) == 90);
    // READ_FROM_STORE overwrites memory even when lower (updateOffset(..., false)).
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == 77);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 77);
}

TEST_CASE("remote store: not started reads -2 from the store", "[remote]") {
    rmq::RemoteOffsetStore store;
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromStore) == -2);
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::MemoryFirstThenStore) == -2);
}

TEST_CASE("remote store: remove offset (12.7 testRemoveOffset)", "[remote]") {
    rmq::RemoteOffsetStore store;
    const auto mq = queue(4);
    store.update_offset(mq, 1024, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1024);
    store.remove_offset(mq);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == -1);
}

TEST_CASE("remote store: persist_all sends every owned entry, even unchanged, and drops the others",
          "[remote]") {
    rmq::RemoteOffsetStore store;
    FakeBroker b;
    store.load(b.context());
    store.update_offset(queue(0), 10, false);
    store.update_offset(queue(1), 11, false);
    store.update_offset(queue(2), 12, false);
    const std::vector<rmq::MessageQueue> owned{queue(0), queue(2), queue(9)};
    store.persist_all(owned);
    REQUIRE(b.updates.size() == 2);
    CHECK(b.committed.at(queue(0)) == 10);
    CHECK(b.committed.at(queue(2)) == 12);
    CHECK_FALSE(b.committed.contains(queue(1)));
    CHECK_FALSE(b.committed.contains(queue(9)));  // owned but no in-memory entry: nothing sent
    CHECK(store.read_offset(queue(1), rmq::ReadOffsetType::ReadFromMemory) == -1);
    CHECK(store.offset_table() == std::map<rmq::MessageQueue, std::int64_t>{{queue(0), 10}, {queue(2), 12}});

    store.persist_all(owned);  // unchanged offsets are sent again every period
    REQUIRE(b.updates.size() == 4);

    store.persist_all({});  // an empty set does nothing (and drops nothing)
    REQUIRE(b.updates.size() == 4);
    CHECK(store.offset_table().size() == 2);
}

TEST_CASE("remote store: persist of an unknown queue sends nothing", "[remote]") {
    rmq::RemoteOffsetStore store;
    FakeBroker b;
    store.load(b.context());
    store.persist(queue(3));
    REQUIRE(b.updates.empty());
}

TEST_CASE("remote store: a failing oneway update is reported, not thrown", "[remote]") {
    rmq::RemoteOffsetStore store;
    auto ctx = FakeBroker{}.context();
    ctx.update_broker = [](const rmq::MessageQueue&, std::int64_t) {
        throw rmq::Error("no route to broker");
    };
    std::vector<std::string> errors;
    store.on_persist_error = [&errors](const rmq::MessageQueue& mq, std::string_view why) {
        errors.push_back(fmt::format("{}: {}", mq, why));
    };
    store.load(ctx);
    store.update_offset(queue(1), 5, false);
    store.update_offset(queue(2), 6, false);
    const std::vector<rmq::MessageQueue> owned{queue(1), queue(2)};
    REQUIRE_NOTHROW(store.persist_all(owned));
    REQUIRE_NOTHROW(store.persist(queue(1)));
    REQUIRE(errors.size() == 3);
    CHECK(errors[0].find("no route to broker") != std::string::npos);
    CHECK(errors[0].find("queueId=1") != std::string::npos);
}

TEST_CASE("remote store: clone_offset_table filters by topic", "[remote]") {
    rmq::RemoteOffsetStore store;
    store.update_offset(queue(3), 1024, false);
    store.update_offset(rmq::MessageQueue{"Other", broker, 0}, 1, false);
    const auto clone = store.clone_offset_table(topic);
    REQUIRE(clone.size() == 1);
    REQUIRE(clone.at(queue(3)) == 1024);
    REQUIRE(store.clone_offset_table("").size() == 2);
}

TEST_CASE("remote store: concurrent increase-only updates keep the maximum while persisting",
          "[remote][threads]") {
    rmq::RemoteOffsetStore store;
    FakeBroker b;
    store.load(b.context());
    constexpr int threads = 4;
    constexpr int per_thread = 2000;
    std::vector<rmq::MessageQueue> owned{queue(0), queue(1)};
    std::atomic<bool> stop{false};
    std::thread persister([&] {
        while (!stop.load()) {
            store.persist_all(owned);
        }
    });
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&store, t] {
            for (int i = 0; i < per_thread; ++i) {
                store.update_offset(queue(i % 2), static_cast<std::int64_t>(i) * threads + t, true);
            }
        });
    }
    for (auto& w : workers) {
        w.join();
    }
    stop = true;
    persister.join();
    store.persist_all(owned);
    const std::int64_t max0 = static_cast<std::int64_t>(per_thread - 2) * threads + (threads - 1);
    const std::int64_t max1 = static_cast<std::int64_t>(per_thread - 1) * threads + (threads - 1);
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromMemory) == max0);
    REQUIRE(store.read_offset(queue(1), rmq::ReadOffsetType::ReadFromMemory) == max1);
    REQUIRE(b.committed.at(queue(0)) == max0);
    REQUIRE(b.committed.at(queue(1)) == max1);
}

TEST_CASE("memory store: update, read, remove - store reads are memory reads", "[memory]") {
    rmq::MemoryOffsetStore store;
    store.load({});
    const auto mq = queue(1);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == -1);
    store.update_offset(mq, 1024, false);
    store.update_offset(mq, 1023, false);
    store.update_offset(mq, 1022, true);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1023);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == 1023);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::MemoryFirstThenStore) == 1023);
    const std::vector<rmq::MessageQueue> mqs{mq};
    store.persist_all(mqs);
    store.persist(mq);
    REQUIRE(store.offset_table() == std::map<rmq::MessageQueue, std::int64_t>{{mq, 1023}});
    store.remove_offset(mq);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == -1);
    REQUIRE(store.offset_table().empty());
}

TEST_CASE("memory store: moving keeps the table", "[memory]") {
    rmq::MemoryOffsetStore a;
    a.update_offset(queue(1), 5, false);
    rmq::MemoryOffsetStore b(std::move(a));
    REQUIRE(b.read_offset(queue(1), rmq::ReadOffsetType::ReadFromMemory) == 5);
    rmq::MemoryOffsetStore c;
    c = std::move(b);
    REQUIRE(c.read_offset(queue(1), rmq::ReadOffsetType::ReadFromMemory) == 5);
}

}  // namespace remote_store_test
