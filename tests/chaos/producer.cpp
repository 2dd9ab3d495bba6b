// rmq_chaos_producer NAMESRV TOPIC BROKERS QUEUES KEYS RATE DURATION_S OUT_DIR: the chaos suite's keyed
// producer. Key i (k0..k{KEYS-1}) always goes to queue i % (BROKERS x QUEUES) of the fixed list broker x
// queue id (not of the current route: a key must keep its queue while its broker is down, or its order across
// the outage would be the producer's doing). Keys take turns, RATE messages per second in all, for DURATION_S
// seconds or until SIGTERM. Each message carries its key in KEYS and `key seq` in the body; seq counts per
// key and also advances past a failed send (a gap, never a reuse). Writes OUT_DIR/sent.tsv
// (tests/chaos/logs.hpp) and send_failures.txt.

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

std::atomic<bool> stop{false};

extern "C" void on_signal(int /*signal*/) {
    stop.store(true);
}

std::int64_t now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t begin = 0;
    for (std::size_t end = 0; (end = s.find(sep, begin)) != std::string::npos; begin = end + 1) {
        out.push_back(s.substr(begin, end - begin));
    }
    out.push_back(s.substr(begin));
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 9) {
        fmt::print(
            stderr,
            "usage: rmq_chaos_producer NAMESRV TOPIC BROKERS(a,b) QUEUES KEYS RATE DURATION_S OUT_DIR\n");
        return 2;
    }
    const std::string topic = argv[2];
    const auto brokers = split(argv[3], ',');
    const int queues = std::atoi(argv[4]);
    const int keys = std::atoi(argv[5]);
    const int rate = std::max(std::atoi(argv[6]), 1);
    const int duration_s = std::atoi(argv[7]);
    const std::string out_dir = argv[8];
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);

    std::vector<rmq::MessageQueue> mqs;
    for (const auto& b : brokers) {
        for (int q = 0; q < queues; ++q) {
            mqs.push_back(rmq::MessageQueue{.topic = topic, .broker_name = b, .queue_id = q});
        }
    }
    std::FILE* sent = std::fopen((out_dir + "/sent.tsv").c_str(), "w");
    if (sent == nullptr) {
        fmt::print(stderr, "cannot write {}/sent.tsv\n", out_dir);
        return 2;
    }
    rmq::RemotingConfig rc;
    rc.namesrv_addr = argv[1];
    rmq::Producer<rmq::RemotingTransport> producer(
        rmq::RemotingTransport{rc}, rmq::ProducerConfig{.producer_group = topic + "_producer"});
    producer.start();

    std::vector<std::int64_t> next_seq(static_cast<std::size_t>(keys), 0);
    long failures = 0;
    long ok = 0;
    const auto period = std::chrono::microseconds(1'000'000 / rate);
    const auto t0 = std::chrono::steady_clock::now();
    auto next = t0;
    for (long i = 0; !stop.load() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(duration_s);
         ++i) {
        const auto k = static_cast<std::size_t>(i % keys);
        const std::string key = fmt::format("k{}", k);
        const std::int64_t seq = next_seq[k]++;
        try {
            const rmq::Message msg(topic, "chaos", key, fmt::format("{} {}", key, seq));
            const auto r = producer.send(msg, mqs[k % mqs.size()]);
            if (r.status == rmq::SendStatus::SendOk) {
                fmt::print(sent,
                           "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                           key,
                           seq,
                           r.msg_id,
                           r.message_queue.broker_name,
                           r.message_queue.queue_id,
                           r.queue_offset,
                           now_us());
                std::fflush(sent);
                ++ok;
            } else {
                ++failures;
            }
        } catch (const std::exception& e) {
            ++failures;
            if (failures % 100 == 1) {
                fmt::print(stderr, "send failed ({} so far): {}\n", failures, e.what());
            }
        }
        next += period;
        std::this_thread::sleep_until(next);
    }
    producer.shutdown();
    std::fclose(sent);
    if (std::FILE* f = std::fopen((out_dir + "/send_failures.txt").c_str(), "w"); f != nullptr) {
        fmt::print(f, "{}\n", failures);
        std::fclose(f);
    }
    fmt::print(stderr, "producer: {} sent, {} failed\n", ok, failures);
    return 0;
}
