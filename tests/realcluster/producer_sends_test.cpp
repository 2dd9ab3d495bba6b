// rmq Producer<RemotingTransport> against Apache RocketMQ (5.3.3, and 4.9.7 with RMQ_VERSION=4.9.7):
// asynchronous and oneway sends, batches (SEND_BATCH_MESSAGE) and 5.x timer messages.

#include <chrono>
#include <future>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cluster.hpp"
#include "round_trip.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using RemoteProducer = rmq::Producer<rmq::RemotingTransport>;

std::set<std::string> split_ids(const std::string& joined) {
    std::set<std::string> ids;
    std::size_t start = 0;
    while (start <= joined.size()) {
        const auto end = std::min(joined.find(',', start), joined.size());
        ids.insert(joined.substr(start, end - start));
        start = end + 1;
    }
    return ids;
}

}  // namespace

TEST_CASE("async sends: futures and callbacks, every message consumed back", "[realcluster][async_send]") {
    const std::string topic = rmq_rc::unique("RcAsync");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    RemoteProducer producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
    producer.start();
    std::vector<std::future<rmq::SendResult>> futures;
    for (int i = 0; i < 100; ++i) {
        futures.push_back(producer.send_async(rmq::Message(topic, "TagA", fmt::format("k-{}", i), "async")));
    }
    std::set<std::string> sent;
    for (auto& f : futures) {
        const auto r = f.get();
        CHECK(r.status == rmq::SendStatus::SendOk);
        sent.insert(r.msg_id);
    }
    std::promise<rmq::SendResult> cb;
    producer.send_async(
        rmq::Message(topic, "TagA", "callback", "cb"),
        [&](rmq::SendResult r) { cb.set_value(std::move(r)); },
        [&](std::exception_ptr e) { cb.set_exception(std::move(e)); });
    sent.insert(cb.get_future().get().msg_id);
    // To a queue and by a selector: one attempt each, over the transport's asynchronous send.
    const rmq::MessageQueue mq{topic, transport.topic_route(topic).write_queues.at(0).broker_name, 1};
    const auto by_id = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int id) {
        return mqs[static_cast<std::size_t>(id) % mqs.size()];
    };
    futures.clear();
    for (int i = 0; i < 20; ++i) {
        futures.push_back(producer.send_async(rmq::Message(topic, "TagA", "to-queue"), mq));
        futures.push_back(producer.send_async(rmq::Message(topic, "TagA", "selected"), by_id, i));
    }
    for (std::size_t i = 0; i < futures.size(); ++i) {
        const auto r = futures[i].get();
        CHECK(r.status == rmq::SendStatus::SendOk);
        if (i % 2 == 0) {
            CHECK(r.message_queue == mq);
        }
        sent.insert(r.msg_id);
    }
    REQUIRE(sent.size() == 141);
    rmq_rc::consume_all<false>(transport, rmq_rc::consumer_config(), topic, sent);
    producer.shutdown();
}

TEST_CASE("oneway sends reach the broker", "[realcluster][async_send]") {
    const std::string topic = rmq_rc::unique("RcOneway");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    RemoteProducer producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
    producer.start();
    for (int i = 0; i < 20; ++i) {
        producer.send_oneway(rmq::Message(topic, "TagA", "", "oneway"));
    }
    producer.shutdown();
    CHECK(
        rmq_rc::wait_until([&] { return rmq_rc::stored(transport, topic) == 20; }, std::chrono::seconds(30)));
}

TEST_CASE("batch send: one SEND_BATCH_MESSAGE, every message consumed back with its id",
          "[realcluster][batch]") {
    const std::string topic = rmq_rc::unique("RcBatch");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    RemoteProducer producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
    producer.start();
    std::vector<rmq::Message> batch;
    for (int i = 0; i < 10; ++i) {
        batch.emplace_back(topic, "TagA", fmt::format("k-{}", i), fmt::format("batch {}", i));
    }
    const auto r = producer.send(batch);
    CHECK(r.status == rmq::SendStatus::SendOk);
    const auto ids = split_ids(r.msg_id);
    CHECK(ids.size() == 10);
    CHECK(split_ids(r.offset_msg_id).size() == 10);
    CHECK(transport.max_offset(r.message_queue) == 10);
    auto async_ids = split_ids(producer.send_async(batch).get().msg_id);
    CHECK(async_ids.size() == 10);
    async_ids.insert(ids.begin(), ids.end());
    rmq_rc::consume_all<false>(transport, rmq_rc::consumer_config(), topic, async_ids);
    producer.shutdown();
}

