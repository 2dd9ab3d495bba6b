// The asynchronous POP_MESSAGE (rmq::HasAsyncPop): on the embedded broker (a ManualClock) a pop to hold
// returns at once and is parked with its completion, answered by an arriving message, its poll time, an
// interruption or the broker's stop; over remoting the completion gets the decoded answer, a 4.x broker's
// refusal as rmq::PopUnsupported, and an interrupted group's pop is answered without sending.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/remoting/headers/pop.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transport/in_process.hpp>
#include <rmq/transport/remoting.hpp>

namespace async_pop_test {

namespace {

using namespace std::chrono_literals;
using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;

/// One asynchronous pop's outcome, read on the test thread.
struct Answer {
    std::promise<rmq::PopResult> promise;
    std::future<rmq::PopResult> future = promise.get_future();

    rmq::PopCompletion completion() {
        return [this](rmq::PopResult result, const std::exception_ptr& error) {
            if (error) {
                promise.set_exception(error);
            } else {
                promise.set_value(std::move(result));
            }
        };
    }

    [[nodiscard]] bool ready(std::chrono::milliseconds wait = 0ms) const {
        return future.wait_for(wait) == std::future_status::ready;
    }
};

struct Broker {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{[this] {
        rmq::BrokerConfig c;
        c.clock = clock;
        return c;
    }()};
    rmq::InProcessTransport producer = broker.connect();
    rmq::InProcessTransport popper = broker.connect();

    Broker() { broker.create_topic("T", 4); }

