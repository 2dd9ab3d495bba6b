// A queue a member lets go and takes back soon (a broker restart: members drop its queues while it is down
// and take them again when it returns) continues from where this member had consumed it when the broker's
// committed offset is older (the commits failed while the broker was down), instead of consuming it again
// from there: an rmq deviation. An offset reset in between wins (admin_test.cpp checks resets).

#include <algorithm>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/log.hpp>
#include <rmq/order/key_orderly.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::pull_loops_ran;
using consumer_test::PushConsumer;
using consumer_test::Recorder;

namespace {

/// Counts each body consumed; waits for `go` first (so the test decides when consumption happens).
auto counting_listener(Recorder& rec, std::map<std::string, int>& times, std::shared_future<void> go) {
    return [&rec, &times, go](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        go.wait();
        rec.update([&] {
            for (const auto& m : msgs) {
                ++times[m.body()];
            }
        });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    };
}

/// How many queues of "Retake" the consumer holds (its retry topic's queue aside).
template <class C>
std::size_t held(const C& consumer) {
    std::size_t n = 0;
    for (const auto& mq : consumer.assigned_queues()) {
        n += mq.topic == "Retake" ? 1 : 0;
    }
    return n;
}

/// Whether `consumer` applied the results of every call on "Retake" (its memory offsets are at `end`): a
/// queue dropped while a result is still being applied hands over the older offset (at-least-once, as in
/// Java), so the tests below let the results land before a member comes.
template <class C>
bool results_applied(C& consumer, rmq::InProcessBroker& broker, std::int64_t end) {
    for (int q = 0; q < 4; ++q) {
        if (consumer.offset_store().read_offset(broker.queue("Retake", q),
                                                rmq::ReadOffsetType::ReadFromMemory) != end) {
            return false;
        }
    }
    return true;
}

template <class C>
std::int64_t pulled(const C& consumer) {
    for (const auto& t : consumer.stats().topics) {
        if (t.topic == "Retake") {
            return t.pulled_msgs_total;
        }
    }
    return 0;
}

}  // namespace

TEST_CASE(
    "a queue taken back soon continues from where this member consumed it when the broker's offset is older",
    "[consumer][group][retake]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Retake", 4);
    produce(broker, "Retake", 4, 40);
    auto config = fast_config("cg_retake");
    config.persist_consumer_offset_interval = 600000;  // no periodic commits: only pulls and drops commit

    Recorder rec;
    std::map<std::string, int> by_a;
    std::promise<void> release_a;
    PushConsumer a{broker.connect(), config};
    a.subscribe("Retake", "*");
    a.register_listener(counting_listener(rec, by_a, release_a.get_future().share()));
    a.start();
    REQUIRE(eventually([&] { return pulled(a) == 40; }));

    // The broker goes away: pulls and offset commits fail, so it never learns what a consumes now.
    broker.inject_failure(rmq::BrokerRequest::Pull, rmq::response_code::system_busy, 1000000);
    broker.inject_failure(
        rmq::BrokerRequest::UpdateConsumerOffset, rmq::response_code::system_error, 1000000);
    release_a.set_value();
    REQUIRE(rec.wait([&] { return by_a.size() == 40; }));
    REQUIRE(eventually([&] { return results_applied(a, broker, 10); }));

    // Meanwhile a member comes and goes: a drops two queues and takes them back.
    {
        std::map<std::string, int> by_b;
        std::promise<void> release_b;
        release_b.set_value();
        PushConsumer b{broker.connect(), config};
        b.subscribe("Retake", "*");
        b.register_listener(counting_listener(rec, by_b, release_b.get_future().share()));
        b.start();
        REQUIRE(eventually([&] { return held(a) == 2 && held(b) == 2; }));
        b.shutdown();
    }
    REQUIRE(eventually([&] { return held(a) == 4; }));
    for (int q = 0; q < 4; ++q) {
        REQUIRE_FALSE(broker.consumer_offset("cg_retake", broker.queue("Retake", q)).value_or(0) > 0);
    }

    // The broker is back.
    broker.inject_failure(rmq::BrokerRequest::Pull, 0, 0);
    broker.inject_failure(rmq::BrokerRequest::UpdateConsumerOffset, 0, 0);
    produce(broker, "Retake", 4, 4, "n");
    REQUIRE(rec.wait([&] { return by_a.size() == 44; }));
    REQUIRE(pull_loops_ran(a, "Retake", 2));
    rec.read([&] {
        for (const auto& [body, times] : by_a) {
            INFO(body);
            CHECK(times == 1);  // a consumed nothing twice
        }
        return 0;
    });
    a.shutdown();
}

