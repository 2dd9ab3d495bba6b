// Transactional messages through rmq::TransactionProducer on the embedded broker: half messages stay
// invisible until committed, rollbacks are never delivered, check-backs run on the broker's ManualClock.

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <consumer_fixture.hpp>
#include <forwarding_transport.hpp>

#include <catch2/catch.hpp>

#include <rmq/transaction_producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

using State = rmq::LocalTransactionState;

/// What the local transaction does (the `arg` of send_message_in_transaction).
enum class Decide { Commit, Rollback, Unknow, Throw };

/// The test's TransactionListener: the decision comes with the send; check-backs answer `check_answer`
/// (or throw) and are recorded.
struct Recorder {
    std::atomic<int> executed{0};
    std::atomic<int> checks{0};
    std::atomic<State> check_answer{State::Unknow};
    std::atomic<bool> check_throws{false};
    std::mutex mutex;
    std::vector<rmq::MessageExt> checked;
    std::string executed_transaction_id;
};

struct Listener {
    std::shared_ptr<Recorder> r;

    State execute_local_transaction(const rmq::Message& m, Decide d) {
        ++r->executed;
        {
            const std::lock_guard lock(r->mutex);
            r->executed_transaction_id = m.transaction_id();
        }
        switch (d) {
        case Decide::Commit:
            return State::CommitMessage;
        case Decide::Rollback:
            return State::RollbackMessage;
        case Decide::Throw:
            throw std::runtime_error("local database is down");
        default:
            return State::Unknow;
        }
    }

    State check_local_transaction(const rmq::MessageExt& m) {
        {
            const std::lock_guard lock(r->mutex);
            r->checked.push_back(m);
        }
        ++r->checks;
        if (r->check_throws) {
            throw std::runtime_error("cannot tell");
        }
        return r->check_answer.load();
    }
};

static_assert(rmq::TransactionListener<Listener, Decide>);
static_assert(!rmq::TransactionListener<Listener, std::string>);

/// A transport whose END_TRANSACTION requests are lost: the producer "dies" between the half message and
/// its commit.
class LosingEnds : public rmq_test::ForwardingTransport {
public:
    using ForwardingTransport::ForwardingTransport;

    void end_transaction(const rmq::EndTransactionArgs& /*args*/) {}
};

using Producer = rmq::TransactionProducer<rmq::InProcessTransport, Listener>;

struct Env {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.clock = clock}};
    std::shared_ptr<Recorder> rec = std::make_shared<Recorder>();
    Producer producer{broker.connect(), rmq::ProducerConfig{.producer_group = "TXG"}, Listener{rec}};

    Env() {
        broker.create_topic("T", 1);
        producer.start();
    }

    [[nodiscard]] std::int64_t visible() const { return broker.max_offset(broker.queue("T", 0)); }

    /// One check round: past transaction_time_out and the next transactionCheckInterval tick.
    void check_round() { clock->advance(rmq::Millis(60000)); }

    bool eventually(const std::function<bool()>& pred) {
        return consumer_fixture::eventually(pred, std::chrono::seconds(30));
    }
};

}  // namespace

TEST_CASE("transaction: a committed half message becomes visible in its topic, once") {
    Env e;
    const auto r =
        e.producer.send_message_in_transaction(rmq::Message("T", "TagA", "order-1"), Decide::Commit);
    CHECK(r.status == rmq::SendStatus::SendOk);
    CHECK(r.local_transaction_state == State::CommitMessage);
    CHECK_FALSE(r.transaction_id.empty());
    CHECK(r.transaction_id == r.msg_id);
    CHECK(r.message_queue.topic == "T");
    CHECK(e.rec->executed_transaction_id == r.msg_id);
    REQUIRE(e.visible() == 1);
    const auto msgs = e.broker.messages("T", 0);
    REQUIRE(msgs.size() == 1);
    CHECK(msgs[0].body() == "order-1");
    CHECK(msgs[0].msg_id() == r.msg_id);
    CHECK(msgs[0].property_view(rmq::property::producer_group) == "TXG");
    CHECK_FALSE(msgs[0].has_property(rmq::property::transaction_prepared));
    CHECK_FALSE(msgs[0].has_property(rmq::property::real_topic));
    CHECK(msgs[0].sys_flag() == 0x8);  // TRANSACTION_COMMIT_TYPE
    CHECK(e.broker.half_message_count() == 0);
    // The half message waited in the half topic; the op record marks it done.
    CHECK(e.broker.messages("RMQ_SYS_TRANS_HALF_TOPIC", 0).size() == 1);
    CHECK(e.broker.messages("RMQ_SYS_TRANS_OP_HALF_TOPIC", 0).size() == 1);
    e.check_round();
    e.check_round();
    CHECK(e.rec->checks == 0);
    CHECK(e.visible() == 1);
}

