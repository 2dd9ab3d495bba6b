// Message traces against Apache RocketMQ (5.3.3, and 4.9.7 with RMQ_VERSION=4.9.7; the brokers run with
// traceTopicEnable=true): a traced rmq producer and push consumer write Pub, SubBefore and SubAfter records
// that rmq reads back from the trace topic, and that mqadmin's queryMsgTraceById (Java's TraceView, as
// RocketMQ Dashboard) shows.

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cluster.hpp"
#include "peer.hpp"
#include "round_trip.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/trace.hpp>
#include <rmq/transport/remoting.hpp>

namespace trace_rc_test {

namespace {

using Transport = rmq::RemotingTransport;

/// `tools/rocketmq.sh mqadmin ARGS`: its standard output and error.
std::string mqadmin_output(const std::string& args) {
    return rmq_rc::mqadmin_output(args, true);
}

/// The records of the trace topic about `ids`, read back by a plain consumer of a fresh group.
struct TraceReader {
    std::mutex mutex;
    std::vector<rmq::TraceContext> records;
    rmq_rc::Waiter waiter;

    std::size_t count(rmq::TraceType t) {
        const std::lock_guard lock(mutex);
        std::size_t n = 0;
        for (const auto& r : records) {
            n += r.trace_type == t ? 1 : 0;
        }
        return n;
    }