namespace {

/// Orderly and KeyOrderly: counts each body consumed (its KEYS is its body); waits for `go` first.
auto counting_orderly_listener(Recorder& rec,
                               std::map<std::string, int>& times,
                               std::shared_future<void> go) {
    return [&rec, &times, go](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        go.wait();
        rec.update([&] {
            for (const auto& m : msgs) {
                ++times[m.body()];
            }
        });
        return rmq::ConsumeOrderlyStatus::Success;
    };
}

void produce_keyed(rmq::InProcessBroker& broker, int count, const std::string& prefix) {
    auto tr = broker.connect();
    for (int i = 0; i < count; ++i) {
        const std::string body = prefix + std::to_string(i);
        (void)tr.send(rmq::Message("Retake", "TagA", body, body), broker.queue("Retake", i % 4));
    }
}

}  // namespace

// Issue 30 §2: the policies that take the broker lock re-read the committed offset on the first pull after
// the lock (Java's previouslyLocked); that re-read must not undo the kept offset of a queue this member takes
// back, or everything since the broker's last flush is consumed again after a broker restart.
TEMPLATE_TEST_CASE("a locked queue taken back soon continues from where this member consumed it, also after "
                   "the first pull's offset re-read",
                   "[consumer][group][retake][orderly]",
                   rmq::Orderly,
                   rmq::KeyOrderly) {
    using Consumer =
        rmq::Consumer<TestType, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;
    rmq::InProcessBroker broker;
    broker.create_topic("Retake", 4);
    produce_keyed(broker, 40, "m");
    auto config = fast_config("cg_retake_locked");
    config.persist_consumer_offset_interval = 600000;  // no periodic commits: only pulls and drops commit

    std::mutex log_mutex;
    std::vector<std::string> log;
    rmq::set_log_handler([&](rmq::LogLevel, std::string_view m) {
        const std::lock_guard lock(log_mutex);
        log.emplace_back(m);
    });
    const auto continued_lines = [&] {
        const std::lock_guard lock(log_mutex);
        return std::count_if(log.begin(), log.end(), [](const std::string& line) {
            return line.find("continues from offset 10,") != std::string::npos;
        });
    };

    Recorder rec;
    std::map<std::string, int> by_a;
    std::promise<void> release_a;
    Consumer a{broker.connect(), config};
    a.subscribe("Retake", "*");
    a.register_listener(counting_orderly_listener(rec, by_a, release_a.get_future().share()));
    a.start();
    REQUIRE(eventually([&] { return pulled(a) == 40; }));

    // The broker goes away: pulls and offset commits fail, so it never learns what a consumes now (as a
    // restart loses the offsets committed since its last flush).
    broker.inject_failure(rmq::BrokerRequest::Pull, rmq::response_code::system_busy, 1000000);
    broker.inject_failure(
        rmq::BrokerRequest::UpdateConsumerOffset, rmq::response_code::system_error, 1000000);
    release_a.set_value();
    REQUIRE(rec.wait([&] { return by_a.size() == 40; }));
    REQUIRE(eventually([&] { return results_applied(a, broker, 10); }));

    // A member comes and goes: a drops two queues and takes them back. Its unlocks fail, so it keeps the
    // broker locks throughout and b never gets to consume.
    broker.inject_failure(rmq::BrokerRequest::UnlockBatch, rmq::response_code::system_error, 1000000);
    {
        std::map<std::string, int> by_b;
        std::promise<void> release_b;
        release_b.set_value();
        Consumer b{broker.connect(), config};
        b.subscribe("Retake", "*");
        b.register_listener(counting_orderly_listener(rec, by_b, release_b.get_future().share()));
        b.start();
        REQUIRE(eventually([&] { return held(a) == 2; }));
        b.shutdown();
        rec.read([&] {
            CHECK(by_b.empty());
            return 0;
        });
    }
    REQUIRE(eventually([&] { return held(a) == 4; }));
    for (int q = 0; q < 4; ++q) {
        REQUIRE(broker.lock_owner("cg_retake_locked", broker.queue("Retake", q)).has_value());
        REQUIRE_FALSE(broker.consumer_offset("cg_retake_locked", broker.queue("Retake", q)).value_or(0) > 0);
    }

    // The broker is back.
    broker.inject_failure(rmq::BrokerRequest::Pull, 0, 0);
    broker.inject_failure(rmq::BrokerRequest::UpdateConsumerOffset, 0, 0);
    broker.inject_failure(rmq::BrokerRequest::UnlockBatch, 0, 0);
    produce_keyed(broker, 4, "n");
    REQUIRE(rec.wait([&] { return by_a.size() == 44; }));
    REQUIRE(pull_loops_ran(a, "Retake", 2));
    a.shutdown();
    rmq::set_log_handler({});
    rec.read([&] {
        for (const auto& [body, times] : by_a) {
            INFO(body);
            CHECK(times == 1);  // a consumed nothing twice
        }
        return 0;
    });
    CHECK(continued_lines() == 2);  // the two queues taken back, said once each, and true
}