TEST_CASE("transaction: a half message is invisible until its local transaction commits") {
    Env e;
    std::int64_t seen_during_local_transaction = -1;

    struct Peek {
        Env* env;
        std::int64_t* seen;

        State execute_local_transaction(const rmq::Message&, int) {
            *seen = env->visible();
            return State::CommitMessage;
        }

        State check_local_transaction(const rmq::MessageExt&) { return State::Unknow; }
    };

    rmq::TransactionProducer<rmq::InProcessTransport, Peek> p(e.broker.connect(),
                                                              rmq::ProducerConfig{.producer_group = "PEEK"},
                                                              Peek{&e, &seen_during_local_transaction});
    p.start();
    p.send_message_in_transaction(rmq::Message("T", "x"), 0);
    CHECK(seen_during_local_transaction == 0);
    CHECK(e.visible() == 1);
}

TEST_CASE("transaction: a rolled back half message is never delivered") {
    Env e;
    const auto r = e.producer.send_message_in_transaction(rmq::Message("T", "cancelled"), Decide::Rollback);
    CHECK(r.local_transaction_state == State::RollbackMessage);
    CHECK(e.visible() == 0);
    CHECK(e.broker.half_message_count() == 0);
    for (int i = 0; i < 3; ++i) {
        e.check_round();
    }
    CHECK(e.rec->checks == 0);
    CHECK(e.visible() == 0);
}

TEST_CASE("transaction: an unknown state is checked back on the broker's clock and the check commits") {
    Env e;
    const auto r = e.producer.send_message_in_transaction(rmq::Message("T", "pending"), Decide::Unknow);
    CHECK(r.local_transaction_state == State::Unknow);
    CHECK(e.visible() == 0);
    CHECK(e.broker.half_message_count() == 1);
    e.clock->advance(rmq::Millis(59999));  // the first round is one interval after the broker started
    CHECK(e.rec->checks == 0);
    e.rec->check_answer = State::CommitMessage;
    e.clock->advance(rmq::Millis(1));
    REQUIRE(e.eventually([&] { return e.visible() == 1; }));
    CHECK(e.rec->checks == 1);
    CHECK(e.broker.half_message_count() == 0);
    {
        const std::lock_guard lock(e.rec->mutex);
        REQUIRE(e.rec->checked.size() == 1);
        const auto& m = e.rec->checked[0];
        CHECK(m.topic() == "T");  // the real topic back, as Java's check listener restores it
        CHECK(m.queue_id() == 0);
        CHECK(m.body() == "pending");
        CHECK(m.msg_id() == r.msg_id);
        CHECK(m.transaction_id() == r.msg_id);
        CHECK(m.property_view("TRANSACTION_CHECK_TIMES") == "1");
    }
    CHECK(e.broker.messages("T", 0).at(0).body() == "pending");
}

TEST_CASE("transaction: a young half message is not checked before transaction_time_out") {
    Env e;
    e.clock->advance(rmq::Millis(57000));
    e.producer.send_message_in_transaction(rmq::Message("T", "young"), Decide::Unknow);
    e.clock->advance(rmq::Millis(3000));  // a round at 60 s: the message is 3 s old
    e.broker.drain();
    CHECK(e.rec->checks == 0);
    e.rec->check_answer = State::RollbackMessage;
    e.check_round();
    REQUIRE(e.eventually([&] { return e.broker.half_message_count() == 0; }));
    CHECK(e.rec->checks == 1);
    CHECK(e.visible() == 0);
}

TEST_CASE(
    "transaction: CHECK_IMMUNITY_TIME_IN_SECONDS holds the first check-back off past transaction_time_out") {
    Env e;
    rmq::Message m("T", "immune");
    m.set_property(rmq::property::check_immunity_time_in_seconds, "90");
    e.producer.send_message_in_transaction(m, Decide::Unknow);
    e.rec->check_answer = State::CommitMessage;
    e.check_round();  // 60 s old: past transaction_time_out (6 s), not past its 90 s
    e.broker.drain();
    CHECK(e.rec->checks == 0);
    CHECK(e.broker.half_message_count() == 1);
    e.check_round();  // 120 s old
    REQUIRE(e.eventually([&] { return e.visible() == 1; }));
    CHECK(e.rec->checks == 1);
}

