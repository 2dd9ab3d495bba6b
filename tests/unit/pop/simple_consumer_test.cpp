// rmq::SimpleConsumer on the embedded broker with a ManualClock: receive and ack, invisibility that expires
// (redelivery with reconsume times + 1 from the pop retry topic), change of invisible duration, a lost ack,
// the DLQ past retry_max_times, and two members of one group sharing the queues.

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/in_process.hpp>

namespace simple_consumer_test {

namespace {

using namespace std::chrono_literals;
using Consumer = rmq::SimpleConsumer<rmq::InProcessTransport>;

struct Fixture {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker;
    rmq::InProcessTransport producer;

    explicit Fixture(std::int32_t retry_max_times = 16)
        : broker([&] {
            rmq::BrokerConfig c;
            c.clock = clock;
            c.retry_max_times = retry_max_times;
            return c;
        }())
        , producer(broker.connect()) {
        broker.create_topic("T", 4);
    }

    void send(int n, std::string_view tag = "A") {
        for (int i = 0; i < n; ++i) {
            rmq::Message m("T", tag, fmt::format("m{}", sent));
            producer.send(m, broker.queue("T", sent % 4));
            ++sent;
        }
    }

    std::unique_ptr<Consumer> consumer(const std::string& group = "g") {
        auto c =
            std::make_unique<Consumer>(broker.connect(), rmq::SimpleConsumerConfig{.consumer_group = group});
        c->subscribe("T");
        return c;
    }

