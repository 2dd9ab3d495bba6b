// Java's cleanExpiredMsg: send-back of head messages whose listener started more than consumeTimeout ago.

#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "process_queue_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>
#include <rmq/message.hpp>
#include <rmq/process_queue.hpp>

using pq_test::make_msgs;
using Offsets = std::vector<std::int64_t>;

namespace {

constexpr std::int64_t fifteen_minutes = 15 * 60 * 1000;

struct Fixture {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::ProcessQueue pq{clock};

    // Caches offsets [0, count) and stamps them as started `age_ms` ago (wall time).
    void put_started(std::int64_t count, std::int64_t age_ms) {
        pq.put_messages(make_msgs(0, count));
        Offsets all;
        for (std::int64_t i = 0; i < count; ++i) {
            all.push_back(i);
        }
        pq.set_consume_start(all, clock->wall_millis() - age_ms);
    }
};

// A send_back that records offsets and answers `result`.
struct RecordingSendBack {
    std::vector<std::int64_t>* sent;
    bool result = true;

    bool operator()(const rmq::MessageExt& m) const {
        sent->push_back(m.queue_offset());
        return result;
    }
};

// Failure reports, instead of the default stderr line.
struct Failures {
    std::vector<std::int64_t> offsets;
    std::vector<std::string> reasons;

    auto sink() {
        return [this](const rmq::MessageExt& m, std::exception_ptr e) {
            offsets.push_back(m.queue_offset());
            if (!e) {
                reasons.emplace_back("false");
                return;
            }
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                reasons.emplace_back(ex.what());
            }
        };
    }
};

}  // namespace

TEST_CASE("expired head messages are sent back and removed, at most 16 per run", "[process_queue][expired]") {
    Fixture f;
    f.put_started(20, fifteen_minutes + 1);
    std::vector<std::int64_t> sent;
    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent});
    CHECK(sent.size() == 16);
    CHECK(sent.front() == 0);
    CHECK(sent.back() == 15);
    CHECK(f.pq.msg_count() == 4);
    CHECK(f.pq.msg_size() == 4 * 123);
    CHECK(f.pq.min_offset_in_cache() == 16);

    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent});
    CHECK(sent.size() == 20);
    CHECK(f.pq.msg_count() == 0);
}

TEST_CASE("the run stops at the first head that is not expired", "[process_queue][expired]") {
    Fixture f;
    f.put_started(5, fifteen_minutes + 1);
    f.pq.set_consume_start(Offsets{2}, f.clock->wall_millis() - fifteen_minutes);  // exactly at the limit
    std::vector<std::int64_t> sent;
    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent});
    CHECK(sent == Offsets{0, 1});
    CHECK(f.pq.min_offset_in_cache() == 2);
    CHECK(f.pq.msg_count() == 3);
}

TEST_CASE("a head without CONSUME_START_TIME (never dispatched) stops the run", "[process_queue][expired]") {
    Fixture f;
    f.pq.put_messages(make_msgs(0, 3));
    f.pq.set_consume_start(Offsets{1, 2}, f.clock->wall_millis() - 2 * fifteen_minutes);
    std::vector<std::int64_t> sent;
    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent});
    CHECK(sent.empty());
    CHECK(f.pq.msg_count() == 3);
}

TEST_CASE("a message cached with CONSUME_START_TIME already set counts as started",
          "[process_queue][expired]") {
    Fixture f;
    auto msgs = make_msgs(0, 2);
    msgs[0].set_property(rmq::property::consume_start_timestamp,
                         std::to_string(f.clock->wall_millis() - 2 * fifteen_minutes));
    f.pq.put_messages(std::move(msgs));
    std::vector<std::int64_t> sent;
    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent});
    CHECK(sent == Offsets{0});
    CHECK(f.pq.msg_count() == 1);
}

TEST_CASE("begin_consume stamps the messages and the entries, the sweep reads the entries only",
          "[process_queue][expired]") {
    Fixture f;
    auto batch = std::make_shared<std::vector<rmq::MessageExt>>(make_msgs(0, 3));
    f.pq.put_messages_shared(batch);
    const std::int64_t started = f.clock->wall_millis() - 2 * fifteen_minutes;
    f.pq.begin_consume(std::span<rmq::MessageExt>(*batch).subspan(0, 2), started, [](auto) {});
    CHECK((*batch)[0].property(rmq::property::consume_start_timestamp) == std::to_string(started));
    CHECK_FALSE((*batch)[2].has_property(rmq::property::consume_start_timestamp));
    std::vector<std::int64_t> sent;
    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent});
    CHECK(sent == Offsets{0, 1});  // offset 2 was never started: the run ends there
    CHECK(f.pq.msg_count() == 1);
}

