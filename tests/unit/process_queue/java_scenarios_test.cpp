// Spec §12.1: the scenarios of Java's ProcessQueueTest (4.9.8 and 5.x) plus the derived ones.

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "process_queue_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>
#include <rmq/message.hpp>
#include <rmq/process_queue.hpp>

using pq_test::make_msg;
using pq_test::make_msgs;
using pq_test::make_msgs_at;

namespace {

// Java's `removeMessage([msgTreeMap.lastEntry().getValue()])`.
std::int64_t remove_last_cached(rmq::ProcessQueue& pq) {
    const std::int64_t last = pq.max_offset_in_cache();
    return pq.remove_messages(std::vector<std::int64_t>{last});
}

}  // namespace

TEST_CASE("12.1.1 testCachedMessageCount: 100 -> take 10 + commit -> 90 -> remove last -> 89",
          "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 100));
    CHECK(pq.msg_count() == 100);

    CHECK(pq.take_messages(10).size() == 10);
    CHECK(pq.commit() == 10);
    CHECK(pq.msg_count() == 90);

    // The cache now holds 10..99; removing 99 leaves 10..98, so the safe offset is the head, 10.
    CHECK(remove_last_cached(pq) == 10);
    CHECK(pq.msg_count() == 89);
}

TEST_CASE("12.1.2 testCachedMessageSize: 12300 -> 11070 -> 10947 bytes", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 100));
    CHECK(pq.msg_size() == 100 * 123);

    pq.take_messages(10);
    pq.commit();
    CHECK(pq.msg_size() == 90 * 123);

    remove_last_cached(pq);
    CHECK(pq.msg_size() == 89 * 123);
}

TEST_CASE("12.1.3 testFillProcessQueueInfo: cachedMsgSizeInMiB 12 -> 10 -> 9 -> 0", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 102400));
    CHECK(pq.msg_size() == 12'595'200);
    CHECK(pq.info().cached_msg_size_in_mib == 12);

    pq.take_messages(10000);
    pq.commit();
    CHECK(pq.msg_size() == 11'365'200);
    CHECK(pq.info().cached_msg_size_in_mib == 10);

    pq.take_messages(10000);
    pq.commit();
    CHECK(pq.msg_size() == 10'135'200);
    CHECK(pq.info().cached_msg_size_in_mib == 9);

    pq.take_messages(80000);
    pq.commit();
    CHECK(pq.msg_count() == 2400);
    CHECK(pq.msg_size() == 295'200);
    const auto info = pq.info();
    CHECK(info.cached_msg_size_in_mib == 0);
    CHECK(info.cached_msg_count == 2400);
    CHECK(info.cached_msg_min_offset == 100000);
    CHECK(info.cached_msg_max_offset == 102399);
    CHECK(info.transaction_msg_count == 0);
}

TEST_CASE("12.1.3 (5.x) info reports the consuming map of one taken message", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 1));
    REQUIRE(pq.take_messages(1).size() == 1);
    const auto info = pq.info();
    CHECK(info.transaction_msg_min_offset == 0);
    CHECK(info.transaction_msg_max_offset == 0);
    CHECK(info.transaction_msg_count == 1);
    CHECK(info.cached_msg_count == 0);
}

TEST_CASE("12.1.4 (5.x) testContainsMessage", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages({make_msg(0)});
    CHECK(pq.contains_message(0));
    CHECK_FALSE(pq.contains_message(1));
}

TEST_CASE("12.1.5 (5.x) testPopRequest: a message started 20 min ago is sent back exactly once",
          "[process_queue]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::ProcessQueue pq(clock);
    pq.put_messages({make_msg(0)});
    const std::int64_t twenty_minutes_ago = clock->wall_millis() - 20 * 60 * 1000;
    pq.set_consume_start(std::vector<std::int64_t>{0}, twenty_minutes_ago);

    int calls = 0;
    std::int64_t sent_offset = -1;
    pq.clean_expired_msg(0, [&](const rmq::MessageExt& m) {
        ++calls;
        sent_offset = m.queue_offset();
        return true;
    });
    CHECK(calls == 1);
    CHECK(sent_offset == 0);
    CHECK_FALSE(pq.has_temp_message());
    CHECK(pq.msg_count() == 0);
}

TEST_CASE("12.1.6 (5.x) testRollback on a fresh queue leaves nothing taken", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.rollback();
    CHECK(pq.info().transaction_msg_count == 0);
    CHECK(pq.commit() == -1);
    CHECK_FALSE(pq.has_temp_message());
}