    int sent = 0;
};

/// Receives until a receive comes back empty.
std::vector<rmq::MessageExt> drain(Consumer& c, std::chrono::milliseconds invisible = 30s) {
    std::vector<rmq::MessageExt> out;
    for (;;) {
        auto got = c.receive(32, invisible);
        if (got.empty()) {
            return out;
        }
        for (auto& m : got) {
            out.push_back(std::move(m));
        }
    }
}

std::multiset<std::string> bodies(const std::vector<rmq::MessageExt>& msgs) {
    std::multiset<std::string> out;
    for (const auto& m : msgs) {
        out.insert(m.body());
    }
    return out;
}

}  // namespace

TEST_CASE("simple consumer receives every message once and acks them", "[pop]") {
    Fixture f;
    f.send(10);
    auto c = f.consumer();
    const auto got = drain(*c);
    REQUIRE(got.size() == 10);
    CHECK(bodies(got).size() == 10);
    for (const auto& m : got) {
        CHECK(m.topic() == "T");
        CHECK(m.reconsume_times() == 0);
        const auto r = rmq::PopReceipt::of(m);
        CHECK(r.broker_name == "broker-a");
        CHECK(r.queue_offset == m.queue_offset());
        CHECK(r.invisible_time == 30000);
        CHECK_FALSE(r.retry);
    }
    CHECK(f.broker.pop_in_flight("g") == 10);
    for (const auto& m : got) {
        c->ack(m);
    }
    CHECK(f.broker.pop_in_flight("g") == 0);
    f.clock->advance(60s);
    CHECK(c->receive(32, 30s).empty());  // acked: never back
}

TEST_CASE("ack_async acks as ack does, its future ready once the broker answered", "[pop]") {
    Fixture f;
    f.send(6);
    auto c = f.consumer();
    const auto got = drain(*c);
    REQUIRE(got.size() == 6);
    std::vector<std::future<void>> acks;
    for (const auto& m : got) {
        acks.push_back(c->ack_async(m));
    }
    for (auto& a : acks) {
        REQUIRE(a.wait_for(10s) == std::future_status::ready);
        a.get();
    }
    CHECK(f.broker.pop_in_flight("g") == 0);
    f.clock->advance(60s);
    CHECK(c->receive(32, 30s).empty());  // acked: never back
    rmq::MessageExt no_receipt;
    no_receipt.set_topic("T");
    CHECK_THROWS_AS(c->ack_async(no_receipt), rmq::InvalidArgument);
}

TEST_CASE("an unacked message comes back after its invisible duration with reconsume times + 1", "[pop]") {
    Fixture f;
    f.send(1);
    auto c = f.consumer();
    const auto first = c->receive(32, 10s);
    REQUIRE(first.size() == 1);
    f.clock->advance(9s);
    CHECK(c->receive(32, 10s).empty());  // still invisible
    f.clock->advance(1s);
    const auto again = c->receive(32, 10s);
    REQUIRE(again.size() == 1);
    CHECK(again[0].body() == first[0].body());
    CHECK(again[0].reconsume_times() == 1);
    CHECK(again[0].topic() == "T");
    CHECK(rmq::PopReceipt::of(again[0]).retry);  // served from %RETRY%g_T
    CHECK(f.broker.messages(rmq::pop_retry_topic("T", "g"), 0).size() == 1);
    c->ack(again[0]);
    CHECK(f.broker.pop_in_flight("g") == 0);
    f.clock->advance(60s);
    CHECK(c->receive(32, 10s).empty());
}

TEST_CASE("change_invisible_duration postpones the redelivery and spends the old receipt", "[pop]") {
    Fixture f;
    f.send(1);
    auto c = f.consumer();
    auto got = c->receive(1, 10s);
    REQUIRE(got.size() == 1);
    const rmq::MessageExt old = got[0];
    f.clock->advance(5s);
    c->change_invisible_duration(got[0], 60s);
    CHECK(rmq::PopReceipt::of(got[0]).invisible_time == 60000);
    CHECK(rmq::PopReceipt::of(got[0]).pop_time == f.clock->wall_millis());
    CHECK_THROWS_AS(c->change_invisible_duration(const_cast<rmq::MessageExt&>(old), 1s), rmq::BrokerError);
    c->ack(old);  // a spent receipt: ignored
    CHECK(f.broker.pop_in_flight("g") == 1);
    f.clock->advance(30s);  // past the first duration
    CHECK(c->receive(32, 10s).empty());
    f.clock->advance(31s);  // past the new one
    const auto back = c->receive(32, 10s);
    REQUIRE(back.size() == 1);
    CHECK(back[0].reconsume_times() == 1);
}

TEST_CASE("a lost ack makes the message come back", "[pop]") {
    Fixture f;
    f.send(1);
    auto c = f.consumer();
    const auto got = c->receive(32, 10s);
    REQUIRE(got.size() == 1);
    f.broker.inject_failure(rmq::BrokerRequest::Ack, rmq::response_code::system_error);
    CHECK_THROWS_AS(c->ack(got[0]), rmq::BrokerError);
    f.clock->advance(10s);
    const auto back = c->receive(32, 10s);
    REQUIRE(back.size() == 1);
    CHECK(back[0].body() == got[0].body());
    c->ack(back[0]);
    CHECK(f.broker.pop_in_flight("g") == 0);
}

TEST_CASE("a message never acked goes to the DLQ past retry_max_times", "[pop]") {
    Fixture f(2);
    f.send(1);
    auto c = f.consumer();
    std::vector<int> reconsumes;
    for (int i = 0; i < 5; ++i) {
        const auto got = c->receive(32, 1s);
        if (got.empty()) {
            break;
        }
        reconsumes.push_back(got[0].reconsume_times());
        f.clock->advance(1s);
    }
    CHECK(reconsumes == std::vector<int>{0, 1, 2});
    const auto dlq = f.broker.messages(rmq::dlq_topic("g"), 0);
    REQUIRE(dlq.size() == 1);
    CHECK(dlq[0].reconsume_times() == 3);
    CHECK(dlq[0].body() == "m0");
    CHECK(f.broker.pop_in_flight("g") == 0);
}

TEST_CASE("two simple consumers of one group share the queues without loss or duplicates", "[pop]") {
    Fixture f;
    f.send(100);
    auto a = f.consumer();
    auto b = f.consumer();
    std::vector<rmq::MessageExt> got_a;
    std::vector<rmq::MessageExt> got_b;
    for (int round = 0; round < 100; ++round) {
        auto x = a->receive(7, 30s);
        auto y = b->receive(5, 30s);
        if (x.empty() && y.empty()) {
            break;
        }
        for (auto& m : x) {
            a->ack(m);
            got_a.push_back(std::move(m));
        }
        for (auto& m : y) {
            b->ack(m);
            got_b.push_back(std::move(m));
        }
    }
    CHECK_FALSE(got_a.empty());
    CHECK_FALSE(got_b.empty());
    auto all = bodies(got_a);
    for (const auto& m : got_b) {
        all.insert(m.body());
    }
    CHECK(all.size() == 100);
    CHECK(std::set<std::string>(all.begin(), all.end()).size() == 100);
    CHECK(f.broker.pop_in_flight("g") == 0);
}

TEST_CASE("another group receives the same messages on its own", "[pop]") {
    Fixture f;
    f.send(8);
    auto a = f.consumer("g1");
    auto b = f.consumer("g2");
    CHECK(drain(*a).size() == 8);
    CHECK(drain(*b).size() == 8);
}

TEST_CASE("a tag selector receives only its tags", "[pop]") {
    Fixture f;
    f.send(4, "A");
    f.send(4, "B");
    Consumer c(f.broker.connect(), rmq::SimpleConsumerConfig{.consumer_group = "g"});
    c.subscribe("T", rmq::MessageSelector::by_tag("B"));
    const auto got = drain(c);
    REQUIRE(got.size() == 4);
    for (const auto& m : got) {
        CHECK(m.tags() == "B");
    }
}

TEST_CASE("simple consumer arguments are checked", "[pop]") {
    Fixture f;
    CHECK_THROWS_AS(Consumer(f.broker.connect(), rmq::SimpleConsumerConfig{}), rmq::InvalidArgument);
    CHECK_THROWS_AS(
        Consumer(f.broker.connect(), rmq::SimpleConsumerConfig{.consumer_group = "g", .await_duration = -1}),
        rmq::InvalidArgument);
    Consumer c(f.broker.connect(), rmq::SimpleConsumerConfig{.consumer_group = "g"});
    CHECK_THROWS_WITH(c.receive(1, 1s), Catch::Contains("subscribes no topic"));
    CHECK_THROWS_AS(c.subscribe("Nope"), rmq::BrokerError);
    c.subscribe("T");
    CHECK_THROWS_AS(c.receive(0, 1s), rmq::InvalidArgument);
    CHECK_THROWS_AS(c.receive(33, 1s), rmq::InvalidArgument);
    CHECK_THROWS_AS(c.receive(1, 0s), rmq::InvalidArgument);
    rmq::MessageExt not_popped;
    CHECK_THROWS_AS(c.ack(not_popped), rmq::InvalidArgument);
    c.unsubscribe("T");
    CHECK(c.subscriptions().empty());
}

}  // namespace simple_consumer_test
