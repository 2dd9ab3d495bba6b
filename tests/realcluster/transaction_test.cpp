// rmq::TransactionProducer<RemotingTransport> against Apache RocketMQ (5.3.3, and 4.9.7 with
// RMQ_VERSION=4.9.7): commit and rollback by the local transaction, and a half message left unknown resolved
// by the broker's CHECK_TRANSACTION_STATE — also after the producer that sent it is gone, by another producer
// of its group. tools/rocketmq/broker.conf.in sets transactionTimeOut=3000 and transactionCheckInterval=5000.

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "cluster.hpp"
#include "round_trip.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/transaction_producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using State = rmq::LocalTransactionState;

/// The local transaction's decision comes with each send; a check-back answers `check_answer`.
struct Listener {
    std::shared_ptr<std::atomic<State>> check_answer = std::make_shared<std::atomic<State>>(State::Unknow);
    std::shared_ptr<std::atomic<int>> checks = std::make_shared<std::atomic<int>>(0);

    State execute_local_transaction(const rmq::Message& /*m*/, State decision) { return decision; }

    State check_local_transaction(const rmq::MessageExt& /*m*/) {
        ++*checks;
        return check_answer->load();
    }
};

using TxProducer = rmq::TransactionProducer<rmq::RemotingTransport, Listener>;

}  // namespace

TEST_CASE("transactions: committed messages are consumed, rolled back ones never stored",
          "[realcluster][transaction]") {
    const std::string topic = rmq_rc::unique("RcTx");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    Listener listener;
    TxProducer producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("txpg")}, listener);
    producer.start();
    std::set<std::string> committed;
    for (int i = 0; i < 5; ++i) {
        const auto c = producer.send_message_in_transaction(
            rmq::Message(topic, "TagA", fmt::format("commit-{}", i), "commit"), State::CommitMessage);
        CHECK(c.status == rmq::SendStatus::SendOk);
        CHECK(c.local_transaction_state == State::CommitMessage);
        committed.insert(c.msg_id);
        const auto r = producer.send_message_in_transaction(
            rmq::Message(topic, "TagA", fmt::format("rollback-{}", i), "rollback"), State::RollbackMessage);
        CHECK(r.local_transaction_state == State::RollbackMessage);
        if (!rmq_rc::rocketmq_4x()) {
            CHECK(r.transaction_id == r.msg_id);  // 5.x answers the UNIQ_KEY as transactionId
        }
    }
    REQUIRE(
        rmq_rc::wait_until([&] { return rmq_rc::stored(transport, topic) == 5; }, std::chrono::seconds(30)));
    rmq_rc::consume_all<false>(transport, rmq_rc::consumer_config(), topic, committed);
    // Past a check round (5 s): nothing more stored. A 5.x broker may still check back resolved half messages
    // whose op record its batching (transactionOpBatchInterval) had not written yet; the listener answers
    // unknown, which changes nothing.
    std::this_thread::sleep_for(std::chrono::seconds(8));  // NOLINT: the absence of a delivery needs time
    CHECK(rmq_rc::stored(transport, topic) == 5);
    if (*listener.checks > 0) {
        WARN(fmt::format("the broker checked back {} already resolved half messages",
                         listener.checks->load()));
    }
    producer.shutdown();
}

TEST_CASE("transactions: an unknown half message is checked back and committed",
          "[realcluster][transaction]") {
    const std::string topic = rmq_rc::unique("RcTxCheck");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    Listener listener;
    *listener.check_answer = State::CommitMessage;
    TxProducer producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("txpg")}, listener);
    producer.start();
    const auto r =
        producer.send_message_in_transaction(rmq::Message(topic, "TagA", "pending", "later"), State::Unknow);
    CHECK(r.local_transaction_state == State::Unknow);
    CHECK(rmq_rc::stored(transport, topic) == 0);
    REQUIRE(
        rmq_rc::wait_until([&] { return rmq_rc::stored(transport, topic) == 1; }, std::chrono::seconds(60)));
    CHECK(*listener.checks >= 1);
    rmq_rc::consume_all<false>(transport, rmq_rc::consumer_config(), topic, {r.msg_id});
    producer.shutdown();
}

TEST_CASE("transactions: CHECK_IMMUNITY_TIME_IN_SECONDS holds the first check-back off",
          "[realcluster][transaction]") {
    const std::string topic = rmq_rc::unique("RcTxImmune");
    rmq_rc::create_topic(topic, 4);
    rmq::RemotingTransport transport{rmq_rc::config()};
    Listener listener;
    *listener.check_answer = State::CommitMessage;
    TxProducer producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("txpg")}, listener);
    producer.start();
    rmq::Message m(topic, "TagA", "immune", "later");
    m.set_property(rmq::property::check_immunity_time_in_seconds, "15");
    const auto sent = std::chrono::steady_clock::now();
    producer.send_message_in_transaction(m, State::Unknow);
    // Without the property this cluster checks it 3-8 s after its birth (transactionTimeOut=3000).
    REQUIRE(rmq_rc::wait_until([&] { return *listener.checks >= 1; }, std::chrono::seconds(60)));
    const auto waited = std::chrono::steady_clock::now() - sent;
    INFO("first check-back after " << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()
                                   << " ms");
    CHECK(waited >= std::chrono::seconds(14));
    REQUIRE(
        rmq_rc::wait_until([&] { return rmq_rc::stored(transport, topic) == 1; }, std::chrono::seconds(30)));
    producer.shutdown();
}

TEST_CASE("transactions: a producer gone before its commit, another of its group answers the check-back",
          "[realcluster][transaction]") {
    const std::string topic = rmq_rc::unique("RcTxKilled");
    rmq_rc::create_topic(topic, 4);
    const std::string group = rmq_rc::unique("txpg");
    std::string msg_id;
    {
        // Its local transaction committed, but the END_TRANSACTION it sends says unknown and it never
        // answers a check: as far as the broker can tell, it died between the half message and the commit.
        rmq::RemotingTransport dying_transport{rmq_rc::config()};
        Listener dying;
        TxProducer producer(dying_transport, rmq::ProducerConfig{.producer_group = group}, dying);
        producer.start();
        msg_id =
            producer.send_message_in_transaction(rmq::Message(topic, "TagA", "orphan", "x"), State::Unknow)
                .msg_id;
        producer.shutdown();
    }
    rmq::RemotingTransport transport{rmq_rc::config()};
    CHECK(rmq_rc::stored(transport, topic) == 0);
    Listener successor;
    *successor.check_answer = State::CommitMessage;
    TxProducer producer(transport, rmq::ProducerConfig{.producer_group = group}, successor);
    producer.start();
    REQUIRE(
        rmq_rc::wait_until([&] { return rmq_rc::stored(transport, topic) == 1; }, std::chrono::seconds(90)));
    CHECK(*successor.checks >= 1);
    rmq_rc::consume_all<false>(transport, rmq_rc::consumer_config(), topic, {msg_id});
    producer.shutdown();
}