    static rmq::PopArgs args() {
        rmq::PopArgs a;
        a.consumer_group = "g";
        a.topic = "T";
        a.broker_name = "broker-a";
        a.invisible_time_millis = 30000;
        a.poll_time_millis = 5000;
        return a;
    }
};

/// A 5.x broker's answer to a pop: one message of queue 2 at offset 40.
void answer_pop(const Command& req, Command& r) {
    if (req.code != rc::pop_message) {
        return;
    }
    rmq::remoting::PopMessageResponseHeader h;
    h.pop_time = 1700000000000;
    h.invisible_time = 20000;
    h.revive_qid = 1;
    h.start_offset_info = "0 2 40";
    h.msg_offset_info = "0 2 40";
    r.ext_fields = rmq::remoting::to_ext_fields(h);
    rmq::MessageExt m;
    m.set_topic("T");
    m.set_queue_id(2);
    m.set_queue_offset(40);
    m.set_body("hello");
    m.set_born_host("127.0.0.1:5000");
    m.set_store_host("127.0.0.1:10911");
    r.body = rmq::remoting::encode_message(m);
}

rmq::RemotingTransport transport_to(rmq_test::FakeServer& server) {
    rmq::RemotingConfig c;
    c.namesrv_addr = server.address();
    return rmq::RemotingTransport{c};
}

}  // namespace

TEST_CASE("an asynchronous pop on the embedded broker is held without a thread until a message arrives",
          "[pop]") {
    Broker b;
    Answer answer;
    b.popper.pop_message(Broker::args(), answer.completion());  // returns at once: nothing to pop
    CHECK(b.broker.held_pop_count() == 1);
    CHECK_FALSE(answer.ready(50ms));
    b.producer.send(rmq::Message("T", "A", "body"), b.broker.queue("T", 3));
    REQUIRE(answer.ready(10s));
    const auto result = answer.future.get();
    CHECK(result.status == rmq::PopStatus::Found);
    REQUIRE(result.msg_found_list.size() == 1);
    CHECK(result.msg_found_list[0].body() == "body");
    CHECK(b.broker.held_pop_count() == 0);
    CHECK(b.broker.pop_in_flight("g") == 1);
}

TEST_CASE("an asynchronous pop finds what is there at once", "[pop]") {
    Broker b;
    b.producer.send(rmq::Message("T", "A", "body"), b.broker.queue("T", 0));
    Answer answer;
    b.popper.pop_message(Broker::args(), answer.completion());
    REQUIRE(answer.ready(10s));
    CHECK(answer.future.get().msg_found_list.size() == 1);
    CHECK(b.broker.held_pop_count() == 0);
}

TEST_CASE("a held asynchronous pop is answered empty at its poll time on the broker's clock", "[pop]") {
    Broker b;
    Answer answer;
    b.popper.pop_message(Broker::args(), answer.completion());
    b.clock->advance(4999ms);
    CHECK_FALSE(answer.ready(50ms));
    b.clock->advance(1ms);
    REQUIRE(answer.ready(10s));
    CHECK(answer.future.get().status == rmq::PopStatus::PollingNotFound);
    CHECK(b.broker.held_pop_count() == 0);
}

TEST_CASE("interrupt_pops answers a held asynchronous pop and the broker's stop fails one", "[pop]") {
    Answer interrupted;
    Answer stopped;
    {
        Broker b;
        b.popper.pop_message(Broker::args(), interrupted.completion());
        auto other = Broker::args();
        other.consumer_group = "h";
        b.popper.pop_message(other, stopped.completion());
        REQUIRE(b.broker.held_pop_count() == 2);
        b.popper.interrupt_pops("g");
        REQUIRE(interrupted.ready(10s));
        CHECK(interrupted.future.get().status == rmq::PopStatus::PollingNotFound);
        CHECK_FALSE(stopped.ready(50ms));
    }  // the broker stops
    REQUIRE(stopped.ready(10s));
    CHECK_THROWS_AS(stopped.future.get(), rmq::BrokerError);
}

TEST_CASE("an asynchronous pop's failure goes to its completion", "[pop]") {
    Broker b;
    Answer answer;
    auto a = Broker::args();
    a.topic = "Nowhere";
    b.popper.pop_message(a, answer.completion());
    REQUIRE(answer.ready(10s));
    CHECK_THROWS_AS(answer.future.get(), rmq::BrokerError);
}

TEST_CASE("an asynchronous pop over remoting gets the decoded answer on the io thread", "[pop]") {
    rmq_test::FakeServer server;
    rmq_test::answer_ok(server, answer_pop);
    auto t = transport_to(server);
    (void)t.topic_route("T");
    Answer answer;
    t.pop_message(Broker::args(), answer.completion());
    REQUIRE(answer.ready(10s));
    const auto result = answer.future.get();
    CHECK(result.status == rmq::PopStatus::Found);
    REQUIRE(result.msg_found_list.size() == 1);
    CHECK(result.msg_found_list[0].property_view(rmq::property::pop_ck) ==
          "40 1700000000000 20000 1 0 broker-a 2 40");
    const auto pops = rmq_test::requests_of(server, rc::pop_message);
    REQUIRE(pops.size() == 1);
    CHECK(pops[0].ext_fields->get("pollTime") == std::optional<std::string_view>("5000"));
}

TEST_CASE("an asynchronous orderly pop over remoting sends order and reads orderCountInfo", "[pop]") {
    rmq_test::FakeServer server;
    rmq_test::answer_ok(server, [](const Command& req, Command& r) {
        answer_pop(req, r);
        if (req.code == rc::pop_message) {
            r.ext_fields->set("orderCountInfo", "0 qo2%40 3;0 2 0");
        }
    });
    auto t = transport_to(server);
    (void)t.topic_route("T");
    Answer answer;
    auto args = Broker::args();
    args.order = true;
    t.pop_message(args, answer.completion());
    REQUIRE(answer.ready(10s));
    const auto result = answer.future.get();
    REQUIRE(result.msg_found_list.size() == 1);
    CHECK(result.msg_found_list[0].reconsume_times() == 3);
    const auto pops = rmq_test::requests_of(server, rc::pop_message);
    REQUIRE(pops.size() == 1);
    CHECK(pops[0].ext_fields->get("order") == std::optional<std::string_view>("true"));
}

TEST_CASE("an asynchronous pop over remoting reports a 4.x broker as PopUnsupported", "[pop]") {
    rmq_test::FakeServer server;
    rmq_test::answer_ok(server, [](const Command& req, Command& r) {
        if (req.code == rc::pop_message) {
            r.code = rmq::response_code::request_code_not_supported;
            r.remark = " request type 200050 not supported";
        }
    });
    auto t = transport_to(server);
    (void)t.topic_route("T");
    Answer answer;
    t.pop_message(Broker::args(), answer.completion());
    REQUIRE(answer.ready(10s));
    CHECK_THROWS_AS(answer.future.get(), rmq::PopUnsupported);
}

TEST_CASE("an asynchronous pop of an interrupted group over remoting is answered without sending", "[pop]") {
    rmq_test::FakeServer server;
    rmq_test::answer_ok(server, answer_pop);
    auto t = transport_to(server);
    (void)t.topic_route("T");
    t.interrupt_pops("g");
    Answer answer;
    t.pop_message(Broker::args(), answer.completion());
    REQUIRE(answer.ready());  // before pop_message returned
    CHECK(answer.future.get().status == rmq::PopStatus::PollingNotFound);
    CHECK(rmq_test::requests_of(server, rc::pop_message).empty());
    t.resume_pops("g");
    Answer sent;
    t.pop_message(Broker::args(), sent.completion());
    REQUIRE(sent.ready(10s));
    CHECK(sent.future.get().msg_found_list.size() == 1);
}

}  // namespace async_pop_test
