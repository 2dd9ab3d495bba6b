// Orderly POP (rmq::SimpleConsumerConfig::fifo) against Apache RocketMQ 5.3.3: two members of one group
// receive each queue's messages in queue order, never a message of a queue while a batch of it is in flight
// elsewhere; a batch not acked comes back in order with reconsume times 1. On 4.x it only warns.

#include <chrono>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cluster.hpp"
#include "round_trip.hpp"

#include <catch2/catch.hpp>

#include <rmq/pop.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/remoting.hpp>

namespace pop_order_rc_test {

namespace {

using namespace std::chrono_literals;
using Consumer = rmq::SimpleConsumer<rmq::RemotingTransport>;
using QueueKey = std::tuple<std::string, std::int32_t>;  // broker, queue

bool pop_cluster() {
    if (rmq_rc::rocketmq_4x()) {
        WARN("Apache RocketMQ " << rmq_rc::env("RMQ_VERSION") << " has no POP: this 5.x test did NOT run");
        return false;
    }
    return true;
}

rmq::SimpleConsumerConfig fifo_config(const std::string& group) {
    return rmq::SimpleConsumerConfig{.consumer_group = group, .await_duration = 1000, .fifo = true};
}

QueueKey queue_of(const rmq::MessageExt& m) {
    return {m.broker_name(), m.queue_id()};
}

}  // namespace

TEST_CASE("pop: two fifo members of a group receive each queue in order", "[realcluster][pop]") {
    if (!pop_cluster()) {
        return;
    }
    const std::string topic = rmq_rc::unique("RcPopFifo");
    rmq_rc::create_topic(topic, 1);
    rmq::RemotingTransport transport{rmq_rc::config()};
    constexpr int n = 30;
    (void)rmq_rc::produce(transport, topic, n, rmq_rc::unique("pg"), "fifo");
    const std::string group = rmq_rc::unique("popfifo");
    Consumer a(transport, fifo_config(group));
    Consumer b(transport, fifo_config(group));
    a.subscribe(topic);
    b.subscribe(topic);
    std::map<QueueKey, std::vector<std::int64_t>> offsets;  // per queue, in the order received by a and b
    int received = 0;
    const bool all = rmq_rc::wait_until(
        [&] {
            for (auto* c : {&a, &b}) {
                for (const auto& m : c->receive(4, 20s)) {
                    CHECK(rmq::PopReceipt::of(m).order());
                    CHECK(m.reconsume_times() == 0);
                    offsets[queue_of(m)].push_back(m.queue_offset());
                    ++received;
                    c->ack(m);
                }
            }
            return received >= n;
        },
        90s);
    CHECK(all);
    CHECK(received == n);
    for (const auto& [queue, list] : offsets) {
        INFO("broker " << std::get<0>(queue) << " queue " << std::get<1>(queue));
        for (std::size_t i = 1; i < list.size(); ++i) {
            CHECK(list[i] == list[i - 1] + 1);  // in queue order, none twice, none skipped
        }
    }
}

TEST_CASE("pop: a fifo batch not acked blocks its queue, then comes back in order", "[realcluster][pop]") {
    if (!pop_cluster()) {
        return;
    }
    const std::string topic = rmq_rc::unique("RcPopFifoRedeliver");
    rmq_rc::create_topic(topic, 1);
    rmq::RemotingTransport transport{rmq_rc::config()};
    (void)rmq_rc::produce(transport, topic, 6, rmq_rc::unique("pg"), "fifo");
    const std::string group = rmq_rc::unique("popfifo");
    Consumer a(transport, fifo_config(group));
    Consumer b(transport, fifo_config(group));
    a.subscribe(topic);
    b.subscribe(topic);
    std::vector<rmq::MessageExt> batch;
    REQUIRE(rmq_rc::wait_until(
        [&] {
            batch = a.receive(32, 8s);
            return !batch.empty();
        },
        60s));
    const auto popped = std::chrono::steady_clock::now();
    const QueueKey queue = queue_of(batch.front());
    std::vector<std::string> first;
    for (const auto& m : batch) {
        CHECK(queue_of(m) == queue);
        first.push_back(m.body());
    }
    // Not acked: while invisible, the other member gets nothing of that queue (the other broker's queue may
    // answer; ack those).
    std::vector<rmq::MessageExt> again;
    while (std::chrono::steady_clock::now() - popped < 60s && again.empty()) {
        for (const auto& m : b.receive(32, 30s)) {
            if (queue_of(m) != queue) {
                b.ack(m);
                continue;
            }
            again.push_back(m);
        }
        if (again.empty()) {
            continue;
        }
        CHECK(std::chrono::steady_clock::now() - popped >= 7s);  // not before the invisible time
    }
    REQUIRE(again.size() >= first.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
        CHECK(again[i].body() == first[i]);
        CHECK(again[i].reconsume_times() == 1);
    }
    for (const auto& m : again) {
        b.ack(m);
    }
}

}  // namespace pop_order_rc_test
