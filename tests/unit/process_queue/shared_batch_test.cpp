// put_messages_shared / begin_consume: the concurrent service shares each pulled vector with the cache
// instead of copying it, and changes the shared messages only under the cache's lock.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "process_queue_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/process_queue.hpp>

using pq_test::make_msgs;
using Offsets = std::vector<std::int64_t>;

TEST_CASE("put_messages_shared caches the caller's messages themselves, not copies",
          "[process_queue][shared]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::ProcessQueue pq(clock);
    auto batch = std::make_shared<std::vector<rmq::MessageExt>>(make_msgs(10, 3, 100));
    CHECK(pq.put_messages_shared(batch));
    CHECK(pq.msg_count() == 3);
    CHECK(pq.msg_size() == 300);
    CHECK(batch.use_count() == 4);  // the caller and one cache entry per message

    // A change made through begin_consume is what the cache hands out afterwards.
    pq.begin_consume(
        std::span<rmq::MessageExt>(*batch).subspan(1, 1), 1'000, [](std::span<rmq::MessageExt> s) {
            REQUIRE(s.size() == 1);
            s[0].set_topic("ResetTopic");
        });
    CHECK((*batch)[1].property_view(rmq::property::consume_start_timestamp) == "1000");
    const auto taken = pq.take_messages(3);
    REQUIRE(taken.size() == 3);
    CHECK(taken[0].topic() == "TopicTest");
    CHECK(taken[1].topic() == "ResetTopic");
    CHECK(taken[1].property_view(rmq::property::consume_start_timestamp) == "1000");
    CHECK_FALSE(taken[2].has_property(rmq::property::consume_start_timestamp));

    CHECK(pq.commit() == 13);
    CHECK(batch.use_count() == 1);  // the cache let go of the vector with its last entry
}

TEST_CASE("put_messages_shared refuses a null batch and changes nothing", "[process_queue][shared]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    CHECK_THROWS_AS(pq.put_messages_shared(nullptr), rmq::InvalidArgument);
    CHECK(pq.msg_count() == 0);
    CHECK_FALSE(pq.consuming());
}

TEST_CASE("begin_consume on a copy (local retry) times the cached entry without touching the cached object",
          "[process_queue][shared][clean_expired]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::ProcessQueue pq(clock);
    auto batch = std::make_shared<std::vector<rmq::MessageExt>>(make_msgs(0, 2));
    pq.put_messages_shared(batch);

    std::vector<rmq::MessageExt> retry{(*batch)[0]};  // what a failed send-back schedules: a copy
    const std::int64_t fifteen_minutes = 15 * 60 * 1000;
    const std::int64_t long_ago = clock->wall_millis() - 2 * fifteen_minutes;
    pq.begin_consume(retry, long_ago, [](std::span<rmq::MessageExt>) {});
    CHECK(retry[0].property_view(rmq::property::consume_start_timestamp) == std::to_string(long_ago));
    CHECK_FALSE((*batch)[0].has_property(rmq::property::consume_start_timestamp));  // another reader's object

    // The expiry sweep still sees the head as started long ago and sends it back.
    std::vector<std::int64_t> sent;
    pq.clean_expired_msg(fifteen_minutes, [&](const rmq::MessageExt& m) {
        sent.push_back(m.queue_offset());
        return true;
    });
    CHECK(sent == Offsets{0});
    CHECK(pq.min_offset_in_cache() == 1);
}

TEST_CASE("a re-pulled offset keeps its first cached message, the new vector is not retained for it",
          "[process_queue][shared]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    auto first = std::make_shared<std::vector<rmq::MessageExt>>(make_msgs(5, 2));
    auto again = std::make_shared<std::vector<rmq::MessageExt>>(make_msgs(5, 2));
    (*again)[0].set_topic("Other");
    pq.put_messages_shared(first);
    pq.put_messages_shared(again);
    CHECK(pq.msg_count() == 2);
    CHECK(again.use_count() == 1);
    const auto taken = pq.take_messages(1);
    REQUIRE(taken.size() == 1);
    CHECK(taken[0].topic() == "TopicTest");
}
