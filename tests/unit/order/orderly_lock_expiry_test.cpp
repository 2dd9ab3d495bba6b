// Orderly: a queue whose broker lock expired while its messages are still cached is not consumed until the
// lock is held again (Java's ConsumeRequest checks isLockExpired before every batch): another member may own
// the queue by then, and two members calling the listener for one queue break its order.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::Recorder;

namespace {

/// Counts the consumer's periodic persists: time that passes through the consumer's own timers (pull loops
/// stamp the ManualClock, which stands still here).
std::atomic<int> lock_expiry_persists{0};

using LockExpiryConsumer = rmq::Consumer<rmq::Orderly,
                                         rmq::AllocateAveragely,
                                         consumer_test::PersistCountingStore<&lock_expiry_persists>,
                                         rmq::InProcessTransport>;

std::int64_t cached_messages(LockExpiryConsumer& consumer, const rmq::MessageQueue& mq) {
    const auto q = consumer_test::queue_stats(consumer, mq);
    return q ? q->cached_msg_count : -1;
}

}  // namespace

TEST_CASE(
    "orderly: after its queue's lock expired, the listener is not called for messages still cached until "
    "the lock is held again",
    "[consumer][orderly][lock]") {
    // 31 s: past the member's 30 s lock lifetime only. 61 s: past the broker's 60 s too (and past the 60 s a
    // queue may be consumed without a break, so the next batch goes through a fresh consume task).
    const int expire_after_seconds = GENERATE(31, 61);
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::BrokerConfig broker_config;
    broker_config.clock = clock;
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("LockExpiry", 1);
    produce(broker, "LockExpiry", 1, 10);
    const auto mq = broker.queue("LockExpiry", 0);

    Recorder rec;
    std::vector<std::int64_t> seen;  // queue offsets, in call order
    int returned = 0;
    bool open = false;
    LockExpiryConsumer consumer{broker.connect(), fast_config("og_lock_expiry")};
    consumer.subscribe("LockExpiry", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        bool first = false;
        rec.update([&] {
            first = seen.empty();
            for (const auto& m : msgs) {
                seen.push_back(m.queue_offset());
            }
        });
        if (first) {
            (void)rec.wait([&] { return open; });  // held while the test lets the lock expire
        }
        rec.update([&] { ++returned; });
        return rmq::ConsumeOrderlyStatus::Success;
    });

    // Declared after the consumer: on a failed REQUIRE the listener is let go before the consumer waits for
    // it.
    struct Opener {
        Recorder& rec;
        bool& open;

        ~Opener() {
            rec.update([this] { open = true; });
        }
    } opener{rec, open};

    consumer.start();

    REQUIRE(rec.wait([&] { return seen.size() == 1; }));
    REQUIRE(eventually([&] { return cached_messages(consumer, mq) >= 9; }));  // the rest is cached

    // Renewals fail from now on, and the lock's lifetime passes while the first call runs.
    broker.inject_failure(rmq::BrokerRequest::LockBatch, rmq::response_code::system_error, 1'000'000);
    clock->advance(std::chrono::seconds(expire_after_seconds));
    rec.update([&] { open = true; });
    REQUIRE(rec.wait([&] { return returned >= 1; }));
    // The consumer decides right after the call returns; three persist rounds (>= 200 ms) give it ample time.
    const int persists = lock_expiry_persists.load();
    REQUIRE(eventually([&] { return lock_expiry_persists.load() >= persists + 3; }));
    CHECK(rec.read([&] { return seen.size(); }) == 1);
    CHECK(cached_messages(consumer, mq) >= 9);

    // Locked again, the rest goes through, in order.
    broker.inject_failure(rmq::BrokerRequest::LockBatch, 0, 0);
    REQUIRE(rec.wait([&] { return std::find(seen.begin(), seen.end(), std::int64_t{9}) != seen.end(); }));
    const auto order = rec.read([&] { return seen; });
    INFO("offsets in call order: " << fmt::format("{}", fmt::join(order, ",")));
    CHECK(std::is_sorted(order.begin(), order.end()));
    CHECK(order.back() == 9);
    consumer.shutdown();
}
