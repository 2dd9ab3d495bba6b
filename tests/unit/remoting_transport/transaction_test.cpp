// rmq::TransactionProducer over RemotingTransport against a fake broker: the half message's SEND_MESSAGE_V2
// (TRAN_MSG, PGROUP, the prepared sysFlag), the END_TRANSACTION that follows it, and a broker's
// CHECK_TRANSACTION_STATE answered with END_TRANSACTION (fromTransactionCheck=true) to that broker.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transaction_producer.hpp>
#include <rmq/transport/remoting.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace transaction_test {

namespace {

using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;
using State = rmq::LocalTransactionState;

constexpr const char* offset_id = "7F00000100002A9F00000000000181CD";  // commit log offset 98765

struct Listener {
    std::atomic<int>* checks = nullptr;

    State execute_local_transaction(const rmq::Message& /*m*/, State s) { return s; }

    State check_local_transaction(const rmq::MessageExt& m) {
        ++*checks;
        return m.body() == "commit me" ? State::CommitMessage : State::RollbackMessage;
    }
};

static_assert(rmq::HasTransactions<rmq::RemotingTransport>);

std::map<std::string, std::string> fields_of(const Command& c) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : *c.ext_fields) {
        out[k] = v.value_or("");
    }
    return out;
}

using rmq_test::requests_of;

struct Fixture {
    rmq_test::FakeServer server;
    std::atomic<int> checks{0};
    rmq::TransactionProducer<rmq::RemotingTransport, Listener> producer{
        rmq::RemotingTransport{[this] {
            rmq::RemotingConfig c;
            c.namesrv_addr = server.address();
            return c;
        }()},
        rmq::ProducerConfig{.producer_group = "TXG"},
        Listener{&checks}};

    Fixture() {
        rmq_test::answer_ok(server, [](const Command& req, Command& r) {
            if (req.code == rc::send_message_v2) {
                r.fields().set("msgId", offset_id);
                r.fields().set("queueId", std::string(req.field("e").value_or("0")));
                r.fields().set("queueOffset", "17");
                r.fields().set("transactionId", "TXID-1");
            }
        });
        producer.start();
    }

    bool wait_ends(std::size_t n) {
        return server.wait_for([&](const auto& got) {
            return static_cast<std::size_t>(std::count_if(got.begin(), got.end(), [](const Command& c) {
                       return c.code == rc::end_transaction;
                   })) >= n;
        });
    }
};

}  // namespace

TEST_CASE("transaction over remoting: half message, then a oneway END_TRANSACTION with Java's fields",
          "[remoting_transport][transaction]") {
    Fixture f;
    rmq::Message m("TopicTest", "TagA", "order-1");
    m.set_delay_time_level(3);  // dropped, as Java's sendMessageInTransaction does
    const auto r = f.producer.send_message_in_transaction(m, State::CommitMessage);
    CHECK(r.local_transaction_state == State::CommitMessage);
    CHECK(r.transaction_id == "TXID-1");
    CHECK(r.queue_offset == 17);
    const auto sends = requests_of(f.server, rc::send_message_v2);
    REQUIRE(sends.size() == 1);
    CHECK((std::stoi(std::string(*sends[0].field("f"))) & 0x4) == 0x4);  // TRANSACTION_PREPARED_TYPE
    CHECK(std::string(*sends[0].field("a")) == "TXG");
    const auto props = rmq::decode_properties(*sends[0].field("i"));
    CHECK(props.at("TRAN_MSG") == "true");
    CHECK(props.at("PGROUP") == "TXG");
    CHECK(props.find("DELAY") == props.end());
    REQUIRE(f.wait_ends(1));
    const auto end = requests_of(f.server, rc::end_transaction).at(0);
    CHECK(end.is_oneway());
    CHECK(fields_of(end) == std::map<std::string, std::string>{{"topic", "TopicTest"},
                                                               {"producerGroup", "TXG"},
                                                               {"tranStateTableOffset", "17"},
                                                               {"commitLogOffset", "98765"},
                                                               {"commitOrRollback", "8"},
                                                               {"fromTransactionCheck", "false"},
                                                               {"msgId", r.msg_id},
                                                               {"transactionId", "TXID-1"},
                                                               {"bname", "broker-a"}});
    CHECK_FALSE(end.remark.has_value());
}

TEST_CASE("transaction over remoting: a broker's CHECK_TRANSACTION_STATE is answered on a check thread",
          "[remoting_transport][transaction]") {
    Fixture f;
    (void)f.producer.producer().send(rmq::Message("TopicTest", "warm-up"));  // the broker connection
    REQUIRE(f.server.wait_session());
    rmq::MessageExt half;
    half.set_topic("TopicTest");
    half.set_queue_id(1);
    half.set_body("commit me");
    half.set_property("PGROUP", "TXG");
    half.set_property("UNIQ_KEY", "0A0000053039000000000000000A0001");
    half.set_property("TRAN_MSG", "true");
    half.set_store_host("127.0.0.1:10911");
    half.set_born_host("127.0.0.1:5000");
    half.set_commit_log_offset(98765);
    Command check;
    check.code = rc::check_transaction_state;
    check.fields().set("topic", "RMQ_SYS_TRANS_HALF_TOPIC");
    check.fields().set("tranStateTableOffset", "3");
    check.fields().set("commitLogOffset", "98765");
    check.fields().set("msgId", "0A0000053039000000000000000A0001");
    check.fields().set("transactionId", "0A0000053039000000000000000A0001");
    check.fields().set("offsetMsgId", offset_id);
    check.fields().set("bname", "broker-a");
    check.body = rmq::remoting::encode_message(half);
    check.mark_oneway();
    check.opaque = 5000;
    f.server.last_session()->send(check);
    REQUIRE(f.wait_ends(1));
    CHECK(f.checks == 1);
    const auto end = requests_of(f.server, rc::end_transaction).at(0);
    CHECK(fields_of(end) ==
          std::map<std::string, std::string>{{"topic", "RMQ_SYS_TRANS_HALF_TOPIC"},
                                             {"producerGroup", "TXG"},
                                             {"tranStateTableOffset", "3"},
                                             {"commitLogOffset", "98765"},
                                             {"commitOrRollback", "8"},
                                             {"fromTransactionCheck", "true"},
                                             {"msgId", "0A0000053039000000000000000A0001"},
                                             {"transactionId", "0A0000053039000000000000000A0001"},
                                             {"bname", "broker-a"}});
    // A half message of another group is not this producer's to answer.
    half.set_property("PGROUP", "OTHER");
    check.body = rmq::remoting::encode_message(half);
    check.opaque = 5001;
    f.server.last_session()->send(check);
    half.set_property("PGROUP", "TXG");
    half.set_body("roll me back");
    check.body = rmq::remoting::encode_message(half);
    check.opaque = 5002;
    f.server.last_session()->send(check);
    REQUIRE(f.wait_ends(2));
    CHECK(f.checks == 2);
    CHECK(fields_of(requests_of(f.server, rc::end_transaction).at(1)).at("commitOrRollback") == "12");
}

}  // namespace transaction_test
