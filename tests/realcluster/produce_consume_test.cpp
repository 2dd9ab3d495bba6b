// rmq Producer<RemotingTransport> -> rmq consumers over Apache RocketMQ 5.3.3 (2 brokers x 4 queues).

#include <algorithm>
#include <chrono>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "cluster.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Transport = rmq::RemotingTransport;

struct Sent {
    rmq::Message msg;
    rmq::SendResult result;
};

/// Sends `n` messages round robin: tags cycle A/B/C, keys k-i, property seq=i, every 10th body above 4 KiB.
std::vector<Sent> produce(Transport transport, const std::string& topic, int n, int first = 0) {
    rmq::Producer<Transport> producer(transport, rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
    producer.start();
    std::vector<Sent> out;
    for (int i = first; i < first + n; ++i) {
        static constexpr const char* tags[] = {"TagA", "TagB", "TagC"};
        std::string body = (i % 10 == 9) ? std::string(8192, static_cast<char>('a' + i % 26))
                                         : fmt::format("message {} of {}", i, topic);
        rmq::Message m(topic, tags[i % 3], fmt::format("k-{}", i), body);
        m.set_property("seq", std::to_string(i));
        auto r = producer.send(m);
        REQUIRE(r.status == rmq::SendStatus::SendOk);
        out.push_back(Sent{m, r});
    }
    producer.shutdown();
    return out;
}

struct Received {
    std::mutex mutex;
    std::map<std::string, rmq::MessageExt> by_id;                  // first delivery per msg id
    std::map<rmq::MessageQueue, std::vector<std::int64_t>> order;  // queue offsets in delivery order
    int deliveries = 0;
};

void check_same(const std::vector<Sent>& sent, Received& got) {
    const std::lock_guard lock(got.mutex);
    for (const auto& s : sent) {
        INFO("message " << s.result.msg_id);
        const auto it = got.by_id.find(s.result.msg_id);
        REQUIRE(it != got.by_id.end());
        const auto& m = it->second;
        CHECK(m.body() == s.msg.body());
        CHECK(m.tags() == s.msg.tags());
        CHECK(m.keys() == s.msg.keys());
        CHECK(m.property_view("seq") == s.msg.property_view("seq"));
        CHECK(m.topic() == s.msg.topic());
        CHECK(m.queue_id() == s.result.message_queue.queue_id);
        CHECK(m.broker_name() == s.result.message_queue.broker_name);
        CHECK(m.queue_offset() == s.result.queue_offset);
        CHECK(m.offset_msg_id() == s.result.offset_msg_id);
    }
}

}  // namespace

