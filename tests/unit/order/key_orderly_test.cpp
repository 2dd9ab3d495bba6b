// rmq::KeyOrderly end to end on the embedded broker: per-key order, concurrency between keys of one queue,
// statuses scoped to the key, the DLQ, the min-offset commit and hand-over between members.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/order/key_orderly.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::Recorder;

namespace {

using Status = rmq::ConsumeOrderlyStatus;
template <class Order>
using ConsumerOf =
    rmq::Consumer<Order, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;
using KeyConsumer = ConsumerOf<rmq::KeyOrderly>;

std::int64_t
stored_offset(rmq::InProcessBroker& broker, const std::string& group, const rmq::MessageQueue& mq) {
    return broker.consumer_offset(group, mq).value_or(-1);
}

/// Sends `per_key` messages "<key>:<seq>" for each of `keys` keys "k<i>", interleaved (seq-major), key i to
/// queue i % queues (a producer routing one key to one queue).
void produce_keyed(
    rmq::InProcessBroker& broker, const std::string& topic, int queues, int keys, int per_key) {
    auto tr = broker.connect();
    for (int seq = 0; seq < per_key; ++seq) {
        for (int k = 0; k < keys; ++k) {
            // fmt, not std::string concatenation: g++ 12 at -O3 reports false -Wstringop-overflow on that.
            const std::string key = fmt::format("k{}", k);
            rmq::Message msg(topic, "TagA", key, fmt::format("{}:{}", key, seq));
            (void)tr.send(msg, broker.queue(topic, k % queues));
        }
    }
}

void send_one(rmq::InProcessBroker& broker,
              const std::string& topic,
              const std::string& key,
              const std::string& body) {
    auto tr = broker.connect();
    rmq::Message msg(topic, "TagA", key, body);
    (void)tr.send(msg, broker.queue(topic, 0));
}

int seq_of(const rmq::MessageExt& m) {
    return std::stoi(m.body().substr(m.body().find(':') + 1));
}

/// What listener calls did, recorded under the recorder's lock and checked on the test thread.
struct KeyLog {
    std::map<std::string, std::vector<int>> seqs;  // per key, in call order
    std::map<std::string, int> in_flight;          // per key
    int running = 0;                               // calls running now (all keys)
    int max_running = 0;
    bool key_overlap = false;  // two calls of one key at once
    bool mixed_keys = false;   // a call with messages of two keys
    int total = 0;

    void enter(std::span<const rmq::MessageExt> msgs) {
        const std::string key(rmq::FirstKey{}(msgs.front()));
        key_overlap = key_overlap || ++in_flight[key] > 1;
        max_running = std::max(max_running, ++running);
        for (const auto& m : msgs) {
            mixed_keys = mixed_keys || rmq::FirstKey{}(m) != key;
            seqs[key].push_back(seq_of(m));
            ++total;
        }
    }

    void leave(std::span<const rmq::MessageExt> msgs) {
        --in_flight[std::string(rmq::FirstKey{}(msgs.front()))];
        --running;
    }

    /// Per key: a message seen for the first time is the next one of its key (redeliveries may go back, never
    /// skip ahead): no key consumed out of order.
    [[nodiscard]] int order_violations() const {
        int violations = 0;
        for (const auto& [key, seen] : seqs) {
            int max_seen = -1;
            for (const int s : seen) {
                violations += s > max_seen + 1 ? 1 : 0;
                max_seen = std::max(max_seen, s);
            }
        }
        return violations;
    }

    /// Every message "<key>:<seq>" with seq < per_key of `keys` keys was consumed at least once.
    [[nodiscard]] bool complete(int keys, int per_key) const {
        for (int k = 0; k < keys; ++k) {
            const auto it = seqs.find(fmt::format("k{}", k));
            if (it == seqs.end() || *std::max_element(it->second.begin(), it->second.end()) < per_key - 1) {
                return false;
            }
        }
        return true;
    }
};

/// A listener that records into `log` and sleeps `sleep_ms` per call (a slow database write).
template <class Rec>
auto recording_listener(Rec& rec, KeyLog& log, int sleep_ms) {
    return [&rec, &log, sleep_ms](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        rec.update([&] { log.enter(msgs); });
        if (sleep_ms > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
        }
        rec.update([&] { log.leave(msgs); });
        return Status::Success;
    };
}

}  // namespace

