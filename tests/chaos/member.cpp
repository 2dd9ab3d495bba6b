// rmq_chaos_member POLICY NAMESRV TOPIC GROUP MEMBER DIR [POP_INVISIBLE_MS]: one consumer member of the
// chaos suite, POLICY concurrently | orderly | key_orderly | pop (rmq::Concurrently / rmq::Orderly /
// rmq::KeyOrderly, AllocateAveragely, RemoteOffsetStore, RemotingTransport; pop: rmq::Concurrently in POP
// mode, ConsumerConfig::message_request_mode Pop, invisible for POP_INVISIBLE_MS, 20000 by default). The
// listener appends one line per message to DIR/MEMBER.log and flushes it before returning success
// (tests/chaos/logs.hpp); its assignment (the queues of TOPIC it owns) is sampled every 50 ms and each change
// appended to DIR/MEMBER.owns -- for pop to DIR/MEMBER.pops instead: its POP queues (broker:-1, the broker
// picks the queue) are shared by every member, not owned. On SIGTERM or SIGINT it shuts the consumer down and
// writes DIR/MEMBER.shutdown (requested and done times); rmq's log lines go to stderr.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
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

/// The run's names; `pop_invisible_ms` > 0 makes a POP member.
struct Args {
    std::string namesrv;
    std::string topic;
    std::string group;
    std::string member;
    std::string dir;
    std::int64_t pop_invisible_ms = 0;
};

rmq::ConsumerConfig config(const Args& a) {
    rmq::ConsumerConfig cfg{.consumer_group = a.group,
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.instance_name = a.member;
    cfg.rebalance_interval = 2000;  // hand queues over within seconds of a membership change
    cfg.await_termination_millis_when_shutdown = 10000;
    if (a.pop_invisible_ms > 0) {
        cfg.message_request_mode = rmq::MessageRequestMode::Pop;
        cfg.pop_invisible_time = a.pop_invisible_ms;
        cfg.broker_suspend_max_time_millis = 2000;  // shutdown() waits for the held POP requests
    }
    return cfg;
}

template <class Policy>
int run(const Args& a, const sigset_t& signals) {
    using Consumer =
        rmq::Consumer<Policy, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::RemotingTransport>;
    const std::string prefix = a.dir + "/" + a.member;
    Log log(a.member, prefix + ".log");
    rmq::RemotingConfig rc;
    rc.namesrv_addr = a.namesrv;
    Consumer consumer(rmq::RemotingTransport{rc}, config(a));
    consumer.subscribe(a.topic, "*");
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
    const std::string owns = prefix + (a.pop_invisible_ms > 0 ? ".pops" : ".owns");
    std::thread sampler([&] { record_ownership(consumer, a.topic, owns, stop_sampling); });
    int sig = 0;
    sigwait(&signals, &sig);
    const std::int64_t requested = now_us();
    stop_sampling.store(true);  // from the shutdown request on, this member is leaving: not an owner
    sampler.join();
    consumer.shutdown();
    const std::int64_t done = now_us();
    if (std::FILE* f = std::fopen((prefix + ".shutdown").c_str(), "w"); f != nullptr) {
        fmt::print(f, "{}\t{}\t{}\n", a.member, requested, done);
        std::fclose(f);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 7 && argc != 8) {
        fmt::print(
            stderr,
            "usage: rmq_chaos_member concurrently|orderly|key_orderly|pop NAMESRV TOPIC GROUP MEMBER DIR "
            "[POP_INVISIBLE_MS]\n");
        return 2;
    }
    // every thread the consumer starts inherits this mask, so SIGTERM reaches only sigwait below
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    const std::string policy = argv[1];
    Args a{.namesrv = argv[2], .topic = argv[3], .group = argv[4], .member = argv[5], .dir = argv[6]};
    try {
        if (policy == "concurrently") {
            return run<rmq::Concurrently>(a, signals);
        }
        if (policy == "orderly") {
            return run<rmq::Orderly>(a, signals);
        }
        if (policy == "key_orderly") {
            return run<rmq::KeyOrderly>(a, signals);
        }
        if (policy == "pop") {
            a.pop_invisible_ms = argc == 8 ? std::stoll(argv[7]) : 20000;
            if (a.pop_invisible_ms <= 0) {
                throw std::invalid_argument("POP_INVISIBLE_MS must be positive");
            }
            return run<rmq::Concurrently>(a, signals);
        }
    } catch (const std::exception& e) {
        fmt::print(stderr, "rmq_chaos_member: {}\n", e.what());
        return 1;
    }
    fmt::print(stderr, "rmq_chaos_member: unknown policy {}\n", policy);
    return 2;
}
