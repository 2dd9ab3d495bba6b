// POP long polling on the embedded broker (PopLongPollingService), on a ManualClock: a POP with a poll time
// that finds nothing is held until a matching message arrives (any queue of the topic, or the one asked
// for), or the poll time ends (PollingNotFound, Java's POLLING_TIMEOUT); past max_pop_polling_size held pops
// (or pop_polling_size on one key) it is answered PollingFull at once; a consumer can interrupt its own.

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "consumer_fixture.hpp"

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/transport/in_process.hpp>

namespace pop_long_poll_test {

namespace {

using namespace std::chrono_literals;

struct Fixture {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    /// Every pop_async; destroyed after the broker, whose stop fails the pops still held (a failed REQUIRE
    /// must not leave a test waiting for a pop that nothing answers).
    std::vector<std::shared_future<rmq::PopResult>> pops;
    rmq::InProcessBroker broker;
    rmq::InProcessTransport producer;
    rmq::InProcessTransport popper;

    explicit Fixture(std::int64_t max_pop_polling_size = 100000, std::int32_t pop_polling_size = 1024)
        : broker([&] {
            rmq::BrokerConfig c;
            c.clock = clock;
            c.max_pop_polling_size = max_pop_polling_size;
            c.pop_polling_size = pop_polling_size;
            return c;
        }())
        , producer(broker.connect())
        , popper(broker.connect()) {
        broker.create_topic("T", 4);
    }

    static rmq::PopArgs args(std::int32_t queue_id = -1, std::string tag = "*", std::string group = "g") {
        rmq::PopArgs a;
        a.consumer_group = std::move(group);
        a.topic = "T";
        a.broker_name = "broker-a";
        a.queue_id = queue_id;
        a.invisible_time_millis = 30000;
        a.poll_time_millis = 5000;
        a.expression = std::move(tag);
        return a;
    }

    /// A pop on its own thread (the broker blocks it while it is held), with its own copy of the connection.
    std::shared_future<rmq::PopResult> pop_async(rmq::PopArgs a) {
        auto pop = std::async(std::launch::async, [p = popper, a]() mutable { return p.pop_message(a); });
        pops.push_back(pop.share());
        return pops.back();
    }

    /// Waits until `n` pops are held.
    [[nodiscard]] bool held(std::size_t n) {
        return consumer_fixture::eventually([&] { return broker.held_pop_count() == n; }, 10s);
    }