TEST_CASE("rmq producer -> rmq push consumer: every message, equal content, queue order", "[realcluster]") {
    // One consume thread: concurrent consumption then delivers each queue in pull (queue) order.
    const std::string topic = rmq_rc::unique("RcBasic");
    rmq_rc::create_topic(topic, 4);
    Transport transport{rmq_rc::config()};
    const auto route = transport.topic_route(topic);
    REQUIRE(route.read_queues.size() == 8);  // 2 brokers x 4 queues
    REQUIRE(route.write_queues.size() == 8);

    constexpr int n = 200;
    const auto sent = produce(transport, topic, n);
    std::set<std::string> brokers;
    for (const auto& s : sent) {
        brokers.insert(s.result.message_queue.broker_name);
    }
    CHECK(brokers == std::set<std::string>{"broker-a", "broker-b"});

    Received got;
    rmq_rc::Waiter waiter;
    rmq::ConsumerConfig cfg{.consumer_group = rmq_rc::unique("cg"),
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.consume_thread_min = 1;
    cfg.consume_thread_max = 1;
    rmq::PushConsumer<Transport> consumer{transport, cfg};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        {
            const std::lock_guard lock(got.mutex);
            for (const auto& m : msgs) {
                got.by_id.emplace(m.msg_id(), m);
                got.order[rmq::MessageQueue{m.topic(), m.broker_name(), m.queue_id()}].push_back(
                    m.queue_offset());
                ++got.deliveries;
            }
        }
        waiter.notify();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    const bool all = waiter.wait(
        [&] {
            const std::lock_guard lock(got.mutex);
            return got.by_id.size() >= sent.size();
        },
        std::chrono::seconds(120));
    consumer.shutdown();
    REQUIRE(all);
    check_same(sent, got);
    // every queue holds the messages sent to it at offsets 0..k-1, delivered once each in that order
    std::map<rmq::MessageQueue, std::vector<std::int64_t>> expected;
    for (const auto& s : sent) {
        expected[s.result.message_queue].push_back(s.result.queue_offset);
    }
    const std::lock_guard lock(got.mutex);
    CHECK(got.deliveries == n);
    for (auto& [mq, offsets] : expected) {
        INFO(fmt::format("{}", mq));
        CHECK(got.order[mq] == offsets);
        for (std::size_t i = 0; i < offsets.size(); ++i) {
            CHECK(offsets[i] == static_cast<std::int64_t>(i));
        }
    }
}

TEST_CASE("orderly consumer: broker locks taken, per-queue order intact", "[realcluster]") {
    const std::string topic = rmq_rc::unique("RcOrderly");
    rmq_rc::create_topic(topic, 4);
    Transport transport{rmq_rc::config()};
    constexpr int n = 120;
    const auto sent = produce(transport, topic, n);

    Received got;
    rmq_rc::Waiter waiter;
    const std::string group = rmq_rc::unique("og");
    rmq::ConsumerConfig cfg{.consumer_group = group,
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    rmq::OrderlyConsumer<Transport> consumer{transport, cfg};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        {
            const std::lock_guard lock(got.mutex);
            for (const auto& m : msgs) {
                got.by_id.emplace(m.msg_id(), m);
                got.order[rmq::MessageQueue{m.topic(), m.broker_name(), m.queue_id()}].push_back(
                    m.queue_offset());
            }
        }
        waiter.notify();
        return rmq::ConsumeOrderlyStatus::Success;
    });
    consumer.start();
    const bool all = waiter.wait(
        [&] {
            const std::lock_guard lock(got.mutex);
            return got.by_id.size() >= sent.size();
        },
        std::chrono::seconds(120));
    REQUIRE(all);
    // the queues are locked on the brokers by the consumer: another client id gets none of them
    Transport other{rmq_rc::config()};
    const auto queues = other.topic_route(topic).read_queues;
    const auto stolen = other.lock_batch(group, "10.9.9.9@999#intruder", queues);
    CHECK(stolen.empty());
    consumer.shutdown();
    // after shutdown the consumer released its locks
    const auto locked_after = other.lock_batch(group, "10.9.9.9@999#intruder", queues);
    CHECK(locked_after.size() == queues.size());
    other.unlock_batch(group, "10.9.9.9@999#intruder", queues);

    check_same(sent, got);
    std::map<rmq::MessageQueue, std::vector<std::int64_t>> expected;
    for (const auto& s : sent) {
        expected[s.result.message_queue].push_back(s.result.queue_offset);
    }
    const std::lock_guard lock(got.mutex);
    CHECK(got.order.size() == expected.size());
    for (const auto& [mq, offsets] : expected) {
        INFO(fmt::format("{}", mq));
        CHECK(got.order[mq] == offsets);  // delivered once each, in queue order
    }
}

