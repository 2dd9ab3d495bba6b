// Concurrent consumption end to end on the embedded broker.

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::PushConsumer;
using consumer_test::Recorder;

namespace {

std::int64_t
committed_sum(rmq::InProcessBroker& broker, const std::string& group, const std::string& topic, int queues) {
    std::int64_t sum = 0;
    for (int q = 0; q < queues; ++q) {
        sum += broker.consumer_offset(group, broker.queue(topic, q)).value_or(0);
    }
    return sum;
}

}  // namespace

TEST_CASE("concurrent consumer receives every message and commits the offsets", "[consumer][concurrently]") {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicTest", 4);
    produce(broker, "TopicTest", 4, 100);

    Recorder rec;
    std::multiset<std::string> bodies;
    PushConsumer consumer{broker.connect(), fast_config("cg_basic")};
    consumer.subscribe("TopicTest", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        rec.update([&] {
            for (const auto& m : msgs) {
                bodies.insert(m.body());
            }
        });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    std::atomic<int> before{0};
    std::atomic<int> after_ok{0};
    consumer.set_consume_hooks(rmq::ConsumeHooks{
        .before = [&](const rmq::MessageQueue&,
                      std::span<const rmq::MessageExt> msgs) { before += static_cast<int>(msgs.size()); },
        .after =
            [&](const rmq::MessageQueue&, std::span<const rmq::MessageExt> msgs, bool ok) {
                if (ok) {
                    after_ok += static_cast<int>(msgs.size());
                }
            },
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return bodies.size() >= 100; }));
    consumer.shutdown();
    CHECK(before.load() == static_cast<int>(rec.read([&] { return bodies.size(); })));
    CHECK(after_ok.load() == before.load());

    const auto distinct = rec.read([&] { return std::set<std::string>(bodies.begin(), bodies.end()); });
    CHECK(distinct.size() == 100);
    CHECK(committed_sum(broker, "cg_basic", "TopicTest", 4) == 100);
    const auto stats = consumer.stats();
    REQUIRE(stats.topics.size() >= 1);
    CHECK(std::any_of(stats.topics.begin(), stats.topics.end(), [](const rmq::TopicStats& t) {
        return t.topic == "TopicTest" && t.consume_ok_tps > 0;
    }));
}

TEST_CASE("tag subscription delivers only matching tags and still advances the offset",
          "[consumer][concurrently]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Tags", 2);
    produce(broker, "Tags", 2, 10, "a", "TagA");
    produce(broker, "Tags", 2, 10, "b", "TagB");

    Recorder rec;
    std::vector<std::string> seen;
    PushConsumer consumer{broker.connect(), fast_config("cg_tags")};
    consumer.subscribe("Tags", "TagB");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        rec.update([&] {
            for (const auto& m : msgs) {
                seen.emplace_back(m.tags());
            }
        });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 10; }));
    REQUIRE(eventually([&] { return committed_sum(broker, "cg_tags", "Tags", 2) == 20; }));
    consumer.shutdown();
    for (const auto& t : seen) {
        CHECK(t == "TagB");
    }
    CHECK(seen.size() == 10);
}

TEST_CASE("ackIndex: messages after the ack index are retried through %RETRY%group",
          "[consumer][concurrently]") {
    rmq::InProcessBroker broker{consumer_test::fast_broker_config()};
    broker.create_topic("Ack", 1);
    produce(broker, "Ack", 1, 3);

    auto config = fast_config("cg_ack");
    config.consume_message_batch_max_size = 3;
    config.pull_batch_size = 3;
    Recorder rec;
    std::map<std::string, int> deliveries;
    std::map<std::string, int> reconsume;
    std::atomic<bool> first{true};
    std::atomic<std::size_t> first_batch{0};
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe("Ack", "*");
    consumer.register_listener(
        [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext& ctx) {
            rec.update([&] {
                for (const auto& m : msgs) {
                    ++deliveries[m.body()];
                    reconsume[m.body()] = m.reconsume_times();
                }
            });
            if (first.exchange(false)) {
                first_batch = msgs.size();
                ctx.set_ack_index(0);  // only the first of the batch succeeded
            }
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    consumer.start();
    REQUIRE(rec.wait([&] { return deliveries["m1"] == 2 && deliveries["m2"] == 2; }));
    consumer.shutdown();
    CHECK(first_batch.load() == 3);
    rec.read([&] {
        CHECK(deliveries["m0"] == 1);
        CHECK(reconsume["m1"] == 1);
        CHECK(reconsume["m2"] == 1);
        return 0;
    });
    const auto stats = consumer.stats();
    CHECK(std::any_of(stats.topics.begin(), stats.topics.end(), [](const rmq::TopicStats& t) {
        return t.topic == "Ack" && t.consume_failed_msgs == 2;
    }));
    // Nothing pending: the original queue is fully committed.
    CHECK(broker.consumer_offset("cg_ack", broker.queue("Ack", 0)).value_or(-1) == 3);
}

TEST_CASE("concurrent retries end in %DLQ%group after max_reconsume_times", "[consumer][concurrently][dlq]") {
    rmq::InProcessBroker broker{consumer_test::fast_broker_config()};
    broker.create_topic("Dlq", 1);
    produce(broker, "Dlq", 1, 1);

    auto config = fast_config("cg_dlq");
    config.max_reconsume_times = 2;
    Recorder rec;
    int calls = 0;
    PushConsumer consumer{broker.connect(), config};
    consumer.subscribe("Dlq", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        rec.update([&] { ++calls; });
        return rmq::ConsumeConcurrentlyStatus::ReconsumeLater;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return calls >= 3; }));  // first delivery + 2 retries
    REQUIRE(eventually([&] { return !broker.messages("%DLQ%cg_dlq", 0).empty(); }));
    consumer.shutdown();
    const auto dlq = broker.messages("%DLQ%cg_dlq", 0);
    REQUIRE(dlq.size() == 1);
    CHECK(dlq.front().body() == "m0");
    CHECK(rec.read([&] { return calls; }) == 3);
}

