// Concurrently commits a queue's offset only up to its oldest message still being consumed (Java's
// ProcessQueue.removeMessage returns the cache's first offset): a later message finishing first must not move
// the committed offset past an earlier one still running, or a crash then loses the earlier one.

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::Recorder;

namespace {

/// Counts the consumer's periodic persists, so the test knows offsets were committed after an event.
std::atomic<int> min_offset_persists{0};

using MinOffsetConsumer = rmq::Consumer<rmq::Concurrently,
                                        rmq::AllocateAveragely,
                                        consumer_test::PersistCountingStore<&min_offset_persists>,
                                        rmq::InProcessTransport>;

std::optional<std::int64_t> commit_offset(MinOffsetConsumer& consumer, const rmq::MessageQueue& mq) {
    const auto q = consumer_test::queue_stats(consumer, mq);
    return q ? std::optional<std::int64_t>(q->commit_offset) : std::nullopt;
}

template <class C>
std::int64_t consumed_ok(C& consumer, const std::string& topic) {
    for (const auto& t : consumer.stats().topics) {
        if (t.topic == topic) {
            return t.consume_ok_total;
        }
    }
    return 0;
}

}  // namespace

TEST_CASE("concurrently: a later message finishing first does not commit past an earlier one still running",
          "[consumer][concurrently][offset]") {
    rmq::InProcessBroker broker;
    broker.create_topic("MinOffset", 1);
    produce(broker, "MinOffset", 1, 2);  // offsets 0 (slow) and 1 (fast)
    const auto mq = broker.queue("MinOffset", 0);

    Recorder rec;
    bool slow_entered = false;
    bool fast_returned = false;
    bool open = false;
    MinOffsetConsumer consumer{broker.connect(), fast_config("min_offset_group")};
    consumer.subscribe("MinOffset", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        for (const auto& m : msgs) {
            if (m.queue_offset() == 0) {
                rec.update([&] { slow_entered = true; });
                (void)rec.wait([&] { return open; });
            } else {
                rec.update([&] { fast_returned = true; });
            }
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });

    // Declared after the consumer: on a failed REQUIRE the slow listener is let go before the consumer waits
    // for it.
    struct Opener {
        Recorder& rec;
        bool& open;

        ~Opener() {
            rec.update([this] { open = true; });
        }
    } opener{rec, open};

    consumer.start();

    REQUIRE(rec.wait([&] { return slow_entered && fast_returned; }));
    // The fast message's result is processed (counted as consumed), then offsets are persisted at least
    // twice.
    REQUIRE(eventually([&] { return consumed_ok(consumer, "MinOffset") >= 1; }));
    const int persists = min_offset_persists.load();
    REQUIRE(eventually([&] { return min_offset_persists.load() >= persists + 3; }));
    CHECK(commit_offset(consumer, mq).value_or(-1) <= 0);
    CHECK(broker.consumer_offset("min_offset_group", mq).value_or(0) == 0);

    // Finished, the slow message lets the offset move past both.
    rec.update([&] { open = true; });
    CHECK(eventually([&] { return broker.consumer_offset("min_offset_group", mq).value_or(0) == 2; }));
    CHECK(commit_offset(consumer, mq).value_or(-1) == 2);
    consumer.shutdown();
}
