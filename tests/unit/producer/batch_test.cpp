// rmq::Producer's batch sends (SEND_BATCH_MESSAGE) over the embedded broker.

#include <future>
#include <memory>
#include <string>
#include <vector>

#include "producer_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/ranges.h>

#include <rmq/producer.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/transport/in_process.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace batch_test {

namespace {

std::vector<rmq::Message> batch_of(const std::string& topic, int n, std::size_t body_size = 8) {
    std::vector<rmq::Message> batch;
    for (int i = 0; i < n; ++i) {
        batch.emplace_back(
            topic, "TagA", fmt::format("K{}", i), std::string(body_size, static_cast<char>('a' + i % 26)));
    }
    return batch;
}

std::int64_t total(rmq::InProcessBroker& broker, const std::string& topic, int queues) {
    std::int64_t n = 0;
    for (int q = 0; q < queues; ++q) {
        n += broker.max_offset(broker.queue(topic, q));
    }
    return n;
}

struct Env {
    rmq::InProcessBroker broker;
    rmq::Producer<rmq::InProcessTransport> producer{broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "PG"}};

    Env() {
        broker.create_topic("T", 4);
        broker.create_topic("U", 4);
        producer.start();
    }
};

}  // namespace

TEST_CASE("producer batch: the messages are stored in order in one queue, with their ids") {
    Env e;
    const auto batch = batch_of("T", 5);
    const auto r = e.producer.send(batch);
    CHECK(r.status == rmq::SendStatus::SendOk);
    const auto stored = e.broker.messages("T", r.message_queue.queue_id);
    REQUIRE(stored.size() == 5);
    std::vector<std::string> ids;
    std::vector<std::string> offset_ids;
    for (std::size_t i = 0; i < stored.size(); ++i) {
        CHECK(stored[i].body() == batch[i].body());
        CHECK(stored[i].keys() == batch[i].keys());
        CHECK(stored[i].queue_offset() == static_cast<std::int64_t>(i));
        ids.push_back(stored[i].msg_id());
        offset_ids.push_back(stored[i].offset_msg_id());
    }
    CHECK(r.msg_id == fmt::format("{}", fmt::join(ids, ",")));
    CHECK(r.offset_msg_id == fmt::format("{}", fmt::join(offset_ids, ",")));
    CHECK(r.queue_offset == 0);
    CHECK(total(e.broker, "T", 4) == 5);

    const auto to_queue = e.producer.send(batch, e.broker.queue("T", 2));
    CHECK(to_queue.message_queue.queue_id == 2);
    CHECK_THROWS_AS(e.producer.send(batch, e.broker.queue("U", 2)), rmq::InvalidArgument);

    auto f = e.producer.send_async(batch);
    CHECK(f.get().status == rmq::SendStatus::SendOk);
    CHECK(total(e.broker, "T", 4) == 15);
}

TEST_CASE("producer batch: the size checked is Java's encodeMessages size") {
    const auto batch = batch_of("T", 3, 100);
    std::vector<rmq::Message> with_ids = batch;
    for (auto& m : with_ids) {
        m.set_property(rmq::property::uniq_client_message_id_keyidx, "0A0000011F9000000000000000000001");
    }
    CHECK(rmq::detail::batch_body_size(with_ids) == rmq::remoting::encode_messages(with_ids).size());
}

