// The ProcessQueue contract beyond Java's own tests: the min-offset rule (Java's ProcessQueue.removeMessage),
// duplicates, exact flow-control counters, backlog from MAX_OFFSET and the orderly take / commit / rollback /
// consume-again sequences.

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "process_queue_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>
#include <rmq/message.hpp>
#include <rmq/process_queue.hpp>

using pq_test::make_msg;
using pq_test::make_msgs;
using pq_test::make_msgs_at;
using pq_test::offsets_of;
using Offsets = std::vector<std::int64_t>;

namespace {

rmq::MessageExt with_max_offset(rmq::MessageExt m, std::string_view max_offset) {
    m.set_property(rmq::property::max_offset, max_offset);
    return m;
}

}  // namespace

TEST_CASE("min-offset rule: removing a middle message keeps the head as the safe offset",
          "[process_queue][min_offset]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(100, 5));  // 100..104
    CHECK(pq.remove_messages(Offsets{102}) == 100);
    CHECK(pq.remove_messages(Offsets{103, 101}) == 100);
    CHECK(pq.msg_count() == 2);
    CHECK(pq.min_offset_in_cache() == 100);
    CHECK(pq.max_offset_in_cache() == 104);
}

TEST_CASE("min-offset rule: removing the first message advances to the next cached one",
          "[process_queue][min_offset]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs_at({100, 101, 105}));
    CHECK(pq.remove_messages(Offsets{100}) == 101);
    CHECK(pq.remove_messages(Offsets{101}) == 105);  // gaps are fine: the next cached offset, not +1
}

TEST_CASE("min-offset rule: removing everything returns queue_offset_max + 1",
          "[process_queue][min_offset]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs_at({7, 9, 12}));
    CHECK(pq.queue_offset_max() == 12);
    CHECK(pq.remove_messages(Offsets{12, 7, 9}) == 13);
    CHECK(pq.msg_count() == 0);
    CHECK(pq.msg_size() == 0);
    CHECK(pq.min_offset_in_cache() == -1);
    CHECK(pq.max_offset_in_cache() == -1);
}

TEST_CASE("min-offset rule: removing from an empty queue returns -1 and changes nothing",
          "[process_queue][min_offset]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::ProcessQueue pq(clock);
    clock->advance(std::chrono::milliseconds(250));
    CHECK(pq.remove_messages(Offsets{0, 1}) == -1);
    CHECK(pq.msg_count() == 0);
    CHECK(pq.last_consume_timestamp() == 250);  // Java stamps it even then

    pq.put_messages(make_msgs(0, 2));
    CHECK(pq.remove_messages(Offsets{0, 1}) == 2);
    CHECK(pq.remove_messages(Offsets{0, 1}) == -1);  // emptied, now empty at entry
}

TEST_CASE("min-offset rule: queue_offset_max is the last NEWLY inserted offset, not the largest",
          "[process_queue][min_offset]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs_at({10, 11}));
    pq.put_messages(make_msgs_at({5}));  // arrives late (e.g. after a reset): Java records 5
    CHECK(pq.queue_offset_max() == 5);
    CHECK(pq.remove_messages(Offsets{5, 10, 11}) == 6);
}

TEST_CASE("removing offsets that are not cached changes no counter", "[process_queue][min_offset]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 3));
    CHECK(pq.remove_messages(Offsets{42, 43}) == 0);
    CHECK(pq.msg_count() == 3);
    CHECK(pq.msg_size() == 3 * 123);
}

TEST_CASE("duplicate put keeps the cached message and counts only new offsets", "[process_queue][put]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 3, 10));  // 0,1,2 with 10-byte bodies
    pq.set_consume_start(Offsets{1}, 777);

    // 1 and 2 again (with other bodies) plus a new 3.
    pq.put_messages(make_msgs(1, 3, 50));
    CHECK(pq.msg_count() == 4);
    CHECK(pq.msg_size() == 3 * 10 + 50);
    CHECK(pq.queue_offset_max() == 3);

    const auto taken = pq.take_messages(4);
    REQUIRE(taken.size() == 4);
    CHECK(taken[1].body().size() == 10);  // the first copy stayed
    CHECK(taken[1].property_view(rmq::property::consume_start_timestamp) == "777");
    CHECK(taken[3].body().size() == 50);

    CHECK(pq.commit() == 4);
    CHECK(pq.msg_count() == 0);
    CHECK(pq.msg_size() == 0);
}

TEST_CASE("a batch made only of duplicates leaves queue_offset_max alone", "[process_queue][put]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs_at({4, 8}));
    pq.put_messages(make_msgs_at({4}));
    CHECK(pq.queue_offset_max() == 8);
    CHECK(pq.msg_count() == 2);
}