TEST_CASE("a throwing listener counts as ReconsumeLater", "[consumer][concurrently]") {
    rmq::InProcessBroker broker{consumer_test::fast_broker_config()};
    broker.create_topic("Throw", 1);
    produce(broker, "Throw", 1, 1);

    Recorder rec;
    std::vector<int> reconsume_times;
    PushConsumer consumer{broker.connect(), fast_config("cg_throw")};
    consumer.subscribe("Throw", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        bool again = false;
        rec.update([&] {
            reconsume_times.push_back(msgs.front().reconsume_times());
            again = reconsume_times.size() == 1;
        });
        if (again) {
            throw std::runtime_error("listener failure");
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return reconsume_times.size() >= 2; }));
    consumer.shutdown();
    CHECK(rec.read([&] { return reconsume_times; }) == std::vector<int>{0, 1});
}

TEST_CASE("broadcasting: a failed message is dropped, not retried",
          "[consumer][concurrently][broadcasting]") {
    rmq::InProcessBroker broker{consumer_test::fast_broker_config()};
    broker.create_topic("Bc", 1);
    produce(broker, "Bc", 1, 2);

    auto config = fast_config("cg_bc");
    config.message_model = rmq::MessageModel::Broadcasting;
    Recorder rec;
    int calls = 0;
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::MemoryOffsetStore, rmq::InProcessTransport>
        consumer{broker.connect(), config};
    consumer.subscribe("Bc", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        rec.update([&] { ++calls; });
        return rmq::ConsumeConcurrentlyStatus::ReconsumeLater;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return calls >= 2; }));
    REQUIRE(eventually([&] {
        return consumer.offset_store().read_offset(broker.queue("Bc", 0),
                                                   rmq::ReadOffsetType::ReadFromMemory) == 2;
    }));
    consumer.shutdown();
    CHECK(broker.messages("%RETRY%cg_bc", 0).empty());
    CHECK(rec.read([&] { return calls; }) == 2);
}

TEST_CASE("listeners see Java's pull stamps: MIN_OFFSET, MAX_OFFSET, CONSUME_START_TIME, queue and broker",
          "[consumer][concurrently]") {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicStamp", 2);
    produce(broker, "TopicStamp", 2, 40);
    const auto batch = GENERATE(1, 8);
    Recorder rec;
    std::vector<std::string> problems;
    int seen = 0;
    auto cfg = fast_config("cg_stamps");
    cfg.consume_message_batch_max_size = batch;
    PushConsumer consumer{broker.connect(), cfg};
    consumer.subscribe("TopicStamp", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        rec.update([&] {
            for (const auto& m : msgs) {
                ++seen;
                const auto mq = broker.queue("TopicStamp", m.queue_id());
                if (m.property_view(rmq::property::min_offset) != "0") {
                    problems.push_back("MIN_OFFSET " +
                                       std::string(m.property_view(rmq::property::min_offset)));
                }
                // The broker's max offset when the message was pulled: past the message, at most 20.
                const auto max = m.property(rmq::property::max_offset);
                if (!max || std::stoll(*max) <= m.queue_offset() || std::stoll(*max) > 20) {
                    problems.push_back("MAX_OFFSET " + max.value_or("missing"));
                }
                if (!m.has_property(rmq::property::consume_start_timestamp)) {
                    problems.emplace_back("CONSUME_START_TIME missing");
                }
                if (m.broker_name() != mq.broker_name) {
                    problems.push_back("broker " + m.broker_name());
                }
            }
        });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen >= 40; }));
    consumer.shutdown();
    rec.read([&] {
        CHECK(problems.empty());
        for (const auto& p : problems) {
            UNSCOPED_INFO(p);
        }
        return 0;
    });
}
