// Orderly POP on the embedded broker (5.3.3's PopMessageProcessor order path and ConsumerOrderInfoManager),
// driven through InProcessTransport with a ManualClock: a queue's messages come in order, none of a queue
// while a batch of it is in flight, the same ones again after their invisible time with their consumed count
// as reconsume times; acks commit and unblock; a change of invisible time moves one message's visibility.

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/in_process.hpp>

namespace pop_order_test {

namespace {

using namespace std::chrono_literals;

struct Fixture {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{[this] {
        rmq::BrokerConfig c;
        c.clock = clock;
        return c;
    }()};
    rmq::InProcessTransport first = broker.connect();
    rmq::InProcessTransport second = broker.connect();

    Fixture() {
        broker.create_topic("T", 2);
        auto producer = broker.connect();
        for (int i = 0; i < 5; ++i) {
            producer.send(rmq::Message("T", "A", "q0-" + std::to_string(i)), broker.queue("T", 0));
        }
        producer.send(rmq::Message("T", "A", "q1-0"), broker.queue("T", 1));
    }

    [[nodiscard]] rmq::PopArgs args(std::int32_t queue_id, std::int32_t max = 3) const {
        rmq::PopArgs a;
        a.consumer_group = "g";
        a.topic = "T";
        a.broker_name = broker.queue("T", 0).broker_name;
        a.queue_id = queue_id;
        a.max_msg_nums = max;
        a.invisible_time_millis = 10000;
        a.init_mode = rmq::ConsumeInitMode::Min;
        a.order = true;
        return a;
    }
};

std::vector<std::string> bodies(const rmq::PopResult& r) {
    std::vector<std::string> out;
    for (const auto& m : r.msg_found_list) {
        out.emplace_back(m.body());
    }
    return out;
}

std::vector<int> reconsumes(const rmq::PopResult& r) {
    std::vector<int> out;
    for (const auto& m : r.msg_found_list) {
        out.push_back(m.reconsume_times());
    }
    return out;
}

/// Waits (at most 10 s) until the broker holds a pop.
bool pop_held(const rmq::InProcessBroker& broker) {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (broker.held_pop_count() == 0) {
        if (std::chrono::steady_clock::now() > until) {
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

void ack(rmq::InProcessTransport& t, const rmq::MessageExt& m) {
    t.ack_message(rmq::AckArgs{"g", "T", std::string(m.property_view(rmq::property::pop_ck))});
}

}  // namespace

TEST_CASE("an orderly pop redelivers a queue's batch in order with its consumed count", "[pop][order]") {
    Fixture f;
    const auto popped = f.first.pop_message(f.args(0));
    CHECK(bodies(popped) == std::vector<std::string>{"q0-0", "q0-1", "q0-2"});
    CHECK(reconsumes(popped) == std::vector<int>{0, 0, 0});
    const auto receipt = rmq::PopReceipt::of(popped.msg_found_list[1]);
    CHECK(receipt.order());
    CHECK(receipt.ck_queue_offset == 0);
    CHECK(receipt.queue_offset == 1);
    CHECK(f.broker.pop_in_flight("g") == 0);  // no check points: nothing to revive

    CHECK(f.first.pop_message(f.args(0)).msg_found_list.empty());  // blocked while invisible
    f.clock->advance(10s);
    const auto again = f.first.pop_message(f.args(0));
    CHECK(bodies(again) == std::vector<std::string>{"q0-0", "q0-1", "q0-2"});
    CHECK(reconsumes(again) == std::vector<int>{1, 1, 1});
    f.clock->advance(10s);
    const auto third = f.first.pop_message(f.args(0, 4));
    CHECK(bodies(third) == std::vector<std::string>{"q0-0", "q0-1", "q0-2", "q0-3"});
    CHECK(reconsumes(third) == std::vector<int>{2, 2, 2, 0});
    CHECK_FALSE(f.broker.has_topic(rmq::pop_retry_topic("T", "g")));  // nothing went to the retry topic
}

TEST_CASE("a blocked queue gives a second consumer nothing until the whole batch is acked", "[pop][order]") {
    Fixture f;
    const auto popped = f.first.pop_message(f.args(0, 2));
    REQUIRE(bodies(popped) == std::vector<std::string>{"q0-0", "q0-1"});
    CHECK(f.second.pop_message(f.args(0)).msg_found_list.empty());
    // Another queue of the topic is not blocked; queue id -1 visits the unblocked ones only.
    CHECK(bodies(f.second.pop_message(f.args(-1))) == std::vector<std::string>{"q1-0"});

    ack(f.first, popped.msg_found_list[0]);
    CHECK(f.second.pop_message(f.args(0)).msg_found_list.empty());  // q0-1 is still in flight
    ack(f.first, popped.msg_found_list[1]);
    const auto next = f.second.pop_message(f.args(0));
    CHECK(bodies(next) == std::vector<std::string>{"q0-2", "q0-3", "q0-4"});
    CHECK(reconsumes(next) == std::vector<int>{0, 0, 0});

    // A spent receipt changes nothing; one of an offset the batch does not have is MESSAGE_ILLEGAL.
    ack(f.first, popped.msg_found_list[0]);
    CHECK(f.first.pop_message(f.args(0)).msg_found_list.empty());
    auto forged = rmq::PopReceipt::of(next.msg_found_list[0]);
    forged.queue_offset = 4000;
    try {
        f.first.ack_message(rmq::AckArgs{"g", "T", forged.to_string()});
        FAIL("an offset out of the batch was acked");
    } catch (const rmq::BrokerError& e) {
        CHECK(e.code() == rmq::response_code::message_illegal);
    }
}

TEST_CASE("an ack of the first message only leaves the rest to come back", "[pop][order]") {
    Fixture f;
    const auto popped = f.first.pop_message(f.args(0));
    ack(f.first, popped.msg_found_list[0]);
    f.clock->advance(10s);
    const auto again = f.second.pop_message(f.args(0));
    CHECK(bodies(again) == std::vector<std::string>{"q0-1", "q0-2", "q0-3"});
    CHECK(reconsumes(again) == std::vector<int>{1, 1, 0});
}

TEST_CASE("changing an order message's invisible time moves when its queue unblocks", "[pop][order]") {
    Fixture f;
    const auto popped = f.first.pop_message(f.args(0, 1));
    REQUIRE(popped.msg_found_list.size() == 1);
    const auto old = rmq::PopReceipt::of(popped.msg_found_list[0]);
    const auto changed = rmq::PopReceipt::parse(f.first.change_invisible_time(rmq::ChangeInvisibleTimeArgs{
        "g", "T", std::string(popped.msg_found_list[0].property_view(rmq::property::pop_ck)), 60000}));
    CHECK(changed.pop_time == old.pop_time);  // the batch's identity
    CHECK(changed.visible_at() == old.pop_time + 60000);
    f.clock->advance(30s);
    CHECK(f.second.pop_message(f.args(0)).msg_found_list.empty());
    f.clock->advance(30s);
    const auto back = f.second.pop_message(f.args(0, 1));
    CHECK(bodies(back) == std::vector<std::string>{"q0-0"});
    CHECK(reconsumes(back) == std::vector<int>{1});
}

TEST_CASE("a held orderly pop is answered when an ack unblocks its queue", "[pop][order]") {
    Fixture f;
    const auto popped = f.first.pop_message(f.args(0, 5));
    REQUIRE(popped.msg_found_list.size() == 5);
    f.broker.connect().send(rmq::Message("T", "A", "q0-5"), f.broker.queue("T", 0));
    auto held = std::async(std::launch::async, [&] {
        auto a = f.args(0);
        a.poll_time_millis = 60000;
        return f.second.pop_message(a);
    });
    REQUIRE(pop_held(f.broker));
    for (const auto& m : popped.msg_found_list) {
        ack(f.first, m);
    }
    const bool answered = held.wait_for(10s) == std::future_status::ready;
    if (!answered) {
        f.clock->advance(60s);  // let the held pop time out, so that the test fails instead of hanging
    }
    REQUIRE(answered);
    CHECK(bodies(held.get()) == std::vector<std::string>{"q0-5"});
}

TEST_CASE("a held asynchronous orderly pop is answered when an ack unblocks its queue", "[pop][order]") {
    Fixture f;
    const auto popped = f.first.pop_message(f.args(0, 5));
    REQUIRE(popped.msg_found_list.size() == 5);
    f.broker.connect().send(rmq::Message("T", "A", "q0-5"), f.broker.queue("T", 0));
    auto promise = std::make_shared<std::promise<rmq::PopResult>>();
    auto answer = promise->get_future();
    auto a = f.args(0);
    a.poll_time_millis = 60000;
    f.second.pop_message(a, [promise](rmq::PopResult r, const std::exception_ptr& e) {
        if (e) {
            promise->set_exception(e);
        } else {
            promise->set_value(std::move(r));
        }
    });
    CHECK(f.broker.held_pop_count() == 1);  // held without a thread: the call returned
    for (const auto& m : popped.msg_found_list) {
        ack(f.first, m);
    }
    const bool answered = answer.wait_for(10s) == std::future_status::ready;
    if (!answered) {
        f.clock->advance(60s);  // answers the held pop empty, so that the test fails instead of hanging
    }
    REQUIRE(answered);
    CHECK(bodies(answer.get()) == std::vector<std::string>{"q0-5"});
}

TEST_CASE("a held orderly pop is answered when its queue's batch becomes visible again", "[pop][order]") {
    Fixture f;
    (void)f.first.pop_message(f.args(0, 1));
    auto held = std::async(std::launch::async, [&] {
        auto a = f.args(0, 1);
        a.poll_time_millis = 60000;
        return f.second.pop_message(a);
    });
    REQUIRE(pop_held(f.broker));
    f.clock->advance(10s);
    const bool answered = held.wait_for(10s) == std::future_status::ready;
    if (!answered) {
        f.clock->advance(60s);  // let the held pop time out, so that the test fails instead of hanging
    }
    REQUIRE(answered);
    const auto r = held.get();
    CHECK(bodies(r) == std::vector<std::string>{"q0-0"});
    CHECK(reconsumes(r) == std::vector<int>{1});
}

TEST_CASE("fifo simple consumers of one group receive each queue in order, a batch at a time",
          "[pop][order]") {
    Fixture f;
    using Consumer = rmq::SimpleConsumer<rmq::InProcessTransport>;
    const rmq::SimpleConsumerConfig config{
        .consumer_group = "g", .init_mode = rmq::ConsumeInitMode::Min, .fifo = true};
    Consumer a(f.broker.connect(), config);
    Consumer b(f.broker.connect(), config);
    a.subscribe("T");
    b.subscribe("T");
    const auto got = a.receive(32, 10s);
    std::vector<std::string> seen;
    for (const auto& m : got) {
        seen.emplace_back(m.body());
    }
    // Both queues, each in order (which queue comes first rotates).
    std::vector<std::string> q0;
    for (const auto& s : seen) {
        if (s.rfind("q0-", 0) == 0) {
            q0.push_back(s);
        }
    }
    CHECK(q0 == std::vector<std::string>{"q0-0", "q0-1", "q0-2", "q0-3", "q0-4"});
    CHECK(seen.size() == 6);
    CHECK(b.receive(32, 10s).empty());  // both queues are blocked for the group

    f.clock->advance(10s);
    const auto again = b.receive(32, 10s);
    REQUIRE(again.size() == 6);
    std::vector<std::string> q0_again;
    for (const auto& m : again) {
        CHECK(m.reconsume_times() == 1);
        if (m.queue_id() == 0) {
            q0_again.emplace_back(m.body());
        }
    }
    CHECK(q0_again == q0);
    b.ack(std::span<const rmq::MessageExt>(again));  // a batch ack commits orderly receipts too
    f.broker.connect().send(rmq::Message("T", "A", "q0-5"), f.broker.queue("T", 0));
    const auto next = a.receive(32, 10s);
    REQUIRE(next.size() == 1);
    CHECK(next[0].body() == "q0-5");
    CHECK(next[0].reconsume_times() == 0);
}

}  // namespace pop_order_test