TEST_CASE("batch send: bad batches are refused before sending", "[realcluster][batch]") {
    const std::string topic = rmq_rc::unique("RcBadBatch");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    RemoteProducer producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
    producer.start();
    std::vector<rmq::Message> big;
    for (int i = 0; i < 5; ++i) {
        big.emplace_back(topic, std::string(1024 * 1024, 'x'));
    }
    CHECK_THROWS_AS(producer.send(big), rmq::MessageTooLarge);
    std::vector<rmq::Message> mixed{rmq::Message(topic, "a"), rmq::Message(topic + "X", "b")};
    CHECK_THROWS_AS(producer.send(mixed), rmq::InvalidBatch);
    CHECK(rmq_rc::stored(transport, topic) == 0);

    // The broker's own limit (maxMessageSize 4 MiB) with the producer's raised: MESSAGE_ILLEGAL.
    RemoteProducer lax(
        transport,
        rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg"), .max_message_size = 8 * 1024 * 1024});
    lax.start();
    try {
        (void)lax.send(big);
        FAIL("expected BrokerError");
    } catch (const rmq::BrokerError& err) {
        INFO(err.what());
        // 4.9.7 and 5.3.3 refuse the body before storing anything (5.3.3 answers SYSTEM_ERROR).
        CHECK((err.code() == rmq::response_code::message_illegal ||
               err.code() == rmq::response_code::system_error));
        WARN(fmt::format(
            "broker refusal of a {} byte batch: code {}: {}", 5 * 1024 * 1024, err.code(), err.what()));
    }
    CHECK(rmq_rc::stored(transport, topic) == 0);
    lax.shutdown();
    producer.shutdown();
}

TEST_CASE("timer messages: delivered after their delay on 5.x, refused before sending on 4.x",
          "[realcluster][timer]") {
    const std::string topic = rmq_rc::unique("RcTimer");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    RemoteProducer producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
    producer.start();
    const auto mq = transport.topic_route(topic).write_queues.at(0);
    rmq::Message m(topic, "TagA", "timer", "later");
    m.set_delay_time_sec(3);
    if (rmq_rc::rocketmq_4x()) {
        try {
            (void)producer.send(m, mq);
            FAIL("expected UnsupportedByBroker");
        } catch (const rmq::UnsupportedByBroker& err) {
            INFO(err.what());
            CHECK(err.broker_version() < 412);
        }
        CHECK_THROWS_AS(producer.send(m), rmq::UnsupportedByBroker);
        CHECK(rmq_rc::stored(transport, topic) == 0);
        producer.shutdown();
        return;
    }
    const auto begin = std::chrono::steady_clock::now();
    const auto r = producer.send(m, mq);
    CHECK(r.status == rmq::SendStatus::SendOk);
    CHECK(transport.max_offset(mq) == 0);  // parked in rmq_sys_wheel_timer
    rmq::Message at(topic, "TagA", "timer-at", "at");
    at.set_deliver_time_ms(rmq::system_clock()->wall_millis() + 3000);
    const auto r2 = producer.send_async(at, mq).get();
    CHECK(r2.status == rmq::SendStatus::SendOk);
    REQUIRE(rmq_rc::wait_until([&] { return transport.max_offset(mq) == 2; }, std::chrono::seconds(60)));
    // The broker's wheel ticks by timerPrecisionMs (1 s) and may fire up to one tick early.
    CHECK(std::chrono::steady_clock::now() - begin >= std::chrono::seconds(2));
    rmq_rc::consume_all<false>(transport, rmq_rc::consumer_config(), topic, {r.msg_id, r2.msg_id});

    rmq::Message too_far(topic, "x");
    too_far.set_delay_time_sec(3 * 24 * 3600 + 3600);  // timerMaxDelaySec: 3 days
    CHECK_THROWS_AS(producer.send(too_far, mq), rmq::TimerRejected);
    CHECK(transport.max_offset(mq) == 2);
    producer.shutdown();
}
