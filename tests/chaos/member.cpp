// rmq_chaos_member POLICY NAMESRV TOPIC GROUP MEMBER DIR: one consumer member of the chaos suite, POLICY
// concurrently | orderly | key_orderly (rmq::Concurrently / rmq::Orderly / rmq::KeyOrderly,
// AllocateAveragely, RemoteOffsetStore, RemotingTransport). The listener appends one line per message to
// DIR/MEMBER.log and flushes it before returning success (tests/chaos/logs.hpp); its assignment (the queues
// of TOPIC it owns) is sampled every 50 ms and each change appended to DIR/MEMBER.owns. On SIGTERM or SIGINT
// it shuts the consumer down and writes DIR/MEMBER.shutdown (requested and done times); rmq's log lines go to
// stderr.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <rmq/consumer.hpp>
#include <rmq/order/concurrently.hpp>
#include <rmq/order/key_orderly.hpp>
#include <rmq/order/orderly.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

std::int64_t now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// The member's log: one line per handled message, flushed before the listener returns.
class Log {
public:
    Log(std::string member, const std::string& path)
        : member_(std::move(member))
        , file_(std::fopen(path.c_str(), "a")) {
        if (file_ == nullptr) {
            throw std::runtime_error("cannot write " + path);
        }
    }

    Log(const Log&) = delete;
    Log& operator=(const Log&) = delete;

    ~Log() { std::fclose(file_); }

    void record(std::span<const rmq::MessageExt> msgs) {
        const std::lock_guard lock(mutex_);
        for (const auto& m : msgs) {
            const std::string body = m.body();
            const auto space = body.find(' ');
            fmt::print(file_,
                       "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                       member_,
                       body.substr(0, space),
                       space == std::string::npos ? "-1" : body.substr(space + 1),
                       m.msg_id(),
                       m.broker_name(),
                       m.queue_id(),
                       m.queue_offset(),
                       now_us());
        }
        std::fflush(file_);
    }

private:
    std::string member_;
    std::FILE* file_;
    std::mutex mutex_;
};

/// Appends "time_us<TAB>broker:queue,broker:queue,..." to `path` whenever the consumer's assignment of
/// `topic` changed, sampling every 50 ms until `stop`; a last empty line when it ends (shut down).
template <class Consumer>
void record_ownership(const Consumer& consumer,
                      const std::string& topic,
                      const std::string& path,
                      const std::atomic<bool>& stop) {
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (f == nullptr) {
        return;
    }
    std::string last = "?";
    const auto write = [&](const std::string& owned) {
        if (owned != last) {
            fmt::print(f, "{}\t{}\n", now_us(), owned);
            std::fflush(f);
            last = owned;
        }
    };
    while (!stop.load()) {
        std::vector<std::string> queues;
        for (const auto& mq : consumer.assigned_queues()) {
            if (mq.topic == topic) {
                queues.push_back(fmt::format("{}:{}", mq.broker_name, mq.queue_id));
            }
        }
        std::sort(queues.begin(), queues.end());
        write(fmt::format("{}", fmt::join(queues, ",")));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    write("");
    std::fclose(f);
}

template <class Policy>
int run(const std::string& namesrv,
        const std::string& topic,
        const std::string& group,
        const std::string& member,
        const std::string& dir,
        const sigset_t& signals) {
    using Consumer =
        rmq::Consumer<Policy, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::RemotingTransport>;
    Log log(member, dir + "/" + member + ".log");
    rmq::RemotingConfig rc;
    rc.namesrv_addr = namesrv;
    rmq::ConsumerConfig cfg{.consumer_group = group,
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.instance_name = member;
    cfg.rebalance_interval = 2000;  // hand queues over within seconds of a membership change
    cfg.await_termination_millis_when_shutdown = 10000;
    Consumer consumer(rmq::RemotingTransport{rc}, cfg);
    consumer.subscribe(topic, "*");
    if constexpr (std::is_same_v<Policy, rmq::Concurrently>) {
        consumer.register_listener(
            [&log](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                log.record(msgs);
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
    } else {
        consumer.register_listener(
            [&log](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
                log.record(msgs);
                return rmq::ConsumeOrderlyStatus::Success;
            });
    }
    consumer.start();
    std::atomic<bool> stop_sampling{false};
    std::thread sampler(
        [&] { record_ownership(consumer, topic, dir + "/" + member + ".owns", stop_sampling); });
    int sig = 0;
    sigwait(&signals, &sig);
    const std::int64_t requested = now_us();
    stop_sampling.store(true);  // from the shutdown request on, this member is leaving: not an owner
    sampler.join();
    consumer.shutdown();
    const std::int64_t done = now_us();
    if (std::FILE* f = std::fopen((dir + "/" + member + ".shutdown").c_str(), "w"); f != nullptr) {
        fmt::print(f, "{}\t{}\t{}\n", member, requested, done);
        std::fclose(f);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 7) {
        fmt::print(
            stderr,
            "usage: rmq_chaos_member concurrently|orderly|key_orderly NAMESRV TOPIC GROUP MEMBER DIR\n");
        return 2;
    }
    // every thread the consumer starts inherits this mask, so SIGTERM reaches only sigwait below
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    const std::string policy = argv[1];
    try {
        if (policy == "concurrently") {
            return run<rmq::Concurrently>(argv[2], argv[3], argv[4], argv[5], argv[6], signals);
        }
        if (policy == "orderly") {
            return run<rmq::Orderly>(argv[2], argv[3], argv[4], argv[5], argv[6], signals);
        }
        if (policy == "key_orderly") {
            return run<rmq::KeyOrderly>(argv[2], argv[3], argv[4], argv[5], argv[6], signals);
        }
    } catch (const std::exception& e) {
        fmt::print(stderr, "rmq_chaos_member: {}\n", e.what());
        return 1;
    }
    fmt::print(stderr, "rmq_chaos_member: unknown policy {}\n", policy);
    return 2;
}
