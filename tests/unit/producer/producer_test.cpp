// rmq::Producer over the embedded broker.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "producer_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>
#include <rmq/unique_id.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace producer_test {

namespace {

struct Env {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.clock = clock}};
    rmq::Producer<rmq::InProcessTransport> producer{broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "PG"}};

    Env() {
        broker.create_topic("TopicTest", 8);
        producer.start();
    }
};

struct ById {
    rmq::MessageQueue operator()(std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int id) const {
        return mqs[static_cast<std::size_t>(id) % mqs.size()];
    }
};

}  // namespace

static_assert(rmq::MessageQueueSelector<ById, int>);
static_assert(!rmq::MessageQueueSelector<ById, std::string>);
static_assert(!rmq::MessageQueueSelector<
              decltype([](std::span<const rmq::MessageQueue>, const rmq::Message&, int) { return 1; }),
              int>);

TEST_CASE("producer: send round-robins over the write queues") {
    Env e;
    std::vector<std::int32_t> ids;
    for (int i = 0; i < 16; ++i) {
        const auto r = e.producer.send(rmq::Message("TopicTest", "TagA", "", fmt::format("m{}", i)));
        CHECK(r.status == rmq::SendStatus::SendOk);
        CHECK(r.message_queue.topic == "TopicTest");
        CHECK(r.message_queue.broker_name == "broker-a");
        ids.push_back(r.message_queue.queue_id);
    }
    for (std::size_t i = 1; i < ids.size(); ++i) {
        CHECK(ids[i] == (ids[i - 1] + 1) % 8);
    }
    for (int q = 0; q < 8; ++q) {
        CHECK(e.broker.max_offset(e.broker.queue("TopicTest", q)) == 2);
    }
}

TEST_CASE("producer: send with a selector keeps one order id on one queue") {
    Env e;
    std::map<int, std::set<std::int32_t>> queues_of_order;
    for (int i = 0; i < 100; ++i) {
        const int order_id = i % 10;
        const auto r = e.producer.send(
            rmq::Message("TopicTest", "TagA", fmt::format("KEY{}", i), "x"), ById{}, order_id);
        queues_of_order[order_id].insert(r.message_queue.queue_id);
        CHECK(r.message_queue.queue_id == order_id % 8);
    }
    for (const auto& [id, qs] : queues_of_order) {
        CHECK(qs.size() == 1);
    }
    // Lambdas and rvalue args work too.
    const auto r = e.producer.send(
        rmq::Message("TopicTest", "x"),
        [](std::span<const rmq::MessageQueue> mqs, const rmq::Message& m, const std::string& key) {
            CHECK(m.has_property(rmq::property::uniq_client_message_id_keyidx));
            return mqs[key.size() % mqs.size()];
        },
        std::string("abc"));
    CHECK(r.message_queue.queue_id == 3);
}

TEST_CASE("producer: send to a queue, and its topic must match") {
    Env e;
    const auto r = e.producer.send(rmq::Message("TopicTest", "x"), e.broker.queue("TopicTest", 5));
    CHECK(r.message_queue.queue_id == 5);
    CHECK(r.queue_offset == 0);
    CHECK_THROWS_AS(e.producer.send(rmq::Message("TopicTest", "x"), e.broker.queue("Other", 5)),
                    rmq::InvalidArgument);
    CHECK_THROWS_AS(e.producer.send(rmq::Message("TopicTest", "x"), e.broker.queue("TopicTest", 8)),
                    rmq::BrokerError);
}

TEST_CASE("producer: every send carries a MessageClientIDSetter UNIQ_KEY") {
    Env e;
    const auto r1 = e.producer.send(rmq::Message("TopicTest", "TagA", "", "a"));
    const auto r2 = e.producer.send(rmq::Message("TopicTest", "TagA", "", "b"));
    CHECK(r1.msg_id.size() == 32);
    CHECK(r1.msg_id != r2.msg_id);
    CHECK(r1.offset_msg_id.starts_with("7F00000100002A9F"));
    CHECK(rmq::unique_id_pid(r1.msg_id) == (rmq::detail::process_id() & 0xFFFF));
    CHECK(rmq::unique_id_nearly_time(r1.msg_id, e.clock->wall_millis() + 1) == e.clock->wall_millis());
    const auto stored = e.broker.messages(r1.message_queue.topic, r1.message_queue.queue_id);
    REQUIRE_FALSE(stored.empty());
    CHECK(stored.back().property(rmq::property::uniq_client_message_id_keyidx) == r1.msg_id);
    CHECK(stored.back().msg_id() == r1.msg_id);

    rmq::Message own("TopicTest", "c");
    own.set_property(rmq::property::uniq_client_message_id_keyidx, "MINE");
    CHECK(e.producer.send(own).msg_id == "MINE");
}

