// A traced producer and push consumer on the embedded broker: their Pub, SubBefore and SubAfter records
// reach the trace topic and decode to the message's ids, keys, topic, group, status and cost.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <consumer_support.hpp>
#include <forwarding_transport.hpp>

#include <catch2/catch.hpp>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/trace.hpp>
#include <rmq/transaction_producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace traced_clients_test {

namespace {

/// The embedded broker; a send to TopicTest takes 7 ms of the manual clock.
class SlowSends : public rmq_test::ForwardingTransport {
public:
    SlowSends(rmq::InProcessTransport inner, std::shared_ptr<rmq::ManualClock> clock)
        : ForwardingTransport(std::move(inner))
        , clock_(std::move(clock)) {}

    rmq::SendResult send(const rmq::Message& msg, const rmq::MessageQueue& mq) {
        if (msg.topic() == "TopicTest") {
            clock_->advance(std::chrono::milliseconds(7));
        }
        return inner_.send(msg, mq);
    }

private:
    std::shared_ptr<rmq::ManualClock> clock_;
};

/// The embedded broker, except that no send to the trace topic "Down" gets through.
class TraceTopicDown : public rmq_test::ForwardingTransport {
public:
    using ForwardingTransport::ForwardingTransport;

    rmq::SendResult send(const rmq::Message& msg, const rmq::MessageQueue& mq) {
        if (msg.topic() == "Down") {
            throw rmq::Error("connect to broker-a failed");
        }
        return inner_.send(msg, mq);
    }
};

/// Every record stored in `topic` (queue 0) so far.
std::vector<rmq::TraceContext> records_in(const rmq::InProcessBroker& broker, const std::string& topic) {
    std::vector<rmq::TraceContext> out;
    for (const auto& m : broker.messages(topic, 0)) {
        for (auto& c : rmq::decode_trace_data(m.body())) {
            out.push_back(std::move(c));
        }
    }
    return out;
}

std::size_t stored(const rmq::InProcessBroker& broker, const std::string& topic) {
    return broker.messages(topic, 0).size();
}

/// Creates topic "Orders" (`queues` queues) and the trace topic, then sends keys "good" and "bad" (and a
/// message with TRACE_ON=false when `untraced`) untraced by the producer.
std::vector<rmq::SendResult>
send_good_and_bad(rmq::InProcessBroker& broker, std::int32_t queues, bool untraced) {
    broker.create_topic("Orders", queues);
    broker.create_topic(rmq::rmq_sys_trace_topic, 1);
    std::vector<rmq::SendResult> sent;
    rmq::Producer<rmq::InProcessTransport> p{broker.connect(), rmq::ProducerConfig{.producer_group = "P"}};
    p.start();
    sent.push_back(p.send(rmq::Message("Orders", "TagA", "good", "a")));
    sent.push_back(p.send(rmq::Message("Orders", "TagA", "bad", "b")));
    if (untraced) {
        rmq::Message off("Orders", "c");
        off.set_property(rmq::property::trace_switch, "false");
        sent.push_back(p.send(off));
    }
    p.shutdown();
    return sent;
}

}  // namespace