TEST_CASE("offsets committed by rmq are seen after a restart of the consumer", "[realcluster]") {
    const std::string topic = rmq_rc::unique("RcOffsets");
    rmq_rc::create_topic(topic, 4);
    Transport transport{rmq_rc::config()};
    const std::string group = rmq_rc::unique("cg");
    auto run_consumer = [&](const std::set<std::string>& expect, std::set<std::string>& ids) {
        std::mutex m;
        rmq_rc::Waiter waiter;
        rmq::ConsumerConfig cfg{.consumer_group = group,
                                .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
        // One consume thread delivers each queue in queue order: a first-batch message delivered again
        // (offsets not restored) would come before the second batch's messages of its queue, so waiting for
        // the second batch is enough to see it (no lingering).
        cfg.consume_thread_min = 1;
        cfg.consume_thread_max = 1;
        rmq::PushConsumer<Transport> consumer{transport, cfg};
        consumer.subscribe(topic, "*");
        consumer.register_listener(
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                {
                    const std::lock_guard lock(waiter.mutex);
                    for (const auto& msg : msgs) {
                        ids.insert(msg.msg_id());
                    }
                }
                waiter.notify();
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        consumer.start();
        const bool ok =
            waiter.wait([&] { return std::includes(ids.begin(), ids.end(), expect.begin(), expect.end()); },
                        std::chrono::seconds(120));
        consumer.shutdown();
        return ok;
    };
    const auto msg_ids = [](const std::vector<Sent>& sent) {
        std::set<std::string> out;
        for (const auto& s : sent) {
            out.insert(s.result.msg_id);
        }
        return out;
    };
    const auto first = produce(transport, topic, 40);
    std::set<std::string> ids1;
    REQUIRE(run_consumer(msg_ids(first), ids1));
    CHECK(ids1 == msg_ids(first));
    // the broker stores what the consumer committed at shutdown: next offset = max offset on every queue
    for (const auto& mq : transport.topic_route(topic).read_queues) {
        INFO(fmt::format("{}", mq));
        CHECK(transport.query_consumer_offset(group, mq) ==
              std::optional<std::int64_t>(transport.max_offset(mq)));
    }
    const auto second = produce(transport, topic, 40, 40);
    std::set<std::string> ids2;
    REQUIRE(run_consumer(msg_ids(second), ids2));
    CHECK(ids2 == msg_ids(second));  // nothing of the first batch came again
}

TEST_CASE("ReconsumeLater goes through %RETRY% and ends in %DLQ% after max_reconsume_times",
          "[realcluster]") {
    const std::string topic = rmq_rc::unique("RcRetry");
    rmq_rc::create_topic(topic, 2);
    Transport transport{rmq_rc::config()};
    const auto sent = produce(transport, topic, 3);
    const std::string group = rmq_rc::unique("rg");
    std::map<std::string, std::set<int>> attempts;  // msg id -> reconsume times seen
    std::set<std::string> topics_seen;              // asserted on the test thread
    rmq_rc::Waiter waiter;
    rmq::ConsumerConfig cfg{.consumer_group = group,
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.max_reconsume_times = 2;
    cfg.rebalance_interval = 2000;  // pick up %RETRY%group soon after the first send-back created it
    rmq::PushConsumer<Transport> consumer{transport, cfg};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        {
            const std::lock_guard lock(waiter.mutex);
            for (const auto& m : msgs) {
                topics_seen.insert(m.topic());
                attempts[m.msg_id()].insert(m.reconsume_times());
            }
        }
        waiter.notify();
        return rmq::ConsumeConcurrentlyStatus::ReconsumeLater;
    });
    consumer.start();
    const bool all = waiter.wait(
        [&] {
            if (attempts.size() < sent.size()) {
                return false;
            }
            return std::all_of(
                attempts.begin(), attempts.end(), [](const auto& a) { return a.second.size() == 3; });
        },
        std::chrono::seconds(150));
    // the third failure (reconsume times 2 = max) sends the message to the DLQ
    std::int64_t dlq = 0;
    for (int i = 0; i < 60 && dlq < 3; ++i) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        try {
            transport.invalidate_route(rmq::dlq_topic(group));
            dlq = 0;
            for (const auto& mq : transport.topic_route(rmq::dlq_topic(group)).read_queues) {
                dlq += transport.max_offset(mq);
            }
        } catch (const rmq::Error&) {
        }
    }
    consumer.shutdown();
    {
        const std::lock_guard lock(waiter.mutex);
        REQUIRE(all);
        for (const auto& [id, times] : attempts) {
            CHECK(times == std::set<int>{0, 1, 2});
        }
        CHECK(topics_seen == std::set<std::string>{topic});  // retry messages carry the original topic again
    }
    CHECK(dlq == 3);
}