TEST_CASE("producer batch: a batch above max_message_size is refused with MessageTooLarge, nothing sent") {
    Env e;
    // Each 1 MiB body encodes to a bit more than 1 MiB: four of them pass 4 MiB.
    const auto big = batch_of("T", 4, 1024 * 1024);
    try {
        (void)e.producer.send(big);
        FAIL("expected MessageTooLarge");
    } catch (const rmq::MessageTooLarge& err) {
        CHECK(err.limit() == 4u * 1024 * 1024);
        CHECK(err.size() > err.limit());
    }
    CHECK_THROWS_AS(e.producer.send_async(big), rmq::MessageTooLarge);
    CHECK(total(e.broker, "T", 4) == 0);

    // Exactly at the limit passes.
    rmq::InProcessBroker broker;
    broker.create_topic("T", 1);
    rmq::Producer<rmq::InProcessTransport> p(
        broker.connect(), rmq::ProducerConfig{.producer_group = "PG", .max_message_size = 1000});
    p.start();
    auto exact = batch_of("T", 2, 8);
    exact[0].set_property(rmq::property::uniq_client_message_id_keyidx, "A");
    exact[1].set_property(rmq::property::uniq_client_message_id_keyidx, "B");
    const auto fixed = rmq::detail::batch_body_size(exact);
    exact[1].set_body(std::string(8 + 1000 - fixed, 'x'));
    REQUIRE(rmq::detail::batch_body_size(exact) == 1000);
    CHECK(p.send(exact).status == rmq::SendStatus::SendOk);
    exact[1].set_body(exact[1].body() + "x");
    CHECK_THROWS_AS(p.send(exact), rmq::MessageTooLarge);
}

TEST_CASE("producer batch: batches Java refuses are refused with InvalidBatch, nothing sent") {
    Env e;
    auto mixed = batch_of("T", 2);
    mixed.emplace_back("U", "x");
    CHECK_THROWS_AS(e.producer.send(mixed), rmq::InvalidBatch);

    auto delayed = batch_of("T", 2);
    delayed[1].set_delay_time_level(3);
    CHECK_THROWS_AS(e.producer.send(delayed), rmq::InvalidBatch);

    auto timed = batch_of("T", 2);
    timed[0].set_delay_time_sec(10);
    CHECK_THROWS_AS(e.producer.send(timed), rmq::InvalidBatch);

    CHECK_THROWS_AS(e.producer.send(batch_of("%RETRY%G", 2)), rmq::InvalidBatch);
    CHECK_THROWS_AS(e.producer.send(std::vector<rmq::Message>{}), rmq::InvalidBatch);

    auto waits = batch_of("T", 2);
    waits[0].set_property(rmq::property::wait_store_msg_ok, "false");
    CHECK_THROWS_AS(e.producer.send(waits), rmq::InvalidBatch);

    auto empty_body = batch_of("T", 2);
    empty_body[1].set_body("");
    CHECK_THROWS_AS(e.producer.send(empty_body), rmq::InvalidArgument);

    CHECK(total(e.broker, "T", 4) == 0);
    CHECK(total(e.broker, "U", 4) == 0);
}

TEST_CASE("producer batch: the embedded broker refuses what a Java broker refuses") {
    rmq::InProcessBroker broker{rmq::BrokerConfig{.max_message_size = 100}};
    broker.create_topic("T", 1);
    auto t = broker.connect();
    const auto mq = broker.queue("T", 0);
    auto delayed = batch_of("T", 2);
    delayed[0].set_delay_time_level(1);
    auto too_big = batch_of("T", 2, 60);
    for (const auto* b : {&delayed, &too_big}) {
        try {
            (void)t.send_batch(*b, mq);
            FAIL("expected BrokerError");
        } catch (const rmq::BrokerError& err) {
            CHECK(err.code() == rmq::response_code::message_illegal);
        }
    }
    auto mixed = batch_of("T", 2);
    mixed[1].set_topic("U");
    CHECK_THROWS_AS(t.send_batch(mixed, mq), rmq::InvalidArgument);
    CHECK(broker.max_offset(mq) == 0);
}

TEST_CASE("producer batch: a retryable failure is retried on the other broker") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    auto shared = std::make_shared<producer_test::TwoBrokers::Shared>();
    rmq::Producer<producer_test::TwoBrokers> p(producer_test::TwoBrokers(broker.connect(), shared),
                                               rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    shared->failing = "*";
    shared->failures_left = 1;
    const auto r = p.send(batch_of("T", 3));
    REQUIRE(shared->attempts.size() == 2);
    CHECK(shared->attempts[1].broker_name != shared->attempts[0].broker_name);
    CHECK(r.message_queue == shared->attempts[1]);
    CHECK(total(broker, "T", 4) == 3);
}

}  // namespace batch_test
