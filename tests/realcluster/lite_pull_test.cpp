// rmq::LitePullConsumer over a real cluster (2 brokers x 4 queues; 5.3.3, and 4.9.7 with RMQ_VERSION): a
// group of two members polls every message once with no queue polled by both and commits on the broker;
// assign, seek, offset_for_timestamp and commit_sync, a new consumer continuing from the committed offsets.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/lite_pull_consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Transport = rmq::RemotingTransport;
using LitePull = rmq::LitePullConsumer<rmq::AllocateAveragely, rmq::RemoteOffsetStore, Transport>;

/// Sends `n` messages "<label> i" round robin over the topic's queues; returns the results.
std::vector<rmq::SendResult> produce(const std::string& topic, int n, const std::string& label) {
    rmq::Producer<Transport> producer(Transport{rmq_rc::config()},
                                      rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg_lite")});
    producer.start();
    std::vector<rmq::SendResult> out;
    for (int i = 0; i < n; ++i) {
        auto r = producer.send(rmq::Message(topic, "TagA", fmt::format("{} {}", label, i)));
        REQUIRE(r.status == rmq::SendStatus::SendOk);
        out.push_back(r);
    }
    producer.shutdown();
    return out;
}

rmq::LitePullConfig config(const std::string& group, const std::string& instance) {
    rmq::LitePullConfig c;
    c.consumer_group = group;
    c.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    c.instance_name = instance;
    c.rebalance_interval = 2000;
    c.broker_suspend_max_time_millis = 2000;
    c.consumer_timeout_millis_when_suspend = 5000;
    c.auto_commit_interval_millis = 1000;
    return c;
}

struct Polled {
    std::mutex mutex;
    std::vector<rmq::MessageExt> msgs;

    std::size_t size() {
        const std::lock_guard lock(mutex);
        return msgs.size();
    }
};

/// Polls on a thread of its own into `into` until stopped.
std::thread poller(LitePull& consumer, Polled& into, std::atomic<bool>& stop) {
    return std::thread([&consumer, &into, &stop] {
        while (!stop.load()) {
            auto batch = consumer.poll(std::chrono::milliseconds(200));
            const std::lock_guard lock(into.mutex);
            into.msgs.insert(into.msgs.end(), batch.begin(), batch.end());
        }
    });
}

std::set<rmq::MessageQueue> queues_of(const std::vector<rmq::MessageExt>& msgs) {
    std::set<rmq::MessageQueue> out;
    for (const auto& m : msgs) {
        out.insert(rmq::MessageQueue{m.topic(), m.broker_name(), m.queue_id()});
    }
    return out;
}

}  // namespace

TEST_CASE("lite pull subscribe: two members poll every message once, no queue by both, offsets committed",
          "[realcluster][lite_pull]") {
    const auto topic = rmq_rc::unique("lite_sub");
    const auto group = rmq_rc::unique("cg_lite_sub");
    rmq_rc::create_topic(topic, 4);
    const auto sent = produce(topic, 400, "m");

    LitePull a{Transport{rmq_rc::config()}, config(group, "lite_a")};
    LitePull b{Transport{rmq_rc::config()}, config(group, "lite_b")};
    a.subscribe(topic);
    b.subscribe(topic);
    a.start();
    b.start();
    // Both members own their half before anything is polled, so no queue changes hands under the pollers.
    REQUIRE(rmq_rc::wait_until([&] { return a.assignment().size() == 4 && b.assignment().size() == 4; },
                               std::chrono::seconds(60)));
    Polled got_a;
    Polled got_b;
    std::atomic<bool> stop{false};
    auto ta = poller(a, got_a, stop);
    auto tb = poller(b, got_b, stop);
    const bool all = rmq_rc::wait_until([&] { return got_a.size() + got_b.size() >= sent.size(); },
                                        std::chrono::seconds(120));
    stop.store(true);
    ta.join();
    tb.join();
    REQUIRE(all);
    std::set<std::string> bodies;
    for (const auto* got : {&got_a, &got_b}) {
        for (const auto& m : got->msgs) {
            bodies.insert(std::string(m.body()));
        }
    }
    CHECK(bodies.size() == sent.size());
    CHECK(got_a.msgs.size() + got_b.msgs.size() == sent.size());
    const auto qa = queues_of(got_a.msgs);
    const auto qb = queues_of(got_b.msgs);
    std::vector<rmq::MessageQueue> common;
    std::set_intersection(qa.begin(), qa.end(), qb.begin(), qb.end(), std::back_inserter(common));
    CHECK(common.empty());
    a.shutdown();  // auto-commit: what was polled is committed
    b.shutdown();

    std::map<rmq::MessageQueue, std::int64_t> max_offset;
    for (const auto& r : sent) {
        max_offset[r.message_queue] = std::max(max_offset[r.message_queue], r.queue_offset + 1);
    }
    LitePull check{Transport{rmq_rc::config()}, config(group, "lite_check")};
    std::vector<rmq::MessageQueue> all_queues;
    for (const auto& [mq, offset] : max_offset) {
        all_queues.push_back(mq);
    }
    check.assign(all_queues);
    check.start();
    // Queues taken on: routes known and offsets read.
    REQUIRE(rmq_rc::wait_until([&] { return check.assignment().size() == all_queues.size(); },
                               std::chrono::seconds(60)));
    for (const auto& [mq, offset] : max_offset) {
        INFO(fmt::format("{}", mq));
        CHECK(check.committed(mq) == offset);
    }
}