TEST_CASE("flow-control counters stay exact through put/remove/take/commit/rollback",
          "[process_queue][counters]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    std::vector<rmq::MessageExt> batch;
    for (std::int64_t i = 0; i < 10; ++i) {
        batch.push_back(make_msg(i, static_cast<std::size_t>(i + 1)));  // bodies 1..10 bytes, 55 in all
    }
    pq.put_messages(std::move(batch));
    CHECK(pq.msg_count() == 10);
    CHECK(pq.msg_size() == 55);

    CHECK(pq.remove_messages(Offsets{9}) == 0);  // body 10
    CHECK(pq.msg_count() == 9);
    CHECK(pq.msg_size() == 45);

    const auto taken = pq.take_messages(3);  // 0,1,2 -> bodies 1,2,3
    CHECK(offsets_of(taken) == Offsets{0, 1, 2});
    CHECK(pq.msg_count() == 9);  // taken messages stay counted
    CHECK(pq.msg_size() == 45);

    pq.rollback();
    CHECK(pq.msg_count() == 9);
    CHECK(pq.msg_size() == 45);
    CHECK(pq.min_offset_in_cache() == 0);

    pq.take_messages(3);
    CHECK(pq.commit() == 3);
    CHECK(pq.msg_count() == 6);
    CHECK(pq.msg_size() == 39);

    // Removing what is left zeroes both.
    CHECK(pq.remove_messages(Offsets{3, 4, 5, 6, 7, 8}) == 10);
    CHECK(pq.msg_count() == 0);
    CHECK(pq.msg_size() == 0);
}

TEST_CASE("empty bodies count as messages of zero bytes", "[process_queue][counters]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 3, 0));
    CHECK(pq.msg_count() == 3);
    CHECK(pq.msg_size() == 0);
    CHECK(pq.remove_messages(Offsets{0}) == 1);
    CHECK(pq.msg_count() == 2);
    CHECK(pq.msg_size() == 0);
}

TEST_CASE("clear empties both maps and zeroes the counters", "[process_queue][counters]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 5));
    pq.take_messages(2);
    pq.clear();
    CHECK(pq.msg_count() == 0);
    CHECK(pq.msg_size() == 0);
    CHECK(pq.queue_offset_max() == 0);
    CHECK_FALSE(pq.has_temp_message());
    CHECK(pq.commit() == -1);  // the consuming map went too
    CHECK(pq.info().transaction_msg_count == 0);
}

TEST_CASE("backlog comes from the last message's MAX_OFFSET", "[process_queue][lag]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    CHECK(pq.msg_acc_cnt() == 0);

    auto batch = make_msgs(0, 3);
    batch.back() = with_max_offset(std::move(batch.back()), "100");  // last offset 2
    pq.put_messages(std::move(batch));
    CHECK(pq.msg_acc_cnt() == 98);

    SECTION("only the last message of a batch counts") {
        auto next = make_msgs(3, 2);
        next.front() = with_max_offset(std::move(next.front()), "1000");
        pq.put_messages(std::move(next));
        CHECK(pq.msg_acc_cnt() == 98);
    }
    SECTION("a non-positive backlog keeps the previous estimate") {
        pq.put_messages({with_max_offset(make_msg(3), "3")});
        CHECK(pq.msg_acc_cnt() == 98);
        pq.put_messages({with_max_offset(make_msg(4), "1")});
        CHECK(pq.msg_acc_cnt() == 98);
    }
    SECTION("an unparseable MAX_OFFSET is ignored, the messages still go in") {
        pq.put_messages({with_max_offset(make_msg(3), "12x")});
        pq.put_messages({with_max_offset(make_msg(4), "")});
        CHECK(pq.msg_acc_cnt() == 98);
        CHECK(pq.msg_count() == 5);
    }
    SECTION("a later pull replaces the estimate, also when its last message is a duplicate") {
        pq.put_messages({with_max_offset(make_msg(2), "10")});
        CHECK(pq.msg_acc_cnt() == 8);
        CHECK(pq.msg_count() == 3);
    }
}

TEST_CASE("take returns copies in offset order and moves them out of the cache", "[process_queue][orderly]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::ProcessQueue pq(clock);
    pq.put_messages(make_msgs_at({30, 10, 20, 40}));
    clock->advance(std::chrono::milliseconds(99));

    const auto first = pq.take_messages(3);
    CHECK(offsets_of(first) == Offsets{10, 20, 30});
    CHECK(first[0].body() == std::string(123, 'x'));
    CHECK(pq.last_consume_timestamp() == 99);
    CHECK(pq.min_offset_in_cache() == 40);
    CHECK_FALSE(pq.contains_message(10));
    CHECK(pq.take_messages(0).empty());  // a zero batch takes nothing and ends the dispatch, as Java
    CHECK_FALSE(pq.consuming());
}

