// 5.x batch consume queues: a Java batch sent to a BatchCQ topic is stored as one inner-batch record
// (INNER_BATCH + NEED_UNWRAP) that rmq's consumer unwraps into its messages, as Java's PullAPIWrapper does.

#include <chrono>
#include <cstdint>
#include <map>
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
#include <rmq/remoting/message_codec.hpp>
#include <rmq/transport/remoting.hpp>

TEST_CASE("a Java batch to a BatchCQ topic reaches the push consumer as its messages, offsets one apart",
          "[realcluster][batch_cq]") {
    const std::string topic = rmq_rc::unique("RcBatchCq");
    if (rmq_rc::rocketmq_4x()) {
        WARN("RocketMQ 4.x has no BatchCQ topics: the batches go to a plain topic, no inner batch to unwrap");
        rmq_rc::create_topic(topic, 1);
    } else {
        rmq_rc::mqadmin(fmt::format("updateTopic -c {} -t {} -r 1 -w 1 -a +queue.type=BatchCQ",
                                    rmq_rc::env("RMQ_CLUSTER_NAME"),
                                    topic));
    }
    constexpr int n = 40;
    constexpr int batch = 8;
    const auto sent = rmq_rc::peer(
        fmt::format("RefBatchProducer {} {} {} {} broker-a 0", rmq_rc::namesrv(), topic, n, batch));
    REQUIRE(sent.size() == n / batch);

    struct Seen {
        std::string body;
        std::int64_t offset;
        std::int32_t sys_flag;
        std::string id;
        std::string keys;
    };

    std::mutex mutex;
    std::vector<Seen> seen;
    rmq_rc::Waiter waiter;
    auto cfg = rmq_rc::consumer_config();
    rmq::PushConsumer<rmq::RemotingTransport> consumer{rmq::RemotingTransport{rmq_rc::config()}, cfg};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        {
            const std::lock_guard lock(mutex);
            for (const auto& m : msgs) {
                seen.push_back({m.body(), m.queue_offset(), m.sys_flag(), m.msg_id(), std::string(m.keys())});
            }
        }
        waiter.notify();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    CHECK(waiter.wait(
        [&] {
            const std::lock_guard lock(mutex);
            return seen.size() >= n;
        },
        std::chrono::seconds(120)));
    consumer.shutdown();

    const std::lock_guard lock(mutex);
    REQUIRE(seen.size() == n);  // a batch delivered whole would be one message of n / batch
    std::map<std::int64_t, std::string> by_offset;
    std::set<std::string> ids;
    bool unwrapped = false;
    for (const auto& s : seen) {
        by_offset.emplace(s.offset, s.body);
        ids.insert(s.id);
        unwrapped = unwrapped || (s.sys_flag & rmq::remoting::message_sys_flag::inner_batch) != 0;
        CHECK(s.keys == "k" + s.body.substr(6));
    }
    CHECK(ids.size() == n);
    REQUIRE(by_offset.size() == n);
    for (int i = 0; i < n; ++i) {
        INFO(i);
        CHECK(by_offset[i] == fmt::format("batch-{}", i));
    }
    CHECK(unwrapped == !rmq_rc::rocketmq_4x());  // 5.x stored the batches as inner-batch records
}