TEST_CASE("lite pull assign: seek, offset_for_timestamp, commit_sync, and a new consumer continues",
          "[realcluster][lite_pull]") {
    const auto topic = rmq_rc::unique("lite_assign");
    const auto group = rmq_rc::unique("cg_lite_assign");
    rmq_rc::create_topic(topic, 1);
    const auto sent = produce(topic, 40, "m");
    const rmq::MessageQueue mq = sent.front().message_queue;
    std::int64_t count = 0;
    for (const auto& r : sent) {
        count += r.message_queue == mq ? 1 : 0;
    }
    REQUIRE(count >= 4);

    auto cfg = config(group, "lite_assign");
    cfg.auto_commit = false;
    cfg.pull_batch_size = 2;  // poll_n(2) below is one batch
    LitePull consumer{Transport{rmq_rc::config()}, cfg};
    consumer.assign({mq});
    consumer.start();
    REQUIRE(rmq_rc::wait_until([&] { return consumer.assignment().size() == 1; }, std::chrono::seconds(60)));
    const auto poll_n = [&](std::size_t n) {
        std::vector<rmq::MessageExt> out;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (out.size() < n && std::chrono::steady_clock::now() < deadline) {
            for (auto& m : consumer.poll(std::chrono::milliseconds(500))) {
                out.push_back(std::move(m));
            }
        }
        return out;
    };
    const auto all = poll_n(static_cast<std::size_t>(count));
    REQUIRE(all.size() == static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < all.size(); ++i) {
        CHECK(all[i].queue_offset() == static_cast<std::int64_t>(i));
    }
    // The first message's store time finds its offset (or an earlier one stored the same millisecond).
    CHECK(consumer.offset_for_timestamp(mq, all.front().store_timestamp()) == 0);
    // Past the last message: 5.x answers the max offset, 4.9.x the last message's offset (its
    // getOffsetInQueueByTime).
    CHECK(consumer.offset_for_timestamp(mq, all.back().store_timestamp() + 60000) ==
          (rmq_rc::rocketmq_4x() ? count - 1 : count));

    consumer.seek(mq, 2);
    const auto again = poll_n(static_cast<std::size_t>(count - 2));
    REQUIRE(!again.empty());
    CHECK(again.front().queue_offset() == 2);
    consumer.seek_to_begin(mq);
    const auto first_two = poll_n(2);
    REQUIRE(first_two.size() == 2);
    CHECK(first_two.front().queue_offset() == 0);
    consumer.commit_sync();
    consumer.shutdown();

    LitePull next{Transport{rmq_rc::config()}, cfg};
    next.assign({mq});
    next.start();
    REQUIRE(rmq_rc::wait_until([&] { return next.assignment().size() == 1; }, std::chrono::seconds(60)));
    CHECK(next.committed(mq) == 2);
    std::vector<rmq::MessageExt> rest;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (rest.empty() && std::chrono::steady_clock::now() < deadline) {
        rest = next.poll(std::chrono::milliseconds(500));
    }
    REQUIRE(!rest.empty());
    CHECK(rest.front().queue_offset() == 2);
}

TEST_CASE("lite pull: a topic queue change listener hears of queues added by updateTopic",
          "[realcluster][lite_pull]") {
    const auto topic = rmq_rc::unique("lite_watch");
    rmq_rc::create_topic(topic, 2);
    auto cfg = config(rmq_rc::unique("cg_lite_watch"), "lite_watch");
    cfg.topic_metadata_check_interval_millis = 500;
    LitePull consumer{Transport{rmq_rc::config()}, cfg};
    std::mutex mutex;
    std::vector<std::vector<rmq::MessageQueue>> heard;
    consumer.register_topic_message_queue_change_listener(
        topic, [&](const std::string&, const std::vector<rmq::MessageQueue>& queues) {
            const std::lock_guard lock(mutex);
            heard.push_back(queues);
        });
    const auto before = Transport{rmq_rc::config()}.topic_route(topic).read_queues;
    consumer.assign(before);
    consumer.start();
    rmq_rc::create_topic(topic, 3);  // 2 -> 3 queues on each broker
    const auto told = [&] {
        const std::lock_guard lock(mutex);
        return heard;
    };
    const std::size_t after = before.size() / 2 * 3;
    // one call, or two when a check fell between the two brokers' updates: never the unchanged queues
    REQUIRE(rmq_rc::wait_until([&] { return !told().empty() && told().back().size() == after; },
                               std::chrono::seconds(60)));
    consumer.shutdown();
    const auto calls = told();
    CHECK(calls.size() <= 2);
    for (const auto& queues : calls) {
        CHECK(queues.size() > before.size());
    }
}
