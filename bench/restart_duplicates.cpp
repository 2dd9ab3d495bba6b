// Duplicates and losses around a broker restart under load, on a real cluster (tools/rocketmq.sh): two push
// consumers of one group, a producer at a steady rate, broker-a killed with kill -9 and started again. Counts
// the messages consumed more than once (duplicates) and those sent but never consumed (lost, must be 0).
//
//   RMQ_CLUSTER_DIR=$(tools/rocketmq.sh start) && set -a && . "$RMQ_CLUSTER_DIR/cluster.env" && set +a
//   build/dev/bench/rmq_bench_restart_duplicates [before_s=15] [outage_s=10] [after_s=40] [rate_per_s=200]
//
// Environment: RMQ_NAMESRV (from cluster.env), RMQ_CLUSTER_DIR, RMQ_ROCKETMQ_SH (default tools/rocketmq.sh).
// Exit status 1 when a message was lost.

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <rmq/remoting.hpp>

namespace {

using Transport = rmq::RemotingTransport;
using Clock = std::chrono::steady_clock;

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

void rocketmq_sh(const std::string& args) {
    const auto dir = env_or("RMQ_CLUSTER_DIR", "");
    const auto cmd = fmt::format("'{}' {}{} >&2",
                                 env_or("RMQ_ROCKETMQ_SH", "tools/rocketmq.sh"),
                                 args,
                                 dir.empty() ? "" : fmt::format(" --dir '{}'", dir));
    if (std::system(cmd.c_str()) != 0) {
        throw std::runtime_error("failed: " + cmd);
    }
}

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Counts {
    std::mutex mutex;
    std::map<std::string, int> consumed;  // msg id -> times consumed (both members)
    std::vector<double> duplicate_at;     // seconds since start of each repeated delivery
};

}  // namespace

int main(int argc, char** argv) {
    const auto arg = [&](int i, int fallback) {
        return argc > i ? std::atoi(argv[i]) : fallback;
    };
    const int before_s = arg(1, 15);
    const int outage_s = arg(2, 10);
    const int after_s = arg(3, 40);
    const int rate = arg(4, 200);
    const auto stamp = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count() %
                       100000000;
    const std::string topic = fmt::format("RestartDup_{}", stamp);
    const std::string group = fmt::format("rdg_{}", stamp);
    rmq::RemotingConfig rc;
    rc.namesrv_addr = env_or("RMQ_NAMESRV", "127.0.0.1:9876");
    rocketmq_sh(fmt::format("create-topic {} 4", topic));

    const auto t0 = Clock::now();
    Counts counts;
    std::vector<std::unique_ptr<rmq::PushConsumer<Transport>>> consumers;
    for (const char* name : {"m1", "m2"}) {
        rmq::ConsumerConfig cfg{.consumer_group = group,
                                .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
        cfg.instance_name = name;
        auto c = std::make_unique<rmq::PushConsumer<Transport>>(Transport{rc}, cfg);
        c->subscribe(topic, "*");
        c->register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
            const std::lock_guard lock(counts.mutex);
            for (const auto& m : msgs) {
                if (++counts.consumed[m.msg_id()] == 2) {
                    counts.duplicate_at.push_back(since(t0));
                }
            }
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
        c->start();
        consumers.push_back(std::move(c));
    }

    std::mutex sent_mutex;
    std::set<std::string> sent;
    std::atomic<bool> producing{true};
    std::atomic<int> send_failures{0};
    std::thread producer_thread([&] {
        rmq::Producer<Transport> producer(
            Transport{rc}, rmq::ProducerConfig{.producer_group = fmt::format("rdp_{}", stamp)});
        producer.start();
        const auto period = std::chrono::microseconds(1000000 / std::max(rate, 1));
        auto next = Clock::now();
        for (int i = 0; producing.load(); ++i) {
            try {
                const auto r = producer.send(rmq::Message(topic, "T", fmt::format("m{}", i)));
                const std::lock_guard lock(sent_mutex);
                sent.insert(r.msg_id);
            } catch (const rmq::Error&) {
                ++send_failures;  // not stored: not expected
            }
            next += period;
            std::this_thread::sleep_until(next);
        }
        producer.shutdown();
    });

    std::this_thread::sleep_for(std::chrono::seconds(before_s));
    fmt::print("{:6.1f}s kill -9 broker-a\n", since(t0));
    rocketmq_sh("kill-broker broker-a");
    std::this_thread::sleep_for(std::chrono::seconds(outage_s));
    fmt::print("{:6.1f}s start broker-a\n", since(t0));
    rocketmq_sh("start-broker broker-a");
    fmt::print("{:6.1f}s broker-a started\n", since(t0));
    std::this_thread::sleep_for(std::chrono::seconds(after_s));
    producing.store(false);
    producer_thread.join();
    fmt::print("{:6.1f}s producer stopped\n", since(t0));

    const auto all_consumed = [&] {
        const std::lock_guard a(sent_mutex);
        const std::lock_guard b(counts.mutex);
        for (const auto& id : sent) {
            if (!counts.consumed.contains(id)) {
                return false;
            }
        }
        return true;
    };
    const auto deadline = Clock::now() + std::chrono::seconds(180);
    while (!all_consumed() && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    std::this_thread::sleep_for(std::chrono::seconds(5));  // late redeliveries still count
    for (auto& c : consumers) {
        c->shutdown();
    }

    const std::lock_guard a(sent_mutex);
    const std::lock_guard b(counts.mutex);
    long duplicates = 0;
    long lost = 0;
    for (const auto& [id, n] : counts.consumed) {
        duplicates += n - 1;
    }
    for (const auto& id : sent) {
        lost += counts.consumed.contains(id) ? 0 : 1;
    }
    std::map<int, int> per_10s;
    for (const double t : counts.duplicate_at) {
        ++per_10s[static_cast<int>(t / 10) * 10];
    }
    std::string histogram;
    for (const auto& [t, n] : per_10s) {
        histogram += fmt::format(" {}s:{}", t, n);
    }
    fmt::print("sent {} (send failures {}), consumed distinct {}, duplicates {}, lost {}\n",
               sent.size(),
               send_failures.load(),
               counts.consumed.size(),
               duplicates,
               lost);
    fmt::print("first repeat deliveries per 10 s window:{}\n", histogram.empty() ? " none" : histogram);
    return lost == 0 ? 0 : 1;
}