    void read(Transport transport,
              const std::string& trace_topic,
              const std::set<std::string>& ids,
              std::size_t pubs,
              std::size_t subs) {
        rmq::PushConsumer<Transport> reader{transport, rmq_rc::consumer_config()};
        reader.subscribe(trace_topic, "*");
        reader.register_listener(
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                {
                    const std::lock_guard lock(mutex);
                    for (const auto& m : msgs) {
                        for (auto& c : rmq::decode_trace_data(m.body())) {
                            if (ids.count(c.trace_beans.at(0).msg_id.value_or("")) != 0) {
                                records.push_back(std::move(c));
                            }
                        }
                    }
                }
                waiter.notify();
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        reader.start();
        CHECK(waiter.wait(
            [&] {
                return count(rmq::TraceType::Pub) >= pubs && count(rmq::TraceType::SubBefore) >= subs &&
                       count(rmq::TraceType::SubAfter) >= subs;
            },
            std::chrono::seconds(120)));
        reader.shutdown();
    }
};

/// Sends 5 traced messages and consumes them with a traced consumer; returns the send results.
std::vector<rmq::SendResult> traced_round_trip(Transport transport,
                                               const std::string& topic,
                                               const std::string& producer_group,
                                               const std::string& consumer_group,
                                               const std::string& trace_topic) {
    rmq::ProducerConfig pc{.producer_group = producer_group};
    pc.enable_msg_trace = true;
    pc.customized_trace_topic = trace_topic;
    rmq::Producer<Transport> producer(transport, pc);
    producer.start();
    std::vector<rmq::SendResult> sent;
    std::set<std::string> ids;
    for (int i = 0; i < 5; ++i) {
        sent.push_back(producer.send(rmq::Message(topic, "TagT", fmt::format("tk-{} order", i), "traced")));
        REQUIRE(sent.back().status == rmq::SendStatus::SendOk);
        ids.insert(sent.back().msg_id);
    }
    producer.shutdown();  // sends the queued records
    CHECK(producer.trace_stats().appended == 5);
    CHECK(producer.trace_stats().dropped == 0);
    CHECK(producer.trace_stats().messages_failed == 0);

    auto cc = rmq_rc::consumer_config();
    cc.consumer_group = consumer_group;
    cc.enable_msg_trace = true;
    cc.customized_trace_topic = trace_topic;
    rmq_rc::consume_all<false>(transport, cc, topic, ids);
    return sent;
}

void check_records(TraceReader& reader,
                   const std::vector<rmq::SendResult>& sent,
                   const std::string& topic,
                   const std::string& producer_group,
                   const std::string& consumer_group) {
    const std::lock_guard lock(reader.mutex);
    std::map<std::string, const rmq::SendResult*> by_id;
    for (const auto& r : sent) {
        by_id[r.msg_id] = &r;
    }
    std::map<std::string, std::string> request_of;  // SubBefore's request id per message
    for (const auto& c : reader.records) {
        const auto& bean = c.trace_beans.at(0);
        const auto* r = by_id.at(*bean.msg_id);
        if (c.trace_type == rmq::TraceType::Pub) {
            CHECK(c.group_name == producer_group);
            CHECK(c.region_id == "DefaultRegion");  // the brokers' regionId
            CHECK(c.is_success);
            CHECK(bean.topic == topic);
            CHECK(bean.tags == "TagT");
            CHECK(bean.keys->ends_with(" order"));
            CHECK(bean.offset_msg_id == r->offset_msg_id);
            CHECK(bean.store_host->starts_with("127.0.0.1:"));
            CHECK(bean.body_length == 6);
        } else if (c.trace_type == rmq::TraceType::SubBefore) {
            CHECK(c.group_name == consumer_group);
            CHECK(bean.retry_times == 0);
            request_of[*bean.msg_id] = c.request_id.value_or("");
        }
    }
    for (const auto& c : reader.records) {
        if (c.trace_type == rmq::TraceType::SubAfter) {
            CHECK(c.group_name == consumer_group);
            CHECK(c.is_success);
            CHECK(c.context_code == 0);
            CHECK(request_of.at(*c.trace_beans.at(0).msg_id) == c.request_id.value_or(""));
        }
    }
    CHECK(request_of.size() == sent.size());
}

}  // namespace

TEST_CASE("rmq's producer and consumer traces reach RMQ_SYS_TRACE_TOPIC and mqadmin shows them",
          "[realcluster][trace]") {
    const std::string topic = rmq_rc::unique("RcTraced");
    rmq_rc::create_topic(topic, 2);
    Transport transport{rmq_rc::config()};
    const auto pg = rmq_rc::unique("pg_trace");
    const auto cg = rmq_rc::unique("cg_trace");
    const auto sent = traced_round_trip(transport, topic, pg, cg, "");
    std::set<std::string> ids;
    for (const auto& r : sent) {
        ids.insert(r.msg_id);
    }
    TraceReader reader;
    reader.read(transport, std::string(rmq::rmq_sys_trace_topic), ids, 5, 5);
    CHECK(reader.count(rmq::TraceType::Pub) == 5);
    CHECK(reader.count(rmq::TraceType::SubBefore) == 5);
    CHECK(reader.count(rmq::TraceType::SubAfter) == 5);
    check_records(reader, sent, topic, pg, cg);

    // Java's TraceView (what Dashboard shows) finds the records through the trace topic's key index.
    std::string out;
    const bool shown = rmq_rc::wait_until(
        [&] {
            out = mqadmin_output(fmt::format("queryMsgTraceById -i {}", sent.front().msg_id));
            return out.find(pg) != std::string::npos && out.find(cg) != std::string::npos;
        },
        std::chrono::seconds(60));
    INFO(out);
    CHECK(shown);
    CHECK(out.find("Pub") != std::string::npos);
    CHECK(out.find("Sub ") != std::string::npos);
    CHECK(out.find("success") != std::string::npos);
}

TEST_CASE("traces go to a customized trace topic", "[realcluster][trace]") {
    const std::string topic = rmq_rc::unique("RcTracedCustom");
    const std::string trace_topic = rmq_rc::unique("RcTraceTopic");
    rmq_rc::create_topic(topic, 2);
    rmq_rc::create_topic(trace_topic, 1);
    Transport transport{rmq_rc::config()};
    const auto pg = rmq_rc::unique("pg_trace");
    const auto cg = rmq_rc::unique("cg_trace");
    const auto sent = traced_round_trip(transport, topic, pg, cg, trace_topic);
    std::set<std::string> ids;
    for (const auto& r : sent) {
        ids.insert(r.msg_id);
    }
    TraceReader reader;
    reader.read(transport, trace_topic, ids, 5, 5);
    CHECK(reader.count(rmq::TraceType::Pub) == 5);
    CHECK(reader.count(rmq::TraceType::SubAfter) == 5);
    check_records(reader, sent, topic, pg, cg);
    std::string out;
    const bool shown = rmq_rc::wait_until(
        [&] {
            out =
                mqadmin_output(fmt::format("queryMsgTraceById -i {} -t {}", sent.back().msg_id, trace_topic));
            return out.find(pg) != std::string::npos && out.find(cg) != std::string::npos;
        },
        std::chrono::seconds(60));
    INFO(out);
    CHECK(shown);
}

}  // namespace trace_rc_test

namespace trace_rc_test {

namespace {

/// Runs `tools/rocketmq.sh peer ARGS`; the msgIds of its JSON lines (exit status must be 0).
std::set<std::string> java_sent_ids(const std::string& args) {
    std::set<std::string> ids;
    for (const auto& line : rmq_rc::peer(args)) {
        if (line.contains("msgId") && line["msgId"].is_string()) {
            ids.insert(line["msgId"].get<std::string>());
        }
    }
    return ids;
}

}  // namespace

TEST_CASE("a Java producer's traces and an rmq consumer's traces of the same messages join",
          "[realcluster][trace][interop]") {
    const std::string topic = rmq_rc::unique("RcTraceJoin");
    rmq_rc::create_topic(topic, 2);
    const auto java_group = rmq_rc::unique("java_pg");
    const auto ids = java_sent_ids(fmt::format(
        "RefProducer {} {} 5 --group {} --keys jk- --trace", rmq_rc::namesrv(), topic, java_group));
    REQUIRE(ids.size() == 5);
    Transport transport{rmq_rc::config()};
    auto cc = rmq_rc::consumer_config();
    cc.enable_msg_trace = true;
    rmq_rc::consume_all<false>(transport, cc, topic, ids);

    TraceReader reader;
    reader.read(transport, std::string(rmq::rmq_sys_trace_topic), ids, 5, 5);
    const std::lock_guard lock(reader.mutex);
    std::map<std::string, std::set<std::string>> groups_of;  // msgId -> "Pub:<group>", "SubAfter:<group>"
    for (const auto& c : reader.records) {
        if (c.trace_type == rmq::TraceType::Pub || c.trace_type == rmq::TraceType::SubAfter) {
            groups_of[*c.trace_beans.at(0).msg_id].insert(
                fmt::format("{}:{}", rmq::trace_type_name(c.trace_type), c.group_name.value_or("")));
        }
    }
    REQUIRE(groups_of.size() == 5);
    for (const auto& [id, groups] : groups_of) {
        INFO(id);
        CHECK(groups == std::set<std::string>{"Pub:" + java_group, "SubAfter:" + cc.consumer_group});
    }
}

}  // namespace trace_rc_test