TEST_CASE("key orderly: the policies model the order-policy concept", "[consumer][key_orderly]") {
    STATIC_REQUIRE(rmq::OrderPolicy<rmq::KeyOrderly>);
    STATIC_REQUIRE(rmq::OrderPolicy<rmq::KeyOrderlyBy<rmq::FirstKey, 2>>);
    STATIC_REQUIRE(rmq::KeyOrderly::requires_queue_lock);
    STATIC_REQUIRE(std::is_same_v<rmq::KeyOrderly::Listener, rmq::Orderly::Listener>);
    STATIC_REQUIRE(rmq::KeyOrderly::max_in_flight_per_queue == 16);
}

TEST_CASE("key orderly: the key is the first of the KEYS property, empty when absent",
          "[consumer][key_orderly]") {
    rmq::MessageExt m;
    CHECK(rmq::FirstKey{}(m).empty());
    m.set_keys("order-7 account-3");
    CHECK(rmq::FirstKey{}(m) == "order-7");
    m.set_keys("  lone");
    CHECK(rmq::FirstKey{}(m) == "lone");
}

TEST_CASE(
    "key orderly: per-key order holds with many keys and threads, one key per call, never two calls of a key",
    "[consumer][key_orderly]") {
    constexpr int queues = 4;
    constexpr int keys = 40;
    constexpr int per_key = 25;
    rmq::InProcessBroker broker;
    broker.create_topic("KeyOrder", queues);
    produce_keyed(broker, "KeyOrder", queues, keys, per_key);
    auto config = fast_config("ko_order");
    config.consume_thread_min = config.consume_thread_max = 8;
    config.consume_message_batch_max_size = GENERATE(1, 3);
    Recorder rec;
    KeyLog log;
    KeyConsumer consumer{broker.connect(), config};
    consumer.subscribe("KeyOrder", "*");
    consumer.register_listener(recording_listener(rec, log, 1));
    consumer.start();
    REQUIRE(rec.wait([&] { return log.total >= keys * per_key; }));
    for (int q = 0; q < queues; ++q) {
        const auto mq = broker.queue("KeyOrder", q);
        REQUIRE(eventually([&] { return stored_offset(broker, "ko_order", mq) == broker.max_offset(mq); }));
    }
    consumer.shutdown();
    rec.read([&] {
        CHECK_FALSE(log.key_overlap);
        CHECK_FALSE(log.mixed_keys);
        CHECK(log.total == keys * per_key);  // no redelivery in a plain run
        for (int k = 0; k < keys; ++k) {
            std::vector<int> expected(per_key);
            std::iota(expected.begin(), expected.end(), 0);
            CHECK(log.seqs[fmt::format("k{}", k)] == expected);
        }
        return 0;
    });
}

TEST_CASE("key orderly: different keys of one queue run concurrently, at most the in-flight bound",
          "[consumer][key_orderly]") {
    rmq::InProcessBroker broker;
    broker.create_topic("OneQueue", 1);
    produce_keyed(broker, "OneQueue", 1, 12, 5);
    auto config = fast_config("ko_concurrent");
    config.consume_thread_min = config.consume_thread_max = 8;
    Recorder rec;
    KeyLog log;
    ConsumerOf<rmq::KeyOrderlyBy<rmq::FirstKey, 3>> consumer{broker.connect(), config};
    consumer.subscribe("OneQueue", "*");
    consumer.register_listener(recording_listener(rec, log, 20));
    consumer.start();
    REQUIRE(rec.wait([&] { return log.total >= 60; }));
    consumer.shutdown();
    rec.read([&] {
        CHECK(log.max_running > 1);   // keys of one queue in parallel (rmq::Orderly: 1)
        CHECK(log.max_running <= 3);  // the per-queue bound
        CHECK_FALSE(log.key_overlap);
        CHECK(log.order_violations() == 0);
        return 0;
    });
}