TEST_CASE("12.1.7 (5.x) testHasTempMessage on a fresh queue", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    CHECK_FALSE(pq.has_temp_message());
    pq.put_messages({make_msg(3)});
    CHECK(pq.has_temp_message());
}

TEST_CASE("12.1.8 (5.x) testProcessQueue: msg_acc_cnt and try_unlock_times compare equal",
          "[process_queue]") {
    rmq::ProcessQueue a(std::make_shared<rmq::ManualClock>());
    rmq::ProcessQueue b(std::make_shared<rmq::ManualClock>());
    a.set_msg_acc_cnt(1);
    b.set_msg_acc_cnt(1);
    a.inc_try_unlock_times();
    b.inc_try_unlock_times();
    CHECK(a.msg_acc_cnt() == 1);
    CHECK(a.msg_acc_cnt() == b.msg_acc_cnt());
    CHECK(a.try_unlock_times() == 1);
    CHECK(a.try_unlock_times() == b.try_unlock_times());
    CHECK(a.info().try_unlock_times == 1);
}

TEST_CASE("12.1.9 remove: empty -> -1, {5,6,7} remove 6 -> 5, then remove 5,7 -> 8", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    CHECK(pq.remove_messages(std::vector<std::int64_t>{1}) == -1);
    pq.put_messages(make_msgs_at({5, 6, 7}));
    CHECK(pq.remove_messages(std::vector<std::int64_t>{6}) == 5);
    CHECK(pq.remove_messages(std::vector<std::int64_t>{5, 7}) == 8);
    CHECK(pq.msg_count() == 0);
    CHECK(pq.msg_size() == 0);
}

TEST_CASE("12.1.10 put dispatches on the idle -> busy transition only", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    CHECK_FALSE(pq.consuming());
    CHECK(pq.put_messages(make_msgs(0, 2)));
    CHECK(pq.consuming());
    CHECK_FALSE(pq.put_messages(make_msgs(2, 2)));

    CHECK(pq.take_messages(10).size() == 4);
    CHECK(pq.consuming());  // something was taken: still busy
    CHECK_FALSE(pq.put_messages(make_msgs(4, 1)));
    CHECK(pq.take_messages(10).size() == 1);
    CHECK(pq.take_messages(10).empty());
    CHECK_FALSE(pq.consuming());  // an empty take resets the flag
    CHECK(pq.put_messages(make_msgs(5, 1)));
}

TEST_CASE("12.1.10 an empty put on an empty queue does not dispatch", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    CHECK_FALSE(pq.put_messages({}));
    CHECK_FALSE(pq.consuming());
}

TEST_CASE("12.1.11 max_span {10,2010} -> 2000, {10,2011} -> 2001", "[process_queue]") {
    rmq::ProcessQueue a(std::make_shared<rmq::ManualClock>());
    CHECK(a.max_span() == 0);
    a.put_messages(make_msgs_at({10, 2010}));
    CHECK(a.max_span() == 2000);

    rmq::ProcessQueue b(std::make_shared<rmq::ManualClock>());
    b.put_messages(make_msgs_at({10, 2011}));
    CHECK(b.max_span() == 2001);
    b.take_messages(1);  // orderly in-flight messages leave the span
    CHECK(b.max_span() == 0);
}

TEST_CASE("12.1.12 lock expires after 30000 ms (strictly), pull after 120000 ms", "[process_queue]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    clock->advance(std::chrono::milliseconds(5000));
    rmq::ProcessQueue pq(clock);
    CHECK(pq.last_lock_timestamp() == 5000);
    CHECK(pq.last_pull_timestamp() == 5000);
    CHECK(pq.last_consume_timestamp() == 5000);

    clock->advance(std::chrono::milliseconds(30000));
    CHECK_FALSE(pq.is_lock_expired());
    clock->advance(std::chrono::milliseconds(1));
    CHECK(pq.is_lock_expired());
    pq.set_last_lock_timestamp(clock->steady_millis());
    CHECK_FALSE(pq.is_lock_expired());

    CHECK_FALSE(pq.is_pull_expired());
    clock->advance(std::chrono::milliseconds(120000 - 30001));
    CHECK_FALSE(pq.is_pull_expired());  // exactly 120000 ms since the pull
    clock->advance(std::chrono::milliseconds(1));
    CHECK(pq.is_pull_expired());
    pq.set_last_pull_timestamp(clock->steady_millis());
    CHECK_FALSE(pq.is_pull_expired());
}