TEST_CASE(
    "transaction: a check immunity below transaction_time_out checks sooner, one that does not parse is "
    "ignored") {
    Env e;
    e.clock->advance(rmq::Millis(57000));
    rmq::Message soon("T", "soon");
    soon.set_property(rmq::property::check_immunity_time_in_seconds, "+2");
    e.producer.send_message_in_transaction(soon, Decide::Unknow);
    rmq::Message junk("T", "junk");
    junk.set_property(rmq::property::check_immunity_time_in_seconds, "2s");
    e.producer.send_message_in_transaction(junk, Decide::Unknow);
    rmq::Message minus_one("T", "-1");  // Java's "does not parse" sentinel
    minus_one.set_property(rmq::property::check_immunity_time_in_seconds, "-1");
    e.producer.send_message_in_transaction(minus_one, Decide::Unknow);
    e.rec->check_answer = State::RollbackMessage;
    e.clock->advance(rmq::Millis(3000));  // the round at 60 s: all are 3 s old
    REQUIRE(e.eventually([&] { return e.broker.half_message_count() == 2; }));
    CHECK(e.rec->checks == 1);
    {
        const std::lock_guard lock(e.rec->mutex);
        CHECK(e.rec->checked.at(0).body() == "soon");
    }
    e.check_round();
    REQUIRE(e.eventually([&] { return e.broker.half_message_count() == 0; }));
    CHECK(e.visible() == 0);
}

TEST_CASE("transaction: a listener that throws leaves the transaction unknown, the check-back resolves it") {
    Env e;
    const auto r = e.producer.send_message_in_transaction(rmq::Message("T", "thrown"), Decide::Throw);
    CHECK(r.status == rmq::SendStatus::SendOk);
    CHECK(r.local_transaction_state == State::Unknow);
    CHECK(e.visible() == 0);
    CHECK(e.broker.half_message_count() == 1);
    // A check listener that throws is unknown too: the message stays pending for the next round.
    e.rec->check_throws = true;
    e.check_round();
    REQUIRE(e.eventually([&] { return e.rec->checks == 1; }));
    e.broker.drain();
    CHECK(e.broker.half_message_count() == 1);
    CHECK(e.visible() == 0);
    e.rec->check_throws = false;
    e.rec->check_answer = State::CommitMessage;
    e.check_round();
    REQUIRE(e.eventually([&] { return e.visible() == 1; }));
    CHECK(e.rec->checks == 2);
}

TEST_CASE("transaction: after transaction_check_max checks the half message is discarded, never delivered") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.transaction_check_max = 3, .clock = clock}};
    broker.create_topic("T", 1);
    auto rec = std::make_shared<Recorder>();
    Producer producer{broker.connect(), rmq::ProducerConfig{.producer_group = "TXG"}, Listener{rec}};
    producer.start();
    producer.send_message_in_transaction(rmq::Message("T", "undecided"), Decide::Unknow);
    for (int i = 1; i <= 3; ++i) {
        clock->advance(rmq::Millis(60000));
        REQUIRE(consumer_fixture::eventually([&] { return rec->checks == i; }, std::chrono::seconds(30)));
        broker.drain();
        CHECK(broker.half_message_count() == 1);
    }
    clock->advance(rmq::Millis(60000));
    broker.drain();
    CHECK(broker.half_message_count() == 0);
    CHECK(rec->checks == 3);
    CHECK(broker.max_offset(broker.queue("T", 0)) == 0);
    const auto discarded = broker.messages("TRANS_CHECK_MAX_TIME_TOPIC", 0);
    REQUIRE(discarded.size() == 1);
    CHECK(discarded[0].body() == "undecided");
    {
        const std::lock_guard lock(rec->mutex);
        REQUIRE(rec->checked.size() == 3);
        CHECK(rec->checked[2].property_view("TRANSACTION_CHECK_TIMES") == "3");
    }
}