TEST_CASE(
    "key orderly: a suspended key waits while other keys of its queue keep flowing, and holds the offset",
    "[consumer][key_orderly][status]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Suspend", 1);
    send_one(broker, "Suspend", "slow", "slow:0");
    send_one(broker, "Suspend", "slow", "slow:1");
    for (int i = 0; i < 10; ++i) {
        send_one(broker, "Suspend", "fast", "fast:" + std::to_string(i));
    }
    const auto mq = broker.queue("Suspend", 0);
    std::atomic<bool> release{false};
    Recorder rec;
    std::vector<std::string> slow_seen;
    int fast_done = 0;
    KeyConsumer consumer{broker.connect(), fast_config("ko_suspend")};
    consumer.subscribe("Suspend", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext& ctx) {
        if (msgs.front().keys() == "fast") {
            rec.update([&] { ++fast_done; });
            return Status::Success;
        }
        ctx.set_suspend_current_queue_time_millis(20);
        rec.update([&] { slow_seen.push_back(msgs.front().body()); });
        return release.load() ? Status::Success : Status::SuspendCurrentQueueAMoment;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return fast_done == 10 && slow_seen.size() >= 3; }));
    // The other key finished while "slow" is suspended; the commit stays at slow:0 (offset 0).
    CHECK(consumer.offset_store().read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) <= 0);
    rec.read([&] {
        CHECK(std::all_of(slow_seen.begin(), slow_seen.end(), [](const auto& b) { return b == "slow:0"; }));
        return 0;
    });
    release.store(true);
    REQUIRE(eventually([&] { return stored_offset(broker, "ko_suspend", mq) == 12; }));
    consumer.shutdown();
    rec.read([&] {
        CHECK(slow_seen.back() == "slow:1");
        CHECK(slow_seen[slow_seen.size() - 2] == "slow:0");
        return 0;
    });
}

TEST_CASE("key orderly autoCommit=false: Success keeps the offset, Rollback redelivers the key's uncommitted "
          "messages in order, Commit commits them",
          "[consumer][key_orderly][status]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Manual", 1);
    for (int i = 0; i < 3; ++i) {
        send_one(broker, "Manual", "a", "a:" + std::to_string(i));
    }
    const auto mq = broker.queue("Manual", 0);
    Recorder rec;
    std::vector<std::string> seen;
    std::vector<std::int64_t> offsets_seen;
    KeyConsumer consumer{broker.connect(), fast_config("ko_manual")};
    consumer.subscribe("Manual", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext& ctx) {
        ctx.set_auto_commit(false);
        const auto off = consumer.offset_store().read_offset(mq, rmq::ReadOffsetType::ReadFromMemory);
        Status answer = Status::Success;
        rec.update([&] {
            seen.push_back(msgs.front().body());
            offsets_seen.push_back(off);
            if (seen.size() == 2) {
                answer = Status::Rollback;  // a:0 (Success, uncommitted), a:1 → both back
            } else if (msgs.front().body() == "a:2") {
                answer = Status::Commit;
            }
        });
        return answer;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 5; }));
    REQUIRE(eventually([&] { return stored_offset(broker, "ko_manual", mq) == 3; }));
    consumer.shutdown();
    rec.read([&] {
        CHECK(seen == std::vector<std::string>{"a:0", "a:1", "a:0", "a:1", "a:2"});
        CHECK(std::all_of(offsets_seen.begin(), offsets_seen.end(), [](auto o) { return o < 1; }));
        return 0;
    });
}

TEST_CASE("key orderly autoCommit=true: Suspend retries the key's message with reconsume times counted",
          "[consumer][key_orderly][status]") {
    rmq::InProcessBroker broker;
    broker.create_topic("AutoSuspend", 1);
    send_one(broker, "AutoSuspend", "a", "a:0");
    send_one(broker, "AutoSuspend", "a", "a:1");
    Recorder rec;
    std::vector<std::pair<std::string, int>> seen;
    KeyConsumer consumer{broker.connect(), fast_config("ko_auto_suspend")};
    consumer.subscribe("AutoSuspend", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        bool suspend = false;
        rec.update([&] {
            seen.emplace_back(msgs.front().body(), msgs.front().reconsume_times());
            suspend = msgs.front().body() == "a:0" && msgs.front().reconsume_times() < 2;
        });
        return suspend ? Status::SuspendCurrentQueueAMoment : Status::Success;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 4; }));
    REQUIRE(eventually(
        [&] { return stored_offset(broker, "ko_auto_suspend", broker.queue("AutoSuspend", 0)) == 2; }));
    consumer.shutdown();
    const std::vector<std::pair<std::string, int>> expected{{"a:0", 0}, {"a:0", 1}, {"a:0", 2}, {"a:1", 0}};
    CHECK(rec.read([&] { return seen; }) == expected);
}