TEST_CASE("producer: messages are validated before anything is sent") {
    Env e;
    CHECK_THROWS_AS(e.producer.send(rmq::Message("TopicTest", "")), rmq::InvalidArgument);
    CHECK_THROWS_AS(e.producer.send(rmq::Message("TopicTest", std::string(4 * 1024 * 1024 + 1, 'x'))),
                    rmq::InvalidArgument);
    CHECK_THROWS_AS(e.producer.send(rmq::Message("bad topic", "x")), rmq::InvalidArgument);
    CHECK_THROWS_AS(e.producer.send(rmq::Message("", "x")), rmq::InvalidArgument);
    CHECK_THROWS_AS(e.producer.send(rmq::Message("SCHEDULE_TOPIC_XXXX", "x")), rmq::InvalidArgument);
    CHECK_THROWS_AS(e.producer.send(rmq::Message("TopicTest", ""), ById{}, 1), rmq::InvalidArgument);
    for (int q = 0; q < 8; ++q) {
        CHECK(e.broker.max_offset(e.broker.queue("TopicTest", q)) == 0);
    }
    e.producer.send(rmq::Message("TopicTest", std::string(4 * 1024 * 1024, 'x')));  // exactly the max
}

TEST_CASE("producer: lifecycle errors") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.clock = clock}};
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    CHECK_THROWS_AS(p.send(rmq::Message("TopicTest", "x")), rmq::IllegalState);
    p.start();
    CHECK_THROWS_AS(p.start(), rmq::IllegalState);
    CHECK(p.client_id().find('@') != std::string::npos);
    p.shutdown();
    CHECK_THROWS_AS(p.send(rmq::Message("TopicTest", "x")), rmq::IllegalState);
    CHECK_THROWS_AS(p.start(), rmq::IllegalState);
    p.shutdown();

    rmq::Producer<rmq::InProcessTransport> unnamed(broker.connect(), rmq::ProducerConfig{});
    CHECK_THROWS_AS(unnamed.start(), rmq::InvalidArgument);  // DEFAULT_PRODUCER
    rmq::Producer<rmq::InProcessTransport> bad(broker.connect(),
                                               rmq::ProducerConfig{.producer_group = "a b"});
    CHECK_THROWS_AS(bad.start(), rmq::InvalidArgument);
    rmq::Producer<rmq::InProcessTransport> blank(broker.connect(), rmq::ProducerConfig{.producer_group = ""});
    CHECK_THROWS_AS(blank.start(), rmq::InvalidArgument);
}

TEST_CASE("producer: an unknown topic is sent through the TBW102 route and auto-created") {
    Env e;
    const auto r = e.producer.send(rmq::Message("Fresh", "x"));
    CHECK(r.message_queue.topic == "Fresh");
    CHECK(r.message_queue.queue_id < 4);
    CHECK(e.broker.has_topic("Fresh"));

    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker strict{rmq::BrokerConfig{.auto_create_topic_enable = false, .clock = clock}};
    rmq::Producer<rmq::InProcessTransport> p(strict.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    try {
        p.send(rmq::Message("Fresh", "x"));
        FAIL("expected BrokerError");
    } catch (const rmq::BrokerError& err) {
        CHECK(err.code() == rmq::response_code::topic_not_exist);
    }
}

TEST_CASE("producer: retries go to the next queue and stop at non-retryable errors") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.max_message_size = 10, .clock = clock}};
    broker.create_topic("T", 2);
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    try {
        p.send(rmq::Message("T", std::string(11, 'x')));  // the broker's limit: MESSAGE_ILLEGAL, not retried
        FAIL("expected BrokerError");
    } catch (const rmq::BrokerError& err) {
        CHECK(err.code() == rmq::response_code::message_illegal);
    }
    // One failed attempt consumed one queue index; the next send goes to the following queue.
    const auto a = p.send(rmq::Message("T", "ok"));
    const auto b = p.send(rmq::Message("T", "ok"));
    CHECK(a.message_queue.queue_id != b.message_queue.queue_id);
}