    void send(std::int32_t queue_id, const std::string& tag = "A") {
        producer.send(rmq::Message("T", tag, "body"), broker.queue("T", queue_id));
    }
};

bool ready(const std::shared_future<rmq::PopResult>& f) {
    return f.wait_for(0s) == std::future_status::ready;
}

}  // namespace

TEST_CASE("a held pop of any queue is answered by the message sent to the topic meanwhile", "[pop]") {
    Fixture f;
    auto pop = f.pop_async(Fixture::args());
    REQUIRE(f.held(1));
    f.send(2);
    REQUIRE(pop.wait_for(10s) == std::future_status::ready);
    const auto result = pop.get();
    CHECK(result.status == rmq::PopStatus::Found);
    REQUIRE(result.msg_found_list.size() == 1);
    CHECK(result.msg_found_list[0].queue_id() == 2);
    CHECK(f.broker.held_pop_count() == 0);
}

TEST_CASE("a held pop of one queue wakes only for its queue and matching tags", "[pop]") {
    Fixture f;
    auto pop = f.pop_async(Fixture::args(1, "A"));
    REQUIRE(f.held(1));
    f.send(0, "A");  // another queue
    f.send(1, "B");  // another tag
    f.broker.drain();
    CHECK(f.broker.held_pop_count() == 1);
    CHECK_FALSE(ready(pop));
    f.send(1, "A");
    REQUIRE(pop.wait_for(10s) == std::future_status::ready);
    const auto result = pop.get();
    CHECK(result.status == rmq::PopStatus::Found);
    REQUIRE(result.msg_found_list.size() == 1);
    CHECK(result.msg_found_list[0].queue_id() == 1);
    CHECK(result.msg_found_list[0].tags() == "A");
}

TEST_CASE("a held pop that nothing matches is answered PollingNotFound when its poll time ends", "[pop]") {
    Fixture f;
    auto pop = f.pop_async(Fixture::args());
    REQUIRE(f.held(1));
    f.clock->advance(4999ms);
    CHECK(f.broker.held_pop_count() == 1);
    CHECK_FALSE(ready(pop));
    f.clock->advance(1ms);
    REQUIRE(pop.wait_for(10s) == std::future_status::ready);
    const auto result = pop.get();
    CHECK(result.status == rmq::PopStatus::PollingNotFound);
    CHECK(result.msg_found_list.empty());
    CHECK(f.broker.held_pop_count() == 0);
}

TEST_CASE("a pop without poll time on an empty topic is answered at once", "[pop]") {
    Fixture f;
    auto a = Fixture::args();
    a.poll_time_millis = 0;
    const auto result = f.popper.pop_message(a);
    CHECK(result.status == rmq::PopStatus::PollingNotFound);
    CHECK(f.broker.held_pop_count() == 0);
}

TEST_CASE("pops past max_pop_polling_size are answered PollingFull at once", "[pop]") {
    Fixture f(2);
    auto first = f.pop_async(Fixture::args(0));
    auto second = f.pop_async(Fixture::args(1));
    REQUIRE(f.held(2));
    const auto third = f.popper.pop_message(Fixture::args(2));
    CHECK(third.status == rmq::PopStatus::PollingFull);
    CHECK(third.msg_found_list.empty());
    f.clock->advance(5s);
    CHECK(first.get().status == rmq::PopStatus::PollingNotFound);
    CHECK(second.get().status == rmq::PopStatus::PollingNotFound);
}

TEST_CASE("pops past pop_polling_size on one topic, group and queue are answered PollingFull", "[pop]") {
    Fixture f(100000, 0);
    auto first = f.pop_async(Fixture::args(0));
    REQUIRE(f.held(1));
    CHECK(f.popper.pop_message(Fixture::args(0)).status == rmq::PopStatus::PollingFull);
    auto other_queue = f.pop_async(Fixture::args(1));
    REQUIRE(f.held(2));
    f.clock->advance(5s);
    CHECK(first.get().status == rmq::PopStatus::PollingNotFound);
    CHECK(other_queue.get().status == rmq::PopStatus::PollingNotFound);
}

TEST_CASE("interrupt_pops answers the connection's held pops of the group until resume_pops", "[pop]") {
    Fixture f;
    auto other_group = f.pop_async(Fixture::args(-1, "*", "h"));
    auto pop = f.pop_async(Fixture::args());
    REQUIRE(f.held(2));
    f.popper.interrupt_pops("g");
    REQUIRE(pop.wait_for(10s) == std::future_status::ready);
    CHECK(pop.get().msg_found_list.empty());
    CHECK(f.broker.held_pop_count() == 1);                                // group h is still held
    CHECK(f.popper.pop_message(Fixture::args()).msg_found_list.empty());  // not held: answered at once
    f.popper.resume_pops("g");
    auto again = f.pop_async(Fixture::args());
    REQUIRE(f.held(2));
    f.clock->advance(5s);
    CHECK(again.get().status == rmq::PopStatus::PollingNotFound);
    CHECK(other_group.get().status == rmq::PopStatus::PollingNotFound);
}

TEST_CASE("a message whose invisible time expired wakes the group's held pop of any queue", "[pop]") {
    Fixture f;
    f.send(0);
    auto a = Fixture::args();
    a.invisible_time_millis = 10000;
    REQUIRE(f.popper.pop_message(a).msg_found_list.size() == 1);
    a.poll_time_millis = 20000;
    auto pop = f.pop_async(a);
    REQUIRE(f.held(1));
    f.clock->advance(10s);  // revived to %RETRY%g_T
    REQUIRE(pop.wait_for(10s) == std::future_status::ready);
    const auto result = pop.get();
    REQUIRE(result.msg_found_list.size() == 1);
    CHECK(result.msg_found_list[0].reconsume_times() == 1);
}

TEST_CASE("stopping the broker fails its held pops", "[pop]") {
    rmq::BrokerConfig c;
    c.clock = std::make_shared<rmq::ManualClock>();
    auto broker = std::make_unique<rmq::InProcessBroker>(c);
    broker->create_topic("T", 4);
    auto popper = broker->connect();
    auto pop = std::async(std::launch::async, [&] { return popper.pop_message(Fixture::args()); });
    REQUIRE(consumer_fixture::eventually([&] { return broker->held_pop_count() == 1; }, 10s));
    broker.reset();
    REQUIRE(pop.wait_for(10s) == std::future_status::ready);
    CHECK_THROWS_AS(pop.get(), rmq::BrokerError);
}

}  // namespace pop_long_poll_test
