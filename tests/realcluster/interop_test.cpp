// Interoperability with the Apache RocketMQ Java client (tests/interop reference peer, run through
// `tools/rocketmq.sh peer`): Java producer -> rmq consumer and rmq producer -> Java consumer; a Java POP
// consumer and an rmq::SimpleConsumer sharing one group (5.x).

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "cluster.hpp"
#include "peer.hpp"
#include "round_trip.hpp"
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Transport = rmq::RemotingTransport;
using Json = nlohmann::json;
using rmq_rc::peer;

std::string sha256_hex(const std::string& data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    REQUIRE(EVP_Digest(data.data(), data.size(), md.data(), &len, EVP_sha256(), nullptr) == 1);
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += fmt::format("{:02x}", md[i]);
    }
    return out;
}

}  // namespace

TEST_CASE("Java producer -> rmq push consumer: ids, bodies (compressed too), tags, keys, properties, order",
          "[realcluster][interop]") {
    const std::string topic = rmq_rc::unique("RcJavaToRmq");
    rmq_rc::create_topic(topic, 4);
    constexpr int n = 100;
    const auto sent =
        peer(fmt::format("RefProducer {} {} {} --tags TagA,TagB,TagC --keys k- --prop color=blue "
                         "--seq-prop seq --large-every 10 --large-size 8192 --select round",
                         rmq_rc::namesrv(),
                         topic,
                         n));
    REQUIRE(sent.size() == static_cast<std::size_t>(n));

    std::mutex mutex;
    rmq_rc::Waiter waiter;
    std::map<std::string, rmq::MessageExt> got;
    std::map<std::pair<std::string, int>, std::vector<std::int64_t>>
        order;  // (broker, queue) -> delivered offsets
    Transport transport{rmq_rc::config()};
    rmq::ConsumerConfig cfg{.consumer_group = rmq_rc::unique("cg"),
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.consume_thread_min = 1;  // one consume thread delivers each queue in queue order
    cfg.consume_thread_max = 1;
    rmq::PushConsumer<Transport> consumer{transport, cfg};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        {
            const std::lock_guard lock(waiter.mutex);
            for (const auto& m : msgs) {
                got.emplace(m.msg_id(), m);
                order[{std::string(m.broker_name()), m.queue_id()}].push_back(m.queue_offset());
            }
        }
        waiter.notify();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    const bool all = waiter.wait([&] { return got.size() >= sent.size(); }, std::chrono::seconds(120));
    consumer.shutdown();
    REQUIRE(all);
    int large = 0;
    for (const auto& s : sent) {
        const std::string id = s["msgId"];
        INFO("message " << id);
        const auto it = got.find(id);
        REQUIRE(it != got.end());
        const auto& m = it->second;
        CHECK(m.body().size() == s["bodyLen"].get<std::size_t>());
        CHECK(sha256_hex(m.body()) == s["bodySha256"].get<std::string>());
        CHECK(m.tags() == s["tags"].get<std::string>());
        CHECK(m.keys() == s["keys"].get<std::string>());
        CHECK(m.offset_msg_id() == s["offsetMsgId"].get<std::string>());
        CHECK(m.broker_name() == s["brokerName"].get<std::string>());
        CHECK(m.queue_id() == s["queueId"].get<int>());
        CHECK(m.queue_offset() == s["queueOffset"].get<std::int64_t>());
        for (const auto& [k, v] : s["properties"].items()) {
            CHECK(m.property_view(k) == v.get<std::string>());
        }
        if (m.body().size() > 4096) {
            ++large;
            CHECK((m.sys_flag() & 0x1) != 0);  // stored compressed by the Java producer, inflated by rmq
        }
    }
    CHECK(large == n / 10);
    // Delivery order per queue is the order the Java producer stored them in, each once.
    std::map<std::pair<std::string, int>, std::vector<std::int64_t>> expected;
    for (const auto& s : sent) {
        expected[{s["brokerName"].get<std::string>(), s["queueId"].get<int>()}].push_back(
            s["queueOffset"].get<std::int64_t>());
    }
    const std::lock_guard lock(waiter.mutex);
    for (auto& [q, offsets] : expected) {
        INFO(q.first << " queue " << q.second);
        std::sort(offsets.begin(), offsets.end());  // the producer's report; the delivery order is not sorted
        CHECK(order[q] == offsets);
    }
}

TEST_CASE("rmq producer -> Java push consumer: ids, bodies (compressed too), tags, keys, properties",
          "[realcluster][interop]") {
    const std::string topic = rmq_rc::unique("RcRmqToJava");
    rmq_rc::create_topic(topic, 4);
    Transport transport{rmq_rc::config()};
    rmq::Producer<Transport> producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
    producer.start();
    constexpr int n = 60;
    std::map<std::string, std::pair<rmq::Message, rmq::SendResult>> sent;
    for (int i = 0; i < n; ++i) {
        std::string body = (i % 6 == 5) ? std::string(10000, static_cast<char>('A' + i % 26))
                                        : fmt::format("rmq says hello {}", i);
        rmq::Message m(topic, i % 2 == 0 ? "TagA" : "TagB", fmt::format("key-{}", i), body);
        m.set_property("color", "green");
        m.set_property("seq", std::to_string(i));
        auto r = producer.send(m);
        REQUIRE(r.status == rmq::SendStatus::SendOk);
        sent.emplace(r.msg_id, std::pair{m, r});
    }
    producer.shutdown();
    const auto received = peer(fmt::format(
        "RefConsumer {} {} {} '*' concurrently {} 120", rmq_rc::namesrv(), rmq_rc::unique("jg"), topic, n));
    std::map<std::string, Json> by_id;
    for (const auto& r : received) {
        by_id.emplace(r["msgId"].get<std::string>(), r);
    }
    REQUIRE(by_id.size() == sent.size());
    for (const auto& [id, pair] : sent) {
        const auto& [m, r] = pair;
        INFO("message " << id);
        const auto it = by_id.find(id);
        REQUIRE(it != by_id.end());
        const auto& j = it->second;
        CHECK(j["bodySha256"].get<std::string>() == sha256_hex(m.body()));
        CHECK(j["bodyLen"].get<std::size_t>() == m.body().size());
        CHECK(j["tags"].get<std::string>() == m.tags());
        CHECK(j["keys"].get<std::string>() == m.keys());
        CHECK(j["properties"]["color"] == "green");
        CHECK(j["properties"]["seq"].get<std::string>() == std::string(m.property_view("seq")));
        CHECK(j["offsetMsgId"].get<std::string>() == r.offset_msg_id);
        CHECK(j["queueId"].get<int>() == r.message_queue.queue_id);
        CHECK(j["brokerName"].get<std::string>() == r.message_queue.broker_name);
        CHECK(j["queueOffset"].get<std::int64_t>() == r.queue_offset);
        if (m.body().size() >= 4096) {
            // zlib type bits kept; the 5.x Java client clears the compressed bit once it has decompressed the
            // body, the 4.x one leaves it set
            CHECK(j["sysFlag"].get<int>() == (rmq_rc::rocketmq_4x() ? 0x301 : 0x300));
        }
    }
}

TEST_CASE("Java POP push consumer and rmq SimpleConsumer share one group: every message consumed, none lost",
          "[realcluster][interop][pop]") {
    if (rmq_rc::rocketmq_4x()) {
        WARN("Apache RocketMQ " << rmq_rc::env("RMQ_VERSION")
                                << " has no POP: this 5.x interop test did NOT run (run it on 5.3.3)");
        return;
    }
    const std::string topic = rmq_rc::unique("RcPopShare");
    rmq_rc::create_topic(topic, 4);
    const std::string group = rmq_rc::unique("popshare");
    constexpr int n = 400;
    rmq::RemotingTransport transport{rmq_rc::config()};
    const std::set<std::string> sent = rmq_rc::produce(transport, topic, n, rmq_rc::unique("pg"), "share");
    REQUIRE(sent.size() == static_cast<std::size_t>(n));
    // Java's push consumer pops only when the broker's assignment says POP: the group's consume mode, set
    // before it starts (-q 8: every member gets all 4 queues of each broker, one pop request per queue).
    rmq_rc::mqadmin(fmt::format("setConsumeMode -c DefaultCluster -t {} -g {} -m POP -q 8", topic, group));

    // rmq receives on its own thread, slowly (4 messages per 200 ms: the Java peer, a JVM still starting,
    // should get its share), and on after the peer exits until every message was seen or 120 s passed: what
    // the peer popped and never consumed comes back after its invisible time (60 s).
    std::mutex mutex;
    std::map<std::string, int> delivered;    // msgId -> deliveries (both members)
    std::map<std::string, int> max_retries;  // msgId -> highest reconsume times seen
    std::size_t rmq_count = 0;
    std::size_t java_count = 0;
    auto record = [&](const std::string& id, int reconsume_times) {
        ++delivered[id];
        max_retries[id] = std::max(max_retries[id], reconsume_times);
    };
    std::atomic<bool> java_done{false};
    std::atomic<bool> give_up{false};  // the peer failed: nothing left to wait for
    std::string rmq_error;
    rmq::SimpleConsumer<Transport> simple{transport,
                                          rmq::SimpleConsumerConfig{.consumer_group = group,
                                                                    .await_duration = 1000,
                                                                    .init_mode = rmq::ConsumeInitMode::Min}};
    simple.subscribe(topic);
    std::thread receiver([&] {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
        try {
            while (!give_up.load() && std::chrono::steady_clock::now() < deadline) {
                for (const auto& m : simple.receive(4, std::chrono::seconds(60))) {
                    simple.ack(m);
                    const std::lock_guard lock(mutex);
                    record(m.msg_id(), m.reconsume_times());
                    ++rmq_count;
                }
                const std::lock_guard lock(mutex);
                if (java_done.load() && delivered.size() >= sent.size()) {
                    return;
                }
                if (!java_done.load()) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(200));
                }
            }
        } catch (const std::exception& e) {
            const std::lock_guard lock(mutex);
            rmq_error = e.what();
        }
    });
    // EXPECTED 0: the peer consumes (and acks) whatever it is given for 40 s, then exits.
    std::vector<Json> java;
    try {
        java = rmq_rc::peer_retrying_start(
            fmt::format("RefConsumer {} {} {} '*' concurrently 0 40 --pop --batch 1 --threads 4",
                        rmq_rc::namesrv(),
                        group,
                        topic));
    } catch (...) {
        give_up = true;
        receiver.join();
        throw;
    }
    {
        const std::lock_guard lock(mutex);
        for (const auto& line : java) {
            INFO(line.dump());
            // popped, not pulled: a popped message carries its receipt (POP_CK)
            CHECK(line["properties"].contains("POP_CK"));
            record(line["msgId"].get<std::string>(), line["reconsumeTimes"].get<int>());
            ++java_count;
        }
    }
    java_done = true;
    receiver.join();
    REQUIRE(rmq_error.empty());

    std::size_t lost = 0;
    std::size_t duplicates = 0;
    std::size_t unexplained = 0;
    for (const auto& id : sent) {
        const auto it = delivered.find(id);
        if (it == delivered.end()) {
            ++lost;
            continue;
        }
        duplicates += static_cast<std::size_t>(it->second - 1);
        // A second delivery happens only when the invisible time (60 s) passed before an ack, and then it is
        // a redelivery from the pop retry topic (reconsume times > 0). Both members ack at once: a duplicate
        // without a redelivery would be two members handed the same message.
        unexplained += it->second > 1 && max_retries[id] == 0 ? 1 : 0;
    }
    INFO("rmq " << rmq_count << " deliveries, Java " << java_count << "; duplicates " << duplicates
                << " (unexplained " << unexplained << "); lost " << lost);
    CHECK(lost == 0);
    CHECK(delivered.size() == sent.size());  // nothing but what was sent
    CHECK(unexplained == 0);
    // The two members shared the topic: each consumed messages.
    CHECK(rmq_count > 0);
    CHECK(java_count > 0);
    fmt::print(
        stderr,
        "POP interop: {} messages; rmq {} deliveries, Java {}; duplicates {} (all redeliveries); lost {}\n",
        n,
        rmq_count,
        java_count,
        duplicates,
        lost);
}