TEST_CASE("a traced producer writes a Pub record of each send to RMQ_SYS_TRACE_TOPIC", "[trace][producer]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.clock = clock}};
    broker.create_topic("TopicTest", 4);
    broker.create_topic(rmq::rmq_sys_trace_topic, 1);
    rmq::ProducerConfig config{.producer_group = "PG"};
    config.enable_msg_trace = true;
    config.trace_msg_batch_num = 1;
    rmq::Producer<SlowSends> producer{SlowSends(broker.connect(), clock), config};
    producer.start();
    const std::int64_t sent_at = clock->wall_millis();
    const auto r = producer.send(rmq::Message("TopicTest", "TagA", "order-1 order-2", "hello trace"));
    REQUIRE(consumer_test::eventually([&] { return stored(broker, "RMQ_SYS_TRACE_TOPIC") == 1; }));
    producer.shutdown();

    const auto trace_msgs = broker.messages("RMQ_SYS_TRACE_TOPIC", 0);
    REQUIRE(trace_msgs.size() == 1);
    // Indexed by the message id and keys, which is how mqadmin and Dashboard find it.
    CHECK(trace_msgs[0].keys() == r.msg_id + " order-1 order-2");
    const auto records = records_in(broker, "RMQ_SYS_TRACE_TOPIC");
    REQUIRE(records.size() == 1);
    const auto& pub = records[0];
    CHECK(pub.trace_type == rmq::TraceType::Pub);
    CHECK(pub.time_stamp == sent_at);
    CHECK(pub.cost_time == 7);
    CHECK(pub.is_success);
    CHECK(pub.group_name == "PG");
    CHECK(pub.region_id == "DefaultRegion");
    const auto& bean = pub.trace_beans.at(0);
    CHECK(bean.topic == "TopicTest");
    CHECK(bean.msg_id == r.msg_id);
    CHECK(bean.offset_msg_id == r.offset_msg_id);
    CHECK(bean.tags == "TagA");
    CHECK(bean.keys == "order-1 order-2");
    CHECK(bean.body_length == 11);
    CHECK(bean.msg_type == rmq::TraceMessageType::NormalMsg);
    CHECK(bean.store_host == "127.0.0.1:10911");
    CHECK(producer.trace_stats().appended == 1);
    CHECK(producer.trace_stats().messages_sent == 1);
}

TEST_CASE("a traced producer names a delay message, no tags, a batch and a custom trace topic",
          "[trace][producer]") {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicTest", 2);
    broker.create_topic("MyTrace", 1);
    rmq::ProducerConfig config{.producer_group = "PG2"};
    config.enable_msg_trace = true;
    config.customized_trace_topic = "MyTrace";
    config.trace_msg_batch_num = 1;
    rmq::Producer<rmq::InProcessTransport> producer{broker.connect(), config};
    producer.start();
    rmq::Message delayed("TopicTest", "later");
    delayed.set_delay_time_level(1);
    const auto r1 = producer.send(delayed);
    const std::vector<rmq::Message> batch{rmq::Message("TopicTest", "TagB", "k1", "one"),
                                          rmq::Message("TopicTest", "TagB", "k2", "two")};
    const auto r2 = producer.send(std::span<const rmq::Message>(batch));
    producer.shutdown();  // sends what is queued
    const auto records = records_in(broker, "MyTrace");
    REQUIRE(records.size() == 2);
    CHECK(!broker.has_topic(rmq::rmq_sys_trace_topic));
    const auto& d = records[0].trace_beans.at(0);
    CHECK(d.msg_id == r1.msg_id);
    CHECK(d.msg_type == rmq::TraceMessageType::DelayMsg);
    CHECK(d.tags == "null");  // Java traces a message without tags as "null"
    CHECK(d.keys == "null");
    const auto& b = records[1].trace_beans.at(0);
    CHECK(b.msg_id == r2.msg_id);
    CHECK(b.msg_id->find(',') != std::string::npos);
    CHECK(b.tags == "null");
}