TEST_CASE(
    "transaction: a producer killed between half message and commit is resolved by another of its group") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.clock = clock}};
    broker.create_topic("T", 1);
    auto first = std::make_shared<Recorder>();
    std::string msg_id;
    {
        rmq::TransactionProducer<LosingEnds, Listener> dying(
            LosingEnds(broker.connect()), rmq::ProducerConfig{.producer_group = "TXG"}, Listener{first});
        dying.start();
        const auto r =
            dying.send_message_in_transaction(rmq::Message("T", "committed-locally"), Decide::Commit);
        CHECK(r.local_transaction_state == State::CommitMessage);  // the commit never reaches the broker
        msg_id = r.msg_id;
        CHECK(broker.half_message_count() == 1);
    }  // its connection closes: the process is gone
    CHECK(broker.max_offset(broker.queue("T", 0)) == 0);
    auto second = std::make_shared<Recorder>();
    second->check_answer = State::CommitMessage;
    Producer successor{broker.connect(), rmq::ProducerConfig{.producer_group = "TXG"}, Listener{second}};
    successor.start();
    clock->advance(rmq::Millis(60000));
    REQUIRE(consumer_fixture::eventually([&] { return broker.max_offset(broker.queue("T", 0)) == 1; },
                                         std::chrono::seconds(30)));
    CHECK(first->checks == 0);
    CHECK(second->checks == 1);
    const auto msgs = broker.messages("T", 0);
    REQUIRE(msgs.size() == 1);
    CHECK(msgs[0].msg_id() == msg_id);
    CHECK(broker.half_message_count() == 0);
}

TEST_CASE("transaction: a check-back of a group without a producer counts, the message waits") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.clock = clock}};
    broker.create_topic("T", 1);
    auto rec = std::make_shared<Recorder>();
    {
        rmq::TransactionProducer<LosingEnds, Listener> dying(
            LosingEnds(broker.connect()), rmq::ProducerConfig{.producer_group = "TXG"}, Listener{rec});
        dying.start();
        dying.send_message_in_transaction(rmq::Message("T", "orphan"), Decide::Commit);
    }
    clock->advance(rmq::Millis(60000));
    broker.drain();
    CHECK(rec->checks == 0);
    CHECK(broker.half_message_count() == 1);
    CHECK(broker.max_offset(broker.queue("T", 0)) == 0);
}

TEST_CASE("transaction: END_TRANSACTION checks the producer group and refuses a resolved half message") {
    Env e;
    auto tr = e.broker.connect();
    const auto r = e.producer.send_message_in_transaction(rmq::Message("T", "x"), Decide::Unknow);
    rmq::EndTransactionArgs a;
    a.broker_name = r.message_queue.broker_name;
    a.topic = "T";
    a.producer_group = "OTHER";
    a.tran_state_table_offset = r.queue_offset;
    a.commit_log_offset = rmq::detail::commit_log_offset_of(r.offset_msg_id);
    a.state = State::CommitMessage;
    a.msg_id = r.msg_id;
    tr.end_transaction(a);  // refused (logged): wrong group
    CHECK(e.visible() == 0);
    a.producer_group = "TXG";
    a.tran_state_table_offset = r.queue_offset + 1;
    tr.end_transaction(a);  // refused: wrong table offset
    CHECK(e.visible() == 0);
    a.tran_state_table_offset = r.queue_offset;
    tr.end_transaction(a);
    CHECK(e.visible() == 1);
    tr.end_transaction(a);  // resolved already: not committed twice
    CHECK(e.visible() == 1);
}

TEST_CASE("transaction: a delay level is dropped and a broker that rejects transactions refuses the send") {
    Env e;
    rmq::Message m("T", "no delay");
    m.set_delay_time_level(3);
    e.producer.send_message_in_transaction(m, Decide::Commit);
    CHECK(e.visible() == 1);
    CHECK_FALSE(e.broker.messages("T", 0).at(0).has_property(rmq::property::delay_time_level));

    rmq::InProcessBroker rejecting{rmq::BrokerConfig{.reject_transaction_message = true}};
    rejecting.create_topic("T", 1);
    auto rec = std::make_shared<Recorder>();
    Producer p{rejecting.connect(), rmq::ProducerConfig{.producer_group = "TXG"}, Listener{rec}};
    p.start();
    CHECK_THROWS_AS(p.send_message_in_transaction(rmq::Message("T", "x"), Decide::Commit), rmq::BrokerError);
    CHECK(rec->executed == 0);
}

TEST_CASE("transaction: a producer shut down takes no more check-backs") {
    Env e;
    e.producer.send_message_in_transaction(rmq::Message("T", "x"), Decide::Unknow);
    e.producer.shutdown();
    e.check_round();
    e.broker.drain();
    CHECK(e.rec->checks == 0);
    CHECK(e.broker.half_message_count() == 1);
    CHECK_THROWS_AS(e.producer.send_message_in_transaction(rmq::Message("T", "y"), Decide::Commit),
                    rmq::IllegalState);
}