TEST_CASE("key orderly: past max_reconsume_times the message goes to the DLQ and its key continues",
          "[consumer][key_orderly][dlq]") {
    rmq::InProcessBroker broker;
    broker.create_topic("KeyDlq", 1);
    send_one(broker, "KeyDlq", "a", "a:0");
    send_one(broker, "KeyDlq", "b", "b:0");
    send_one(broker, "KeyDlq", "a", "a:1");
    auto config = fast_config("ko_dlq");
    config.max_reconsume_times = 2;
    Recorder rec;
    std::vector<std::pair<std::string, int>> seen_a;
    bool b_done = false;
    KeyConsumer consumer{broker.connect(), config};
    consumer.subscribe("KeyDlq", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        const auto& m = msgs.front();
        rec.update([&] {
            if (m.keys() == "a") {
                seen_a.emplace_back(m.body(), m.reconsume_times());
            } else {
                b_done = true;
            }
        });
        return m.body() == "a:0" ? Status::SuspendCurrentQueueAMoment : Status::Success;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return b_done && !seen_a.empty() && seen_a.back().first == "a:1"; }));
    REQUIRE(eventually([&] { return stored_offset(broker, "ko_dlq", broker.queue("KeyDlq", 0)) == 3; }));
    consumer.shutdown();
    const std::vector<std::pair<std::string, int>> expected{{"a:0", 0}, {"a:0", 1}, {"a:0", 2}, {"a:1", 0}};
    CHECK(rec.read([&] { return seen_a; }) == expected);
    const auto dlq = broker.messages("%DLQ%ko_dlq", 0);
    REQUIRE(dlq.size() == 1);
    CHECK(dlq.front().body() == "a:0");
}

TEST_CASE(
    "key orderly: a restart mid-stream redelivers from the lowest unconsumed offset, never leaves a gap",
    "[consumer][key_orderly][offset]") {
    constexpr int keys = 20;
    constexpr int per_key = 20;
    rmq::InProcessBroker broker;
    broker.create_topic("Restart", 1);
    produce_keyed(broker, "Restart", 1, keys, per_key);
    auto config = fast_config("ko_restart");
    config.consume_thread_min = config.consume_thread_max = 8;
    Recorder rec;
    KeyLog first;
    KeyLog second;
    {
        KeyConsumer consumer{broker.connect(), config};
        consumer.subscribe("Restart", "*");
        // Key k0 is slow, so the committed offset lags behind most keys when the consumer stops.
        consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
            rec.update([&] { first.enter(msgs); });
            std::this_thread::sleep_for(std::chrono::milliseconds(msgs.front().keys() == "k0" ? 30 : 2));
            rec.update([&] { first.leave(msgs); });
            return Status::Success;
        });
        consumer.start();
        REQUIRE(rec.wait([&] { return first.total >= keys * per_key / 3; }));
        consumer.shutdown();
    }
    const auto committed = stored_offset(broker, "ko_restart", broker.queue("Restart", 0));
    CHECK(committed < keys * per_key);
    KeyConsumer consumer{broker.connect(), config};
    consumer.subscribe("Restart", "*");
    consumer.register_listener(recording_listener(rec, second, 0));
    consumer.start();
    REQUIRE(eventually(
        [&] { return stored_offset(broker, "ko_restart", broker.queue("Restart", 0)) == keys * per_key; }));
    consumer.shutdown();
    rec.read([&] {
        CHECK(first.order_violations() == 0);
        for (const auto& [key, seen] : second.seqs) {  // the restart delivers each key in order
            CHECK(std::is_sorted(seen.begin(), seen.end()));
            CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
        }
        KeyLog both = first;
        for (const auto& [key, seen] : second.seqs) {
            auto& all = both.seqs[key];
            all.insert(all.end(), seen.begin(), seen.end());
        }
        CHECK(both.order_violations() == 0);  // no gap between the two runs
        CHECK(both.complete(keys, per_key));
        return 0;
    });
}