TEST_CASE("producer: a retryable failure is retried on another broker, up to retry_times_when_send_failed") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    auto shared = std::make_shared<producer_test::TwoBrokers::Shared>();
    rmq::Producer<producer_test::TwoBrokers> p(producer_test::TwoBrokers(broker.connect(), shared),
                                               rmq::ProducerConfig{.producer_group = "PG"});
    static_assert(rmq::Transport<producer_test::TwoBrokers>);
    p.start();
    const auto route = broker.connect().topic_route("T").write_queues;
    REQUIRE(route.size() == 4);

    SECTION("one failure: the retry leaves the broker that failed and the message is stored once") {
        shared->failing = "*";
        shared->failures_left = 1;
        const auto r = p.send(rmq::Message("T", "once"));
        CHECK(r.status == rmq::SendStatus::SendOk);
        REQUIRE(shared->attempts.size() == 2);
        // TopicPublishInfo.selectOneMessageQueue(lastBrokerName): the retry avoids the broker that just
        // failed.
        CHECK(shared->attempts[1].broker_name != shared->attempts[0].broker_name);
        CHECK(r.message_queue == shared->attempts[1]);
        std::int64_t stored = 0;
        for (int q = 0; q < 4; ++q) {
            stored += broker.max_offset(broker.queue("T", q));
        }
        CHECK(stored == 1);
    }
    SECTION("every retryable code is retried") {
        for (const int code : {rmq::response_code::system_error,
                               14,
                               rmq::response_code::no_permission,
                               rmq::response_code::topic_not_exist}) {
            shared->attempts.clear();
            shared->failing = "*";
            shared->code = code;
            shared->failures_left = 1;
            CAPTURE(code);
            CHECK(p.send(rmq::Message("T", "x")).status == rmq::SendStatus::SendOk);
            CHECK(shared->attempts.size() == 2);
        }
    }
    SECTION("1 + retry_times_when_send_failed attempts, then the broker's error") {
        shared->failing = "*";
        shared->failures_left = 1000;
        for (const int retries : {0, 2, 4}) {
            shared->attempts.clear();
            rmq::Producer<producer_test::TwoBrokers> q(
                producer_test::TwoBrokers(broker.connect(), shared),
                rmq::ProducerConfig{.producer_group = fmt::format("PG{}", retries),
                                    .retry_times_when_send_failed = retries});
            q.start();
            CAPTURE(retries);
            try {
                (void)q.send(rmq::Message("T", "x"));
                FAIL("expected BrokerError");
            } catch (const rmq::BrokerError& err) {
                CHECK(err.code() == rmq::response_code::system_error);
            }
            CHECK(shared->attempts.size() == static_cast<std::size_t>(retries + 1));
        }
    }
    SECTION("a non-retryable failure is not retried") {
        shared->failing = "*";
        shared->code = rmq::response_code::message_illegal;
        shared->failures_left = 1;
        CHECK_THROWS_AS(p.send(rmq::Message("T", "x")), rmq::BrokerError);
        CHECK(shared->attempts.size() == 1);
    }
}

TEST_CASE("producer: concurrent sends from many threads") {
    rmq::InProcessBroker broker;
    broker.create_topic("Conc", 4);
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    std::vector<std::thread> threads;
    std::vector<std::vector<std::string>> ids(4);
    for (std::size_t t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                ids[t].push_back(p.send(rmq::Message("Conc", "TagA", "", "x")).msg_id);
            }
        });
    }
    for (auto& th : threads) {
        th.join();
    }
    std::set<std::string> all;
    for (const auto& v : ids) {
        all.insert(v.begin(), v.end());
    }
    CHECK(all.size() == 800);
    std::int64_t total = 0;
    for (int q = 0; q < 4; ++q) {
        total += broker.max_offset(broker.queue("Conc", q));
    }
    CHECK(total == 800);
}

TEST_CASE("producer: two producers of one process get different client ids") {
    rmq::InProcessBroker broker;
    rmq::Producer<rmq::InProcessTransport> a(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    rmq::Producer<rmq::InProcessTransport> b(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    a.start();
    b.start();
    CHECK(a.client_id() != b.client_id());
    CHECK(a.client_id().find('#') != std::string::npos);  // ip@pid#nanotime, like Java 5.x
    a.shutdown();
    b.shutdown();
}

}  // namespace producer_test
