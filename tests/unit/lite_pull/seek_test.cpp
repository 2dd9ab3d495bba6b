// seek / seek_to_begin / seek_to_end and offset_for_timestamp.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "lite_pull_support.hpp"

#include <catch2/catch.hpp>

using lite_pull_test::eventually;
using lite_pull_test::fast_config;
using lite_pull_test::LitePull;
using lite_pull_test::offsets_by_queue;
using lite_pull_test::poll_count;
using lite_pull_test::poll_for;
using lite_pull_test::produce;

TEST_CASE("lite pull: seek moves a queue, drops what was pulled of it, and sets its committed offset",
          "[lite_pull][seek]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpSeek", 1);
    produce(broker, "LpSeek", 1, 30);
    auto config = fast_config("cg_lp_seek");
    config.auto_commit = false;
    config.pull_batch_size = 5;
    LitePull consumer{broker.connect(), config};
    const auto mq = broker.queue("LpSeek", 0);
    consumer.assign({mq});
    consumer.start();
    const auto first = poll_count(consumer, 5);
    REQUIRE(first.size() == 5);
    CHECK(first.front().queue_offset() == 0);
    // More batches are cached by now (pulled, not polled): seek drops them.
    consumer.seek(mq, 20);
    CHECK(consumer.committed(mq) == 20);
    const auto after = poll_count(consumer, 10);
    REQUIRE(after.size() == 10);
    CHECK(offsets_by_queue(after).at(0).front() == 20);
    CHECK(offsets_by_queue(after).at(0).back() == 29);

    consumer.seek_to_begin(mq);
    const auto again = poll_count(consumer, 30);
    REQUIRE(again.size() == 30);
    CHECK(again.front().queue_offset() == 0);
    CHECK(again.back().queue_offset() == 29);

    consumer.seek(mq, 10);
    consumer.seek_to_end(mq);
    CHECK(poll_for(consumer, std::chrono::milliseconds(500)).empty());
    produce(broker, "LpSeek", 1, 3, "new");
    const auto fresh = poll_count(consumer, 3);
    REQUIRE(fresh.size() == 3);
    CHECK(fresh.front().queue_offset() == 30);
    // Only one pull loop per queue: the ownerships a seek replaced pull no more.
    CHECK(poll_for(consumer, std::chrono::milliseconds(500)).empty());
}

TEST_CASE("lite pull: offset_for_timestamp finds the first message stored at or after a time",
          "[lite_pull][seek]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpTime", 1);
    const auto mq = broker.queue("LpTime", 0);
    produce(broker, "LpTime", 1, 5, "early");
    // Later messages carry a later store time than every early one.
    const std::int64_t last_early = broker.messages("LpTime", 0).back().store_timestamp();
    REQUIRE(eventually([&] { return broker.clock()->wall_millis() > last_early; }));
    const std::int64_t split = broker.clock()->wall_millis();
    produce(broker, "LpTime", 1, 5, "late");

    LitePull consumer{broker.connect(), fast_config("cg_lp_time")};
    consumer.assign({mq});
    consumer.start();
    CHECK(consumer.offset_for_timestamp(mq, split) == 5);
    CHECK(consumer.offset_for_timestamp(mq, 0) == 0);
    REQUIRE(eventually([&] { return consumer.assignment().size() == 1; }));
    consumer.seek(mq, consumer.offset_for_timestamp(mq, split));
    const auto got = poll_count(consumer, 5);
    REQUIRE(got.size() == 5);
    CHECK(std::all_of(got.begin(), got.end(), [](const rmq::MessageExt& m) {
        return std::string(m.body()).starts_with("late");
    }));
}
