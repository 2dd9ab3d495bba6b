// The orderly lock table alone (detail/broker/locks.hpp): grant, renew, expiry and owner-only unlock.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/message_queue.hpp>

#include <rmq/detail/broker/locks.hpp>

namespace {

rmq::MessageQueue q(std::int32_t id) {
    return rmq::MessageQueue{"T", "broker-a", id};
}

}  // namespace

TEST_CASE("broker locks: a free queue is granted, a held one only to its holder") {
    rmq::detail::QueueLocks locks(60000);
    CHECK(locks.lock_batch("G", "c1", {q(0), q(1)}, 0) == std::vector{q(0), q(1)});
    CHECK(locks.lock_batch("G", "c2", {q(1), q(2)}, 10) == std::vector{q(2)});
    CHECK(locks.owner("G", q(1), 10) == "c1");
    CHECK(locks.owner("G", q(2), 10) == "c2");
    // Another group has its own table.
    CHECK(locks.lock_batch("H", "c2", {q(1)}, 10) == std::vector{q(1)});
    // A queue named twice in one batch is granted once.
    CHECK(locks.lock_batch("G", "c1", {q(0), q(0)}, 20) == std::vector{q(0)});
}

TEST_CASE("broker locks: a lock not renewed for longer than the max live time expires") {
    rmq::detail::QueueLocks locks(60000);
    REQUIRE(locks.lock_batch("G", "c1", {q(0)}, 0).size() == 1);
    CHECK(locks.owner("G", q(0), 60000) == "c1");  // exactly the max live time: still held
    CHECK(locks.lock_batch("G", "c2", {q(0)}, 60000).empty());
    CHECK_FALSE(locks.owner("G", q(0), 60001).has_value());
    // Renewal moves the expiry.
    REQUIRE(locks.lock_batch("G", "c1", {q(0)}, 50000).size() == 1);
    CHECK(locks.owner("G", q(0), 110000) == "c1");
    CHECK(locks.lock_batch("G", "c2", {q(0)}, 110001) == std::vector{q(0)});
    CHECK(locks.owner("G", q(0), 110001) == "c2");
}

TEST_CASE("broker locks: unlock removes only the caller's locks") {
    rmq::detail::QueueLocks locks(60000);
    REQUIRE(locks.lock_batch("G", "c1", {q(0)}, 0).size() == 1);
    REQUIRE(locks.lock_batch("G", "c2", {q(1)}, 0).size() == 1);
    locks.unlock_batch("G", "c1", {q(0), q(1)});
    CHECK_FALSE(locks.owner("G", q(0), 0).has_value());
    CHECK(locks.owner("G", q(1), 0) == "c2");
    locks.unlock_batch("unknown", "c2", {q(1)});  // no table: nothing happens
    CHECK(locks.owner("G", q(1), 0) == "c2");
}
