// rmq_bench_key_orderly: rmq::KeyOrderly against rmq::Orderly with a slow listener (docs/benchmarks.md).
//
// A listener that sleeps --sleep-ms per call (a database write), --queues queues, --keys keys (key k always
// to queue k % queues, seq-major, so every queue holds many keys), --threads consume threads
// (consume_thread_min). Each policy consumes a fresh embedded broker's backlog for --seconds after a
// one-second warm-up; per-key order violations (a key's message that is not the next of that key) are counted
// over the whole run and must be 0. --reps runs interleave the two policies. One JSON line per run on
// stdout (tools/bench.sh --key-orderly turns them into the rows of bench/results/latest.md).

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "support.hpp"

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/order/key_orderly.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

using namespace rmq_bench;  // NOLINT(google-build-using-namespace): the harness of every bench program

constexpr std::string_view topic = "KeyBench";

struct Options {
    int queues = 8;
    int keys = 400;
    int threads = 64;
    int sleep_ms = 2;
    double seconds = 10;
    int reps = 1;
};

/// Key and sequence of a message: KEYS "k<key>", body "<seq>".
struct Tracker {
    explicit Tracker(int keys)
        : last(static_cast<std::size_t>(keys)) {
        for (auto& l : last) {
            l.store(-1);
        }
    }

    void see(const rmq::MessageExt& msg) {
        const auto key = msg.keys().substr(1);
        int k = 0;
        std::from_chars(key.data(), key.data() + key.size(), k);
        const int seq = std::stoi(msg.body());
        if (last[static_cast<std::size_t>(k)].exchange(seq) != seq - 1) {
            violations.fetch_add(1);
        }
        consumed.fetch_add(1);
    }

    std::vector<std::atomic<int>> last;
    std::atomic<std::int64_t> consumed{0};
    std::atomic<std::int64_t> violations{0};
};

void prefill(rmq::InProcessBroker& broker, const Options& o, std::int64_t messages) {
    auto tr = broker.connect();
    const std::int64_t per_key = messages / o.keys + 1;
    for (std::int64_t seq = 0; seq < per_key; ++seq) {
        for (int k = 0; k < o.keys; ++k) {
            rmq::Message msg(std::string(topic), "TagA", fmt::format("k{}", k), std::to_string(seq));
            (void)tr.send(msg, broker.queue(std::string(topic), k % o.queues));
        }
    }
}

template <class Order>
void run(const Options& o, std::string_view name, double expected_rate) {
    rmq::InProcessBroker broker;
    broker.create_topic(std::string(topic), o.queues);
    // Enough backlog for the warm-up and the window at 1.5x the expected rate: the consumer never runs dry.
    prefill(broker, o, static_cast<std::int64_t>(expected_rate * (o.seconds + 1) * 1.5) + o.keys);
    Tracker tracker(o.keys);
    rmq::ConsumerConfig config;
    config.consumer_group = fmt::format("bench_{}", name);
    config.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    config.consume_thread_min = config.consume_thread_max = o.threads;
    rmq::Consumer<Order, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport> consumer{
        broker.connect(), config};
    consumer.subscribe(std::string(topic), "*");
    const auto sleep = std::chrono::milliseconds(o.sleep_ms);
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        std::this_thread::sleep_for(sleep);
        for (const auto& m : msgs) {
            tracker.see(m);
        }
        return rmq::ConsumeOrderlyStatus::Success;
    });
    consumer.start();
    std::this_thread::sleep_for(std::chrono::seconds(1));  // warm-up: locks, first pulls, threads
    const std::int64_t c0 = tracker.consumed.load();
    const double cpu0 = cpu_seconds();
    const auto t0 = SteadyClock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
    const std::int64_t c1 = tracker.consumed.load();
    const double elapsed = seconds_since(t0);
    const double cpu = cpu_seconds() - cpu0;
    consumer.shutdown();
    fmt::print("{{\"mode\":\"key_orderly_bench\",\"policy\":\"{}\",\"queues\":{},\"keys\":{},\"threads\":{},"
               "\"sleep_ms\":{},\"seconds\":{:.3f},\"consumed\":{},\"msgs_per_s\":{:.1f},\"cpu_s\":{:.3f},"
               "\"order_violations\":{}}}\n",
               name,
               o.queues,
               o.keys,
               o.threads,
               o.sleep_ms,
               elapsed,
               c1 - c0,
               static_cast<double>(c1 - c0) / elapsed,
               cpu,
               tracker.violations.load());
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    Flags flags;
    flags.add("--queues", o.queues)
        .add("--keys", o.keys)
        .add("--threads", o.threads)
        .add("--sleep-ms", o.sleep_ms)
        .add("--seconds", o.seconds)
        .add("--reps", o.reps);
    try {
        flags.parse(argc, argv);
    } catch (const std::exception& e) {
        fmt::print(stderr, "rmq_bench_key_orderly: {}\n", e.what());
        return 2;
    }
    // Calls per second if every call slept exactly sleep_ms: one per queue (Orderly), one per thread
    // (KeyOrderly).
    const double per_call = 1000.0 / std::max(1, o.sleep_ms);
    for (int rep = 0; rep < o.reps; ++rep) {
        fmt::print(stderr, "rep {}/{}: rmq::Orderly\n", rep + 1, o.reps);
        run<rmq::Orderly>(o, "orderly", per_call * o.queues);
        fmt::print(stderr, "rep {}/{}: rmq::KeyOrderly\n", rep + 1, o.reps);
        run<rmq::KeyOrderly>(o, "key_orderly", per_call * std::min(o.threads, o.keys));
    }
    return 0;
}
