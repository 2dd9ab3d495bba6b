// rmq::KeyOrderly over Apache RocketMQ 5.3.3 (2 brokers x 4 queues): two members hand queues over under load
// (one joins, then the other leaves while the producer keeps sending) without a per-key order violation, and
// nothing is lost.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "cluster.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/order/key_orderly.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Transport = rmq::RemotingTransport;
using KeyConsumer = rmq::Consumer<rmq::KeyOrderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, Transport>;

constexpr int keys = 40;
constexpr int per_key = 50;

/// Per key, the sequence numbers in delivery order (both members), and calls of one key running at once.
struct KeyLog {
    std::mutex mutex;
    std::map<int, std::vector<int>> seqs;
    std::map<int, int> in_flight;
    std::map<std::string, int> calls_by_member;
    bool overlap = false;

    /// A message seen for the first time must be the next of its key (redeliveries may go back, never skip).
    int violations() {
        const std::lock_guard lock(mutex);
        int v = 0;
        for (const auto& [key, seen] : seqs) {
            int max_seen = -1;
            for (const int s : seen) {
                v += s > max_seen + 1 ? 1 : 0;
                max_seen = std::max(max_seen, s);
            }
        }
        return v;
    }

    bool complete() {
        const std::lock_guard lock(mutex);
        return seqs.size() == static_cast<std::size_t>(keys) &&
               std::all_of(seqs.begin(), seqs.end(), [](const auto& e) {
                   return *std::max_element(e.second.begin(), e.second.end()) == per_key - 1;
               });
    }

    int total() {
        const std::lock_guard lock(mutex);
        int n = 0;
        for (const auto& [key, seen] : seqs) {
            n += static_cast<int>(seen.size());
        }
        return n;
    }
};

int key_of(const rmq::MessageExt& m) {
    return std::stoi(std::string(rmq::FirstKey{}(m).substr(1)));  // "k<n>"
}

std::unique_ptr<KeyConsumer>
make_member(const std::string& topic, const std::string& group, const std::string& name, KeyLog& log) {
    rmq::ConsumerConfig cfg{.consumer_group = group,
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.rebalance_interval = 2000;
    cfg.instance_name = name;
    auto c = std::make_unique<KeyConsumer>(Transport{rmq_rc::config()}, cfg);
    c->subscribe(topic, "*");
    c->register_listener([&log, name](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        const int key = key_of(msgs.front());
        {
            const std::lock_guard lock(log.mutex);
            log.overlap = log.overlap || ++log.in_flight[key] > 1;
            ++log.calls_by_member[name];
            for (const auto& m : msgs) {
                log.seqs[key_of(m)].push_back(std::stoi(m.body()));
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a slow write
        const std::lock_guard lock(log.mutex);
        --log.in_flight[key];
        return rmq::ConsumeOrderlyStatus::Success;
    });
    return c;
}

}  // namespace

TEST_CASE("key orderly: two members hand queues over under load, every key in order, nothing lost",
          "[realcluster][key_orderly]") {
    const std::string topic = rmq_rc::unique("RcKeyOrderly");
    rmq_rc::create_topic(topic, 4);
    const std::string group = rmq_rc::unique("kog");
    KeyLog log;
    auto a = make_member(topic, group, "consumerA", log);
    a->start();
    // The producer routes every key to one queue (a selector by key) and keeps sending during both
    // hand-overs.
    std::atomic<int> sent{0};
    std::atomic<bool> send_failed{false};
    std::thread producer_thread([&] {
        rmq::Producer<Transport> producer(Transport{rmq_rc::config()},
                                          rmq::ProducerConfig{.producer_group = rmq_rc::unique("kopg")});
        producer.start();
        auto by_key = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int key) {
            return mqs[static_cast<std::size_t>(key) % mqs.size()];
        };
        for (int seq = 0; seq < per_key; ++seq) {
            for (int key = 0; key < keys; ++key) {
                rmq::Message msg(topic, "TagA", fmt::format("k{} seq-{}", key, seq), std::to_string(seq));
                if (producer.send(msg, by_key, key).status != rmq::SendStatus::SendOk) {
                    send_failed = true;
                }
                ++sent;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(300));  // ~130 msg/s for ~15 s
        }
        producer.shutdown();
    });
    REQUIRE(rmq_rc::wait_until([&] { return log.total() >= keys * per_key / 5; }, std::chrono::seconds(120)));
    auto b = make_member(topic, group, "consumerB", log);
    b->start();  // join: about half the queues move to B
    const auto owned = [&](KeyConsumer& c) {
        const auto all = c.assigned_queues();
        return std::count_if(
            all.begin(), all.end(), [&](const rmq::MessageQueue& q) { return q.topic == topic; });
    };
    CHECK(rmq_rc::wait_until([&] { return owned(*a) > 0 && owned(*b) > 0 && owned(*a) + owned(*b) == 8; },
                             std::chrono::seconds(60)));
    REQUIRE(rmq_rc::wait_until([&] { return log.total() >= keys * per_key / 2; }, std::chrono::seconds(120)));
    a->shutdown();  // leave while the producer still sends: B takes every queue
    producer_thread.join();
    CHECK_FALSE(send_failed.load());
    REQUIRE(rmq_rc::wait_until([&] { return log.complete(); }, std::chrono::seconds(120)));
    b->shutdown();
    CHECK(log.violations() == 0);
    const std::lock_guard lock(log.mutex);
    CHECK_FALSE(log.overlap);
    CHECK(log.calls_by_member["consumerA"] > 0);
    CHECK(log.calls_by_member["consumerB"] > 0);
    for (const auto& [key, seen] : log.seqs) {  // nothing lost: every sequence number of every key arrived
        INFO("key k" << key);
        for (int s = 0; s < per_key; ++s) {
            CHECK(std::find(seen.begin(), seen.end(), s) != seen.end());
        }
    }
}