TEST_CASE("take, commit: commit returns the last taken offset + 1", "[process_queue][orderly]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 10));
    pq.take_messages(4);
    pq.take_messages(2);  // takes accumulate until committed
    CHECK(pq.info().transaction_msg_count == 6);
    CHECK(pq.commit() == 6);
    CHECK(pq.commit() == -1);
    CHECK(pq.msg_count() == 4);
    CHECK(pq.msg_size() == 4 * 123);
}

TEST_CASE("take, rollback, take again yields the same messages", "[process_queue][orderly]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 5));
    const auto a = pq.take_messages(3);
    pq.rollback();
    CHECK(pq.info().transaction_msg_count == 0);
    CHECK(pq.info().cached_msg_count == 5);
    const auto b = pq.take_messages(3);
    CHECK(offsets_of(a) == offsets_of(b));
    CHECK(a == b);
}

TEST_CASE("make_message_to_consume_again by offset returns part of a batch", "[process_queue][orderly]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 5));
    pq.take_messages(3);  // 0,1,2
    pq.make_message_to_consume_again(Offsets{1, 2, 99});
    CHECK(pq.info().transaction_msg_count == 1);
    CHECK(pq.min_offset_in_cache() == 1);
    CHECK(pq.msg_count() == 5);

    CHECK(pq.commit() == 1);  // only 0 was still taken
    CHECK(pq.msg_count() == 4);
    CHECK(offsets_of(pq.take_messages(10)) == Offsets{1, 2, 3, 4});
}

TEST_CASE("make_message_to_consume_again with messages keeps the caller's changes",
          "[process_queue][orderly]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 2));
    auto taken = pq.take_messages(2);
    for (auto& m : taken) {
        m.set_reconsume_times(m.reconsume_times() + 1);  // checkReconsumeTimes
    }
    pq.make_message_to_consume_again(std::span<const rmq::MessageExt>(taken));
    CHECK(pq.info().transaction_msg_count == 0);
    CHECK(pq.msg_count() == 2);
    const auto again = pq.take_messages(2);
    REQUIRE(again.size() == 2);
    CHECK(again[0].reconsume_times() == 1);
    CHECK(again[1].reconsume_times() == 1);
    CHECK(pq.commit() == 2);
    CHECK(pq.msg_count() == 0);
}

TEST_CASE("orderly: the last take of a drained queue re-arms dispatch for the next put",
          "[process_queue][orderly]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    REQUIRE(pq.put_messages(make_msgs(0, 2)));
    CHECK(pq.take_messages(1).size() == 1);
    CHECK(pq.commit() == 1);
    CHECK(pq.take_messages(1).size() == 1);
    CHECK(pq.commit() == 2);
    CHECK(pq.take_messages(1).empty());
    CHECK(pq.put_messages(make_msgs(2, 1)));
}

TEST_CASE("set_consume_start stamps cached and taken messages so later copies carry it", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    pq.put_messages(make_msgs(0, 3));
    pq.take_messages(1);  // 0 is in the consuming map
    pq.set_consume_start(Offsets{0, 1, 7}, 1'700'000'123'456);
    pq.rollback();
    const auto all = pq.take_messages(3);
    REQUIRE(all.size() == 3);
    CHECK(all[0].property_view(rmq::property::consume_start_timestamp) == "1700000123456");
    CHECK(all[1].property_view(rmq::property::consume_start_timestamp) == "1700000123456");
    CHECK_FALSE(all[2].has_property(rmq::property::consume_start_timestamp));
}

TEST_CASE("flags and the consume lock", "[process_queue]") {
    rmq::ProcessQueue pq(std::make_shared<rmq::ManualClock>());
    CHECK_FALSE(pq.locked());
    CHECK_FALSE(pq.dropped());
    pq.set_locked(true);
    pq.set_dropped(true);
    CHECK(pq.locked());
    CHECK(pq.dropped());
    CHECK(pq.info().locked);
    CHECK(pq.info().dropped);
    pq.set_last_consume_timestamp(5);
    CHECK(pq.last_consume_timestamp() == 5);

    // Another thread (rebalance) cannot take the consume lock while a listener holds it.
    REQUIRE(pq.consume_lock().try_lock());
    auto other = std::async(std::launch::async, [&pq] {
        const bool got = pq.try_lock_consume_for(std::chrono::milliseconds(1));
        if (got) {
            pq.consume_lock().unlock();
        }
        return got;
    });
    CHECK_FALSE(other.get());
    // A waiter gets it once the holder lets go.
    auto after = std::async(std::launch::async, [&pq] {
        const bool got = pq.try_lock_consume_for(std::chrono::seconds(30));
        if (got) {
            pq.consume_lock().unlock();
        }
        return got;
    });
    pq.consume_lock().unlock();
    CHECK(after.get());
}

TEST_CASE("a null clock is rejected", "[process_queue]") {
    CHECK_THROWS_AS(rmq::ProcessQueue(nullptr), rmq::InvalidArgument);
}