TEST_CASE("a traced push consumer writes SubBefore and SubAfter records that join", "[trace][consumer]") {
    rmq::InProcessBroker broker;
    const auto sent = send_good_and_bad(broker, 1, true);
    auto config = consumer_test::fast_config("CG");
    config.enable_msg_trace = true;
    config.trace_msg_batch_num = 1;
    rmq::PushConsumer<rmq::InProcessTransport> consumer{broker.connect(), config};
    consumer.subscribe("Orders", "*");
    consumer_test::Recorder rec;
    int calls = 0;
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));  // a cost the SubAfter record shows
        rec.update([&] { ++calls; });
        return msgs.front().keys() == "bad" && msgs.front().reconsume_times() == 0
                   ? rmq::ConsumeConcurrentlyStatus::ReconsumeLater
                   : rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    // good, bad, untraced, and bad's retry: 3 traced calls, each a SubBefore and a SubAfter
    REQUIRE(consumer_test::eventually([&] { return records_in(broker, "RMQ_SYS_TRACE_TOPIC").size() >= 6; }));
    consumer.shutdown();
    const auto records = records_in(broker, "RMQ_SYS_TRACE_TOPIC");
    REQUIRE(records.size() == 6);
    CHECK(consumer.trace_stats().dropped == 0);

    std::vector<std::string> before_ids;
    for (const auto& b : records) {
        if (b.trace_type != rmq::TraceType::SubBefore) {
            continue;
        }
        before_ids.push_back(*b.trace_beans.at(0).msg_id);
        CHECK(b.group_name == "CG");
        CHECK(b.region_id == "DefaultRegion");
        const auto after = std::find_if(records.begin(), records.end(), [&](const rmq::TraceContext& a) {
            return a.trace_type == rmq::TraceType::SubAfter && a.request_id == b.request_id;
        });
        REQUIRE(after != records.end());
        const auto& bean = b.trace_beans.at(0);
        CHECK(after->trace_beans.at(0).msg_id == bean.msg_id);
        CHECK(after->group_name == "CG");
        CHECK(after->cost_time >= 25);
        CHECK(after->time_stamp >= b.time_stamp + 25);
        const bool first_bad = bean.keys == "bad" && bean.retry_times == 0;
        CHECK(after->is_success == !first_bad);
        CHECK(after->context_code ==
              static_cast<int>(first_bad ? rmq::ConsumeReturnType::Failed : rmq::ConsumeReturnType::Success));
        CHECK(after->trace_beans.at(0).keys == bean.keys);
    }
    std::sort(before_ids.begin(), before_ids.end());
    std::vector<std::string> expected{sent[0].msg_id, sent[1].msg_id, sent[1].msg_id};
    std::sort(expected.begin(), expected.end());
    CHECK(before_ids == expected);  // the TRACE_ON=false message is not traced
}

TEST_CASE("a traced POP push consumer writes SubBefore and SubAfter records of its listener calls",
          "[trace][consumer][pop]") {
    rmq::InProcessBroker broker;
    const auto sent = send_good_and_bad(broker, 2, false);
    auto config = consumer_test::fast_config("CG");
    config.message_request_mode = rmq::MessageRequestMode::Pop;
    config.enable_msg_trace = true;
    config.trace_msg_batch_num = 1;
    rmq::PushConsumer<rmq::InProcessTransport> consumer{broker.connect(), config};
    consumer.subscribe("Orders", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));  // a cost the SubAfter record shows
        return msgs.front().keys() == "bad" ? rmq::ConsumeConcurrentlyStatus::ReconsumeLater
                                            : rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    // one call per message (consume_message_batch_max_size 1); the failed one comes back only after its
    // POP delay, well after this test
    REQUIRE(consumer_test::eventually([&] { return records_in(broker, "RMQ_SYS_TRACE_TOPIC").size() >= 4; }));
    consumer.shutdown();
    const auto records = records_in(broker, "RMQ_SYS_TRACE_TOPIC");
    REQUIRE(records.size() == 4);
    std::map<std::string, rmq::TraceContext> before;
    std::map<std::string, rmq::TraceContext> after;
    for (const auto& r : records) {
        REQUIRE(r.trace_beans.size() == 1);
        (r.trace_type == rmq::TraceType::SubBefore ? before : after)[*r.trace_beans.at(0).keys] = r;
    }
    REQUIRE(before.size() == 2);
    REQUIRE(after.size() == 2);
    CHECK(*before.at("good").trace_beans.at(0).msg_id == sent[0].msg_id);
    CHECK(*before.at("bad").trace_beans.at(0).msg_id == sent[1].msg_id);
    for (const auto& [keys, a] : after) {
        INFO(keys);
        CHECK(a.request_id == before.at(keys).request_id);
        CHECK(a.group_name == "CG");
        CHECK(a.cost_time >= 25);
        CHECK(a.is_success == (keys == "good"));
        CHECK(a.context_code == static_cast<int>(keys == "good" ? rmq::ConsumeReturnType::Success
                                                                : rmq::ConsumeReturnType::Failed));
    }
}