TEST_CASE("nothing cached: send_back is never called", "[process_queue][expired]") {
    Fixture f;
    std::vector<std::int64_t> sent;
    f.pq.clean_expired_msg(0, RecordingSendBack{&sent});
    CHECK(sent.empty());
}

TEST_CASE("expiry follows the clock's wall time", "[process_queue][expired]") {
    Fixture f;
    f.put_started(1, 0);
    std::vector<std::int64_t> sent;
    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent});
    CHECK(sent.empty());
    f.clock->advance(std::chrono::milliseconds(fifteen_minutes));
    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent});
    CHECK(sent.empty());
    f.clock->advance(std::chrono::milliseconds(1));
    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent});
    CHECK(sent == Offsets{0});
    CHECK_FALSE(f.pq.has_temp_message());
}

TEST_CASE("send_back returning false keeps the message and ends the run", "[process_queue][expired]") {
    Fixture f;
    f.put_started(3, fifteen_minutes + 1);
    std::vector<std::int64_t> sent;
    Failures failures;
    f.pq.clean_expired_msg(fifteen_minutes, RecordingSendBack{&sent, false}, failures.sink());
    CHECK(sent == Offsets{0});
    CHECK(failures.offsets == Offsets{0});
    CHECK(failures.reasons == std::vector<std::string>{"false"});
    CHECK(f.pq.msg_count() == 3);
    CHECK(f.pq.min_offset_in_cache() == 0);
}

TEST_CASE("a throwing send_back is reported, keeps the message and ends the run",
          "[process_queue][expired]") {
    Fixture f;
    f.put_started(3, fifteen_minutes + 1);
    int calls = 0;
    Failures failures;
    f.pq.clean_expired_msg(
        fifteen_minutes,
        [&](const rmq::MessageExt&) -> bool {
            ++calls;
            throw std::runtime_error("broker unreachable");
        },
        failures.sink());
    CHECK(calls == 1);
    CHECK(failures.offsets == Offsets{0});
    CHECK(failures.reasons == std::vector<std::string>{"broker unreachable"});
    CHECK(f.pq.msg_count() == 3);
}

TEST_CASE("the default failure report (stderr) does not throw", "[process_queue][expired]") {
    Fixture f;
    f.put_started(2, fifteen_minutes + 1);
    int calls = 0;
    CHECK_NOTHROW(f.pq.clean_expired_msg(fifteen_minutes, [&](const rmq::MessageExt&) {
        ++calls;
        throw std::runtime_error("expected in this test");
    }));
    CHECK(calls == 1);
    CHECK(f.pq.msg_count() == 2);
}

TEST_CASE("a void send_back counts as success", "[process_queue][expired]") {
    Fixture f;
    f.put_started(2, fifteen_minutes + 1);
    int calls = 0;
    f.pq.clean_expired_msg(fifteen_minutes, [&](const rmq::MessageExt&) { ++calls; });
    CHECK(calls == 2);
    CHECK(f.pq.msg_count() == 0);
}

TEST_CASE("send_back runs without the lock, a head that changed meanwhile is not removed",
          "[process_queue][expired]") {
    Fixture f;
    f.put_started(3, fifteen_minutes + 1);
    f.pq.set_consume_start(Offsets{1}, f.clock->wall_millis());  // 1 is fresh
    std::vector<std::int64_t> sent;
    f.pq.clean_expired_msg(fifteen_minutes, [&](const rmq::MessageExt& m) {
        sent.push_back(m.queue_offset());
        // The listener finishes at this very moment: the consumer removes the message itself. This would
        // deadlock if the queue's lock were held around send_back.
        CHECK(f.pq.remove_messages(Offsets{m.queue_offset()}) == 1);
        CHECK(f.pq.put_messages(make_msgs(3, 1)) == false);
        return true;
    });
    CHECK(sent == Offsets{0});     // then 1 is the head and fresh: the run ends
    CHECK(f.pq.msg_count() == 3);  // 1, 2, 3: nothing removed twice
    CHECK(f.pq.msg_size() == 3 * 123);
    CHECK(f.pq.min_offset_in_cache() == 1);
}

TEST_CASE("send_back gets a copy carrying the start time and the message fields",
          "[process_queue][expired]") {
    Fixture f;
    f.put_started(1, fifteen_minutes + 1);
    const std::string expected = std::to_string(f.clock->wall_millis() - fifteen_minutes - 1);
    std::string seen;
    std::string broker;
    f.pq.clean_expired_msg(fifteen_minutes, [&](const rmq::MessageExt& m) {
        seen = std::string(m.property_view(rmq::property::consume_start_timestamp));
        broker = m.broker_name();
        return true;
    });
    CHECK(seen == expected);
    CHECK(broker == "broker-a");
}