TEST_CASE("key orderly: two members handing queues over under load keep every key in order and lose nothing",
          "[consumer][key_orderly][rebalance]") {
    constexpr int queues = 4;
    constexpr int keys = 40;
    constexpr int per_key = 30;
    rmq::InProcessBroker broker;
    broker.create_topic("Handover", queues);
    produce_keyed(broker, "Handover", queues, keys, per_key);
    auto config = fast_config("ko_handover");
    config.consume_thread_min = config.consume_thread_max = 6;
    Recorder rec;
    KeyLog log;  // both members: a key running on two members at once is an overlap too
    auto first = std::make_unique<KeyConsumer>(broker.connect(), config);
    first->subscribe("Handover", "*");
    first->register_listener(recording_listener(rec, log, 2));
    first->start();
    REQUIRE(rec.wait([&] { return log.total >= keys * per_key / 4; }));
    KeyConsumer second{broker.connect(), config};
    second.subscribe("Handover", "*");
    second.register_listener(recording_listener(rec, log, 2));
    second.start();  // join: half the queues move to it
    REQUIRE(eventually([&] {
        int owned = 0;
        for (int q = 0; q < queues; ++q) {
            owned +=
                broker.lock_owner("ko_handover", broker.queue("Handover", q)) == second.client_id() ? 1 : 0;
        }
        return owned == queues / 2;
    }));
    REQUIRE(rec.wait([&] { return log.total >= keys * per_key / 2; }));
    first->shutdown();  // leave: the rest moves too
    first.reset();
    for (int q = 0; q < queues; ++q) {
        const auto mq = broker.queue("Handover", q);
        REQUIRE(
            eventually([&] { return stored_offset(broker, "ko_handover", mq) == broker.max_offset(mq); }));
    }
    second.shutdown();
    rec.read([&] {
        CHECK_FALSE(log.key_overlap);
        CHECK(log.order_violations() == 0);
        CHECK(log.complete(keys, per_key));
        return 0;
    });
}

TEST_CASE("key orderly: messages without keys share the empty key, consumed one call at a time in order",
          "[consumer][key_orderly]") {
    rmq::InProcessBroker broker;
    broker.create_topic("NoKeys", 1);
    for (int i = 0; i < 12; ++i) {
        send_one(broker, "NoKeys", "", ":" + std::to_string(i));
    }
    auto config = fast_config("ko_nokeys");
    config.consume_thread_min = config.consume_thread_max = 8;
    Recorder rec;
    KeyLog log;
    KeyConsumer consumer{broker.connect(), config};
    consumer.subscribe("NoKeys", "*");
    consumer.register_listener(recording_listener(rec, log, 5));
    consumer.start();
    REQUIRE(rec.wait([&] { return log.total >= 12; }));
    consumer.shutdown();
    rec.read([&] {
        CHECK(log.max_running == 1);
        std::vector<int> expected(12);
        std::iota(expected.begin(), expected.end(), 0);
        CHECK(log.seqs[""] == expected);
        return 0;
    });
}

TEST_CASE("key orderly autoCommit=true: Success, Commit and Rollback all commit the key's batch",
          "[consumer][key_orderly][status]") {
    const auto status = GENERATE(Status::Success, Status::Commit, Status::Rollback);
    rmq::InProcessBroker broker;
    broker.create_topic("AutoOk", 1);
    for (int i = 0; i < 3; ++i) {
        send_one(broker, "AutoOk", "a", "a:" + std::to_string(i));
    }
    Recorder rec;
    std::vector<std::string> seen;
    KeyConsumer consumer{broker.connect(), fast_config("ko_auto_ok")};
    consumer.subscribe("AutoOk", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        rec.update([&] { seen.push_back(msgs.front().body()); });
        return status;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 3; }));
    REQUIRE(eventually([&] { return stored_offset(broker, "ko_auto_ok", broker.queue("AutoOk", 0)) == 3; }));
    consumer.shutdown();
    CHECK(rec.read([&] { return seen; }) == std::vector<std::string>{"a:0", "a:1", "a:2"});
}