TEST_CASE("tag filtering: the broker and rmq deliver only the subscribed tags", "[realcluster]") {
    const std::string topic = rmq_rc::unique("RcTags");
    rmq_rc::create_topic(topic, 2);
    Transport transport{rmq_rc::config()};
    const auto sent = produce(transport, topic, 60);  // tags cycle TagA, TagB, TagC
    std::set<std::string> expected;
    for (const auto& s : sent) {
        if (s.msg.tags() != "TagB") {
            expected.insert(s.result.msg_id);
        }
    }
    // A TagA sentinel last on every queue: with one consume thread each queue is delivered in queue order, so
    // once every sentinel has come, a wrongly delivered TagB would have come before it (no lingering).
    {
        rmq::Producer<Transport> producer(transport,
                                          rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
        producer.start();
        for (const auto& mq : transport.topic_route(topic).write_queues) {
            expected.insert(producer.send(rmq::Message(topic, "TagA", "sentinel", "sentinel"), mq).msg_id);
        }
        producer.shutdown();
    }
    std::set<std::string> ids;
    std::set<std::string> tags;
    rmq_rc::Waiter waiter;
    rmq::ConsumerConfig cfg{.consumer_group = rmq_rc::unique("tg"),
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.consume_thread_min = 1;
    cfg.consume_thread_max = 1;
    rmq::PushConsumer<Transport> consumer{transport, cfg};
    consumer.subscribe(topic, "TagA || TagC");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        {
            const std::lock_guard lock(waiter.mutex);
            for (const auto& m : msgs) {
                ids.insert(m.msg_id());
                tags.insert(std::string(m.tags()));
            }
        }
        waiter.notify();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    const bool all =
        waiter.wait([&] { return std::includes(ids.begin(), ids.end(), expected.begin(), expected.end()); },
                    std::chrono::seconds(120));
    consumer.shutdown();
    const std::lock_guard lock(waiter.mutex);
    REQUIRE(all);
    CHECK(ids == expected);
    CHECK(tags == std::set<std::string>{"TagA", "TagC"});
}

TEST_CASE("broker restart (kill -9 of broker-a): the consumer reconnects and resumes, nothing lost",
          "[realcluster][restart]") {
    const std::string topic = rmq_rc::unique("RcRestart");
    rmq_rc::create_topic(topic, 4);
    Transport transport{rmq_rc::config()};
    std::set<std::string> ids;
    rmq_rc::Waiter waiter;
    rmq::ConsumerConfig cfg{.consumer_group = rmq_rc::unique("kg"),
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    rmq::PushConsumer<Transport> consumer{transport, cfg};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        {
            const std::lock_guard lock(waiter.mutex);
            for (const auto& m : msgs) {
                ids.insert(m.msg_id());
            }
        }
        waiter.notify();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    std::set<std::string> expected;
    for (const auto& s : produce(transport, topic, 40)) {
        expected.insert(s.result.msg_id);
    }
    REQUIRE(waiter.wait([&] { return ids.size() >= expected.size(); }, std::chrono::seconds(120)));

    rmq_rc::rocketmq_sh("kill-broker broker-a");
    // while broker-a is down, sends go to broker-b (the producer retries another queue)
    {
        rmq::Producer<Transport> producer(transport,
                                          rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
        producer.start();
        for (int i = 0; i < 20; ++i) {
            try {
                const auto r = producer.send(rmq::Message(topic, "TagA", fmt::format("during outage {}", i)));
                expected.insert(r.msg_id);
            } catch (const rmq::Error&) {
                // every attempt may land on broker-a: not stored, not expected
            }
        }
        producer.shutdown();
    }
    rmq_rc::rocketmq_sh("start-broker broker-a");
    for (const auto& s : produce(transport, topic, 40, 100)) {
        expected.insert(s.result.msg_id);
    }
    const bool all =
        waiter.wait([&] { return std::includes(ids.begin(), ids.end(), expected.begin(), expected.end()); },
                    std::chrono::seconds(180));
    consumer.shutdown();
    const std::lock_guard lock(waiter.mutex);
    CHECK(all);
    std::vector<std::string> missing;
    std::set_difference(
        expected.begin(), expected.end(), ids.begin(), ids.end(), std::back_inserter(missing));
    CHECK(missing.empty());
}

TEST_CASE(
    "two orderly consumers in one group: queues split under broker locks, handed over on leave, order kept",
    "[realcluster][orderly2]") {
    const std::string topic = rmq_rc::unique("RcOrderly2");
    rmq_rc::create_topic(topic, 4);
    Transport transport{rmq_rc::config()};
    const std::string group = rmq_rc::unique("o2g");

    struct Log {
        std::map<rmq::MessageQueue, std::vector<std::int64_t>> order;
    };

    std::map<std::string, Log> logs;  // per consumer
    std::set<std::string> ids;
    rmq_rc::Waiter waiter;
    auto make = [&](const std::string& name) {
        rmq::ConsumerConfig cfg{.consumer_group = group,
                                .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
        cfg.rebalance_interval = 2000;
        cfg.instance_name = name;
        auto c = std::make_unique<rmq::OrderlyConsumer<Transport>>(Transport{rmq_rc::config()}, cfg);
        c->subscribe(topic, "*");
        c->register_listener([&, name](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
            {
                const std::lock_guard lock(waiter.mutex);
                for (const auto& m : msgs) {
                    ids.insert(m.msg_id());
                    logs[name].order[rmq::MessageQueue{m.topic(), m.broker_name(), m.queue_id()}].push_back(
                        m.queue_offset());
                }
            }
            waiter.notify();
            return rmq::ConsumeOrderlyStatus::Success;
        });
        return c;
    };
    auto wait_all = [&](const std::vector<Sent>& sent) {
        return waiter.wait(
            [&] {
                return std::all_of(
                    sent.begin(), sent.end(), [&](const Sent& s) { return ids.count(s.result.msg_id); });
            },
            std::chrono::seconds(120));
    };
    auto a = make("consumerA");
    a->start();
    const auto first = produce(transport, topic, 40);
    REQUIRE(wait_all(first));
    auto b = make("consumerB");
    b->start();
    // both members own some queues, and every queue is locked on its broker by one of them
    auto owned = [&](const auto& consumer) {  // queues of the topic (the %RETRY% queues are owned too)
        const auto all = consumer->assigned_queues();
        return std::count_if(
            all.begin(), all.end(), [&](const rmq::MessageQueue& q) { return q.topic == topic; });
    };
    bool split = false;
    for (int i = 0; i < 60 && !split; ++i) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        split = owned(a) > 0 && owned(b) > 0 && owned(a) + owned(b) == 8;
    }
    CHECK(split);
    const auto second = produce(transport, topic, 40, 40);
    REQUIRE(wait_all(second));
    const auto queues = transport.topic_route(topic).read_queues;
    CHECK(transport.lock_batch(group, "10.9.9.9@999#intruder", queues).empty());
    b->shutdown();  // B leaves: A takes its queues over
    const auto third = produce(transport, topic, 40, 80);
    REQUIRE(wait_all(third));
    CHECK(owned(a) == 8);
    a->shutdown();
    const std::lock_guard lock(waiter.mutex);
    for (const auto& [name, log] : logs) {
        for (const auto& [mq, offsets] : log.order) {
            INFO(name << " " << fmt::format("{}", mq));
            CHECK(std::is_sorted(offsets.begin(), offsets.end()));
        }
    }
    CHECK(logs.count("consumerB") == 1);  // B did consume its share
}