TEST_CASE("an unreachable trace topic drops records without failing sends", "[trace][producer]") {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicTest", 1);
    broker.create_topic("Down", 1);
    rmq::ProducerConfig config{.producer_group = "PG3"};
    config.enable_msg_trace = true;
    config.customized_trace_topic = "Down";
    config.trace_msg_batch_num = 1;
    rmq::Producer<TraceTopicDown> producer{TraceTopicDown(broker.connect()), config};
    producer.start();
    for (int i = 0; i < 3; ++i) {
        CHECK(producer.send(rmq::Message("TopicTest", "x")).status == rmq::SendStatus::SendOk);
    }
    producer.shutdown();
    const auto s = producer.trace_stats();
    CHECK(s.appended == 3);
    CHECK(s.messages_failed + s.messages_sent == 3);
    CHECK(s.messages_sent == 0);
}

TEST_CASE("tracing off writes nothing", "[trace][producer]") {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicTest", 1);
    broker.create_topic(rmq::rmq_sys_trace_topic, 1);
    rmq::Producer<rmq::InProcessTransport> producer{broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "PG4"}};
    producer.start();
    (void)producer.send(rmq::Message("TopicTest", "x"));
    producer.shutdown();
    CHECK(stored(broker, "RMQ_SYS_TRACE_TOPIC") == 0);
    CHECK(producer.trace_stats().appended == 0);
}

}  // namespace traced_clients_test

namespace traced_clients_test {

namespace {

struct CommitOrRollback {
    rmq::LocalTransactionState execute_local_transaction(const rmq::Message& m, int /*arg*/) {
        return m.keys() == "commit" ? rmq::LocalTransactionState::CommitMessage
                                    : rmq::LocalTransactionState::RollbackMessage;
    }

    rmq::LocalTransactionState check_local_transaction(const rmq::MessageExt& /*m*/) {
        return rmq::LocalTransactionState::CommitMessage;
    }
};

}  // namespace

TEST_CASE("a traced transaction producer writes the half message's Pub and an EndTransaction record",
          "[trace][transaction]") {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicTx", 1);
    broker.create_topic(rmq::rmq_sys_trace_topic, 1);
    rmq::ProducerConfig config{.producer_group = "TPG"};
    config.enable_msg_trace = true;
    config.trace_msg_batch_num = 1;
    rmq::TransactionProducer<rmq::InProcessTransport, CommitOrRollback> producer{
        broker.connect(), config, CommitOrRollback{}};
    producer.start();
    const auto committed =
        producer.send_message_in_transaction(rmq::Message("TopicTx", "TagT", "commit", "a"), 0);
    const auto rolled_back =
        producer.send_message_in_transaction(rmq::Message("TopicTx", "TagT", "rollback", "b"), 0);
    producer.shutdown();
    const auto records = records_in(broker, "RMQ_SYS_TRACE_TOPIC");
    REQUIRE(records.size() == 4);
    std::map<std::string, std::vector<rmq::TraceContext>> by_id;
    for (const auto& r : records) {
        by_id[*r.trace_beans.at(0).msg_id].push_back(r);
    }
    for (const auto& [sent, state] : {std::pair{&committed, rmq::LocalTransactionState::CommitMessage},
                                      std::pair{&rolled_back, rmq::LocalTransactionState::RollbackMessage}}) {
        const auto& pair = by_id.at(sent->msg_id);
        REQUIRE(pair.size() == 2);
        CHECK(pair[0].trace_type == rmq::TraceType::Pub);
        CHECK(pair[0].trace_beans.at(0).msg_type == rmq::TraceMessageType::TransMsgHalf);
        CHECK(pair[1].trace_type == rmq::TraceType::EndTransaction);
        CHECK(pair[1].group_name == "TPG");
        const auto& end = pair[1].trace_beans.at(0);
        CHECK(end.transaction_state == state);
        CHECK(end.msg_type == rmq::TraceMessageType::TransMsgCommit);
        CHECK(end.transaction_id == sent->msg_id);
        CHECK_FALSE(end.from_transaction_check);
        CHECK(end.topic == "TopicTx");
        CHECK(end.store_host == "127.0.0.1:10911");
    }
}

}  // namespace traced_clients_test
