// rmq_bench_consume: in-process consumption benchmarks on the embedded broker (docs/benchmarks.md).
//
// One mode per process, so that every peak RSS belongs to one pipeline:
//   --mode limit          raw pull loop through InProcessTransport, no dispatch (the limit)
//   --mode concurrently   rmq::PushConsumer, 20 threads, no-op listener (--batch N, default 1; --trace: with
//                         enable_msg_trace, records to RMQ_SYS_TRACE_TOPIC on the same broker)
//   --mode orderly        rmq::OrderlyConsumer, 20 threads, no-op listener
//   --mode rebalance      two members consume 8 queues under a steady producer; a third joins, one leaves
//                         (--order concurrently|orderly, --rebalance-interval ms)
//   --mode backlog        peak RSS of a concurrent consumer over a prefilled backlog (default thresholds)
//   --mode lite_pull      rmq::LitePullConsumer (pull_batch_size 32, auto-commit), one thread polling
//   --mode pop            rmq::SimpleConsumer, --threads threads receiving 32 at a time and acking each
//                         (init mode Min; the embedded broker answers at once, no long polling)
//                         (lite_pull and pop are not in --suite: run them by hand beside --mode concurrently)
//   --mode idle           RSS of idle consumers: --consumers N PushConsumers (20 threads each), each its own
//                         group owning every queue of an empty topic, long-polling; reports kB per consumer
//   --suite               runs the modes above in fresh child processes (fork/exec of this binary),
//                         interleaved, --reps times; one JSON line per run on stdout, progress on stderr.
// Every mode prints one JSON object on stdout.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "support.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <rmq/consumer.hpp>
#include <rmq/lite_pull_consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/trace.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

using namespace rmq_bench;  // NOLINT(google-build-using-namespace): the harness of every bench program

constexpr std::string_view bench_topic = "BenchTopic";

struct Options {
    std::string mode;
    std::int64_t messages = 1'000'000;
    int queues = 8;
    int batch = 1;
    int threads = 20;
    int body_bytes = 128;
    std::string order = "concurrently";
    bool trace = false;  // enable_msg_trace on the consumer
    std::int64_t rebalance_interval = 1000;
    std::int64_t rate = 4000;          // rebalance: messages per second produced
    double max_seconds = 600;          // give up after this long
    int reps = 3;                      // suite
    std::int64_t backlog = 5'000'000;  // suite: messages of the backlog run
    bool skip_backlog = false;         // suite
    bool skip_rebalance = false;       // suite
    int consumers = 20;                // idle
};

std::string body_of(int bytes) {
    return std::string(static_cast<std::size_t>(bytes), 'x');
}

/// Fills `queues` queues round robin with `messages` messages of `body_bytes` through the Producer.
void prefill(rmq::InProcessBroker& broker, std::int64_t messages, int queues, int body_bytes) {
    const auto t0 = SteadyClock::now();
    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "bench_producer"});
    producer.start();
    const std::string body = body_of(body_bytes);
    std::vector<rmq::MessageQueue> mqs;
    for (int q = 0; q < queues; ++q) {
        mqs.push_back(broker.queue(std::string(bench_topic), q));
    }
    for (std::int64_t i = 0; i < messages; ++i) {
        (void)producer.send(rmq::Message(std::string(bench_topic), "TagA", body),
                            mqs[static_cast<std::size_t>(i % queues)]);
        if (messages >= 1'000'000 && i > 0 && i % 1'000'000 == 0) {
            fmt::print(stderr, "  prefill: {} messages ({:.1f} s)\n", i, seconds_since(t0));
        }
    }
    producer.shutdown();
}

/// Creates the bench topic on `broker` and fills it with --messages messages of --body bytes; the seconds it
/// took.
double create_and_prefill(rmq::InProcessBroker& broker, const Options& o) {
    broker.create_topic(bench_topic, o.queues);
    const auto t0 = SteadyClock::now();
    prefill(broker, o.messages, o.queues, o.body_bytes);
    return seconds_since(t0);
}

rmq::ConsumerConfig consumer_config(const Options& o, std::string group) {
    rmq::ConsumerConfig c{.consumer_group = std::move(group),
                          .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    c.consume_thread_min = o.threads;
    c.consume_thread_max = o.threads;
    c.consume_message_batch_max_size = o.batch;
    c.enable_msg_trace = o.trace;
    return c;
}

/// Result of one throughput phase.
struct Phase : Run {
    long peak_kb = 0;
    long base_kb = 0;
    long process_peak_kb = 0;
};

Phase phase_of(const Window& w, const Run& r) {
    Phase p;
    static_cast<Run&>(p) = r;
    p.peak_kb = w.mem.peak_kb();
    p.base_kb = w.mem.base_kb;
    p.process_peak_kb = maxrss_kb();
    return p;
}

void print_phase(const Options& o, std::string_view name, const Phase& p, double prefill_seconds) {
    fmt::print(
        "{{\"mode\":\"{}\",\"messages\":{},\"queues\":{},\"batch\":{},\"threads\":{},\"body_bytes\":{},{},"
        "\"peak_rss_mb\":{:.1f},\"base_rss_mb\":{:.1f},\"delta_rss_mb\":{:.1f},"
        "\"process_peak_rss_mb\":{:.1f},\"prefill_s\":{:.2f}}}\n",
        name,
        o.messages,
        o.queues,
        o.batch,
        o.threads,
        o.body_bytes,
        run_fields(p),
        mb(p.peak_kb),
        mb(p.base_kb),
        mb(p.peak_kb - p.base_kb),
        mb(p.process_peak_kb),
        prefill_seconds);
    std::fflush(stdout);
}

// ---- limit: raw pull loop -------------------------------------------------------------------------------

/// One pull in flight per queue, re-issued from the completion (as the consumer does), messages dropped:
/// what the embedded broker can deliver through InProcessTransport.
int run_limit(const Options& o) {
    rmq::InProcessBroker broker;
    const double prefill_s = create_and_prefill(broker, o);

    auto transport = broker.connect();
    const std::string group = "bench_limit_group";
    rmq::HeartbeatData hb;
    hb.client_id = "bench-limit@1";
    rmq::ConsumerData cd;
    cd.group_name = group;
    cd.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    cd.subscription_data_set.push_back(rmq::parse_subscription(bench_topic, "*"));
    hb.consumer_data_set.push_back(cd);
    transport.heartbeat(hb);

    std::atomic<std::int64_t> consumed{0};
    std::atomic<int> errors{0};
    Window w;
    w.start();

    for (int q = 0; q < o.queues; ++q) {
        auto loop = std::make_shared<PullLoop<rmq::InProcessTransport>>();
        loop->transport = &transport;
        loop->args.consumer_group = group;
        loop->args.mq = broker.queue(std::string(bench_topic), q);
        loop->args.max_msg_nums = 32;
        loop->args.sys_flag = rmq::pull_sys_flag::suspend;
        loop->args.suspend_timeout_millis = 15000;
        loop->consumed = &consumed;
        loop->errors = &errors;
        loop->end = broker.max_offset(loop->args.mq);
        PullLoop<rmq::InProcessTransport>::issue(loop);
    }
    Phase p = phase_of(w, w.wait(consumed, o.messages, o.max_seconds));
    broker.drain();
    if (errors.load() > 0) {
        fmt::print(stderr, "limit: {} pulls failed\n", errors.load());
        p.complete = false;
    }
    print_phase(o, "limit", p, prefill_s);
    return p.complete ? 0 : 1;
}

// ---- consumers ------------------------------------------------------------------------------------------

/// RMQ_BENCH_EXIT_AT_END=1 (for `perf record`): the process ends right after its figures are printed, so a
/// profile holds the measured window and not the consumer's shutdown or the prefilled broker's teardown.
void exit_if_profiling(int status) {
    if (std::getenv("RMQ_BENCH_EXIT_AT_END") != nullptr) {
        std::fflush(stdout);
        std::_Exit(status);
    }
}

template <class ConsumerT, class Status, class Report>
Phase drain_with(
    const Options& o, rmq::InProcessBroker& broker, std::int64_t target, Status ok, Report report) {
    std::atomic<std::int64_t> consumed{0};
    ConsumerT consumer{broker.connect(), consumer_config(o, "bench_group")};
    consumer.subscribe(bench_topic, "*");
    consumer.register_listener([&consumed, ok](std::span<const rmq::MessageExt> msgs, auto&) {
        consumed.fetch_add(static_cast<std::int64_t>(msgs.size()), std::memory_order_relaxed);
        return ok;
    });
    Window w;
    w.start();
    consumer.start();
    const Phase p = phase_of(w, w.wait(consumed, target, o.max_seconds));
    report(p);
    if (o.trace) {
        print_trace_stats(consumer.trace_stats());
    }
    exit_if_profiling(p.complete ? 0 : 1);
    consumer.shutdown();
    return p;
}

int run_consumer(const Options& o) {
    rmq::InProcessBroker broker;
    const double prefill_s = create_and_prefill(broker, o);
    if (o.trace) {
        broker.create_topic(rmq::rmq_sys_trace_topic, 4);
    }
    const std::string name = fmt::format("{}{}",
                                         o.mode == "orderly"   ? std::string("orderly")
                                         : o.mode == "backlog" ? std::string("backlog")
                                                               : fmt::format("concurrently_b{}", o.batch),
                                         o.trace ? "_trace" : "");
    const auto report = [&](const Phase& phase) {
        print_phase(o, name, phase, prefill_s);
    };
    const Phase p = o.mode == "orderly"
                        ? drain_with<rmq::OrderlyConsumer<rmq::InProcessTransport>>(
                              o, broker, o.messages, rmq::ConsumeOrderlyStatus::Success, report)
                        : drain_with<rmq::PushConsumer<rmq::InProcessTransport>>(
                              o, broker, o.messages, rmq::ConsumeConcurrentlyStatus::ConsumeSuccess, report);
    // The backlog run measures memory: stopping at --max-seconds before the end is expected.
    return p.complete || o.mode == "backlog" ? 0 : 1;
}

// ---- lite pull and POP -----------------------------------------------------------------------------------

/// rmq::LitePullConsumer over the prefilled broker: one thread polls (auto-commit) until the target.
int run_lite_pull(const Options& o) {
    rmq::InProcessBroker broker;
    const double prefill_s = create_and_prefill(broker, o);
    rmq::LitePullConfig cfg{.consumer_group = "bench_group",
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.pull_batch_size = 32;
    rmq::LitePullConsumer<> consumer{broker.connect(), cfg};
    consumer.subscribe(bench_topic);
    std::atomic<std::int64_t> consumed{0};
    std::atomic<bool> stop{false};
    Window w;
    w.start();
    consumer.start();
    std::thread poller([&] {
        while (!stop.load(std::memory_order_relaxed)) {
            consumed.fetch_add(
                static_cast<std::int64_t>(consumer.poll(std::chrono::milliseconds(200)).size()),
                std::memory_order_relaxed);
        }
    });
    const Phase p = phase_of(w, w.wait(consumed, o.messages, o.max_seconds));
    stop = true;
    poller.join();
    print_phase(o, "lite_pull", p, prefill_s);
    consumer.shutdown();
    return p.complete ? 0 : 1;
}

/// rmq::SimpleConsumer over the prefilled broker: --threads threads receive 32 at a time and ack each.
int run_pop(const Options& o) {
    rmq::InProcessBroker broker;
    const double prefill_s = create_and_prefill(broker, o);
    rmq::SimpleConsumer<rmq::InProcessTransport> consumer{
        broker.connect(),
        rmq::SimpleConsumerConfig{.consumer_group = "bench_group", .init_mode = rmq::ConsumeInitMode::Min}};
    consumer.subscribe(std::string(bench_topic));
    std::atomic<std::int64_t> consumed{0};
    std::atomic<bool> stop{false};
    Window w;
    w.start();
    std::vector<std::thread> threads;
    for (int t = 0; t < std::max(o.threads, 1); ++t) {
        threads.emplace_back([&] {
            while (!stop.load(std::memory_order_relaxed)) {
                const auto msgs = consumer.receive(32, std::chrono::seconds(60));
                for (const auto& m : msgs) {
                    consumer.ack(m);
                }
                consumed.fetch_add(static_cast<std::int64_t>(msgs.size()), std::memory_order_relaxed);
                if (msgs.empty()) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // no long polling here
                }
            }
        });
    }
    const Phase p = phase_of(w, w.wait(consumed, o.messages, o.max_seconds));
    stop = true;
    for (auto& t : threads) {
        t.join();
    }
    print_phase(o, "pop", p, prefill_s);
    return p.complete ? 0 : 1;
}

// ---- rebalance / handover -------------------------------------------------------------------------------

template <class ConsumerT, class Status>
int run_rebalance_with(const Options& o, Status ok, std::string_view order_name) {
    rmq::InProcessBroker broker;
    broker.create_topic(bench_topic, o.queues);
    Recorder rec;
    std::atomic<bool> stop{false};
    std::thread producer_thread([&] {
        rmq::Producer<rmq::InProcessTransport> producer(
            broker.connect(), rmq::ProducerConfig{.producer_group = "bench_rebalance_producer"});
        producer.start();
        const std::string body = body_of(o.body_bytes);
        const auto period = std::chrono::nanoseconds(1'000'000'000 / std::max<std::int64_t>(o.rate, 1));
        auto next = SteadyClock::now();
        while (!stop.load()) {
            (void)producer.send(rmq::Message(std::string(bench_topic), "TagA", body));
            next += period;
            std::this_thread::sleep_until(next);
        }
        producer.shutdown();
    });

    auto make_member = [&](int id) {
        auto cfg = consumer_config(o, "bench_rebalance_group");
        cfg.rebalance_interval = o.rebalance_interval;
        cfg.lock_renewal_interval = o.rebalance_interval;
        auto c = std::make_unique<ConsumerT>(broker.connect(), cfg);
        c->subscribe(bench_topic, "*");
        c->register_listener([&rec, id, ok](std::span<const rmq::MessageExt> msgs, auto&) {
            rec.record(id, msgs);
            return ok;
        });
        return c;
    };

    const RebalanceSettings settings{.mode = fmt::format("rebalance_{}", order_name),
                                     .topic = bench_topic,
                                     .queues = o.queues,
                                     .rate = o.rate,
                                     .rebalance_interval = o.rebalance_interval};
    return rebalance_sequence(settings, rec, make_member, [&] {
        stop = true;
        producer_thread.join();
    });
}

int run_rebalance(const Options& o) {
    if (o.order == "orderly") {
        return run_rebalance_with<rmq::OrderlyConsumer<rmq::InProcessTransport>>(
            o, rmq::ConsumeOrderlyStatus::Success, "orderly");
    }
    return run_rebalance_with<rmq::PushConsumer<rmq::InProcessTransport>>(
        o, rmq::ConsumeConcurrentlyStatus::ConsumeSuccess, "concurrently");
}

// ---- suite ----------------------------------------------------------------------------------------------

/// Runs this binary with `args` in a child process; returns its stdout (the JSON line) and exit status.
std::pair<std::string, int> run_child(const std::vector<std::string>& args) {
    int fds[2];
    if (::pipe(fds) != 0) {
        throw std::runtime_error("pipe failed");
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        throw std::runtime_error("fork failed");
    }
    if (pid == 0) {
        ::dup2(fds[1], STDOUT_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        std::vector<char*> argv;
        static std::string self = "/proc/self/exe";
        argv.push_back(self.data());
        for (const auto& a : args) {
            argv.push_back(const_cast<char*>(a.c_str()));
        }
        argv.push_back(nullptr);
        ::execv("/proc/self/exe", argv.data());
        std::_Exit(127);
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n <= 0) {
            break;
        }
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
        out.pop_back();
    }
    return {out, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)};
}

int run_suite(const Options& o) {
    const std::string n = std::to_string(o.messages);
    std::vector<std::vector<std::string>> throughput = {
        {"--mode", "limit", "--messages", n},
        {"--mode", "concurrently", "--batch", "1", "--messages", n},
        {"--mode", "concurrently", "--batch", "32", "--messages", n},
        {"--mode", "orderly", "--messages", n},
    };
    // Orderly handover depends on a race (does the new owner's LOCK_BATCH come before or after the old
    // owner's UNLOCK?), so each configuration runs several times; the 20 s interval runs last up to ~45 s
    // each.
    std::vector<std::vector<std::string>> rebalance;
    for (int rep = 0; rep < o.reps; ++rep) {
        for (const char* order : {"concurrently", "orderly"}) {
            rebalance.push_back({"--mode", "rebalance", "--order", order, "--rebalance-interval", "1000"});
            if (rep < 1) {
                rebalance.push_back(
                    {"--mode", "rebalance", "--order", order, "--rebalance-interval", "20000"});
            }
        }
    }
    int failures = 0;
    const auto t0 = SteadyClock::now();
    auto run = [&](const std::vector<std::string>& args, std::string_view label) {
        fmt::print(stderr, "[{:6.1f} s] {} ...\n", seconds_since(t0), label);
        auto [line, status] = run_child(args);
        if (status != 0) {
            ++failures;
            fmt::print(stderr, "  exit status {}\n", status);
        }
        if (!line.empty()) {
            fmt::print("{}\n", line);
            std::fflush(stdout);
        }
    };
    for (int rep = 1; rep <= o.reps; ++rep) {
        for (const auto& args : throughput) {
            run(args, fmt::format("rep {}/{}: {}", rep, o.reps, fmt::join(args, " ")));
        }
    }
    if (!o.skip_rebalance) {
        for (const auto& args : rebalance) {
            run(args, fmt::format("{}", fmt::join(args, " ")));
        }
    }
    if (!o.skip_backlog) {
        const std::vector<std::string> args = {"--mode",
                                               "backlog",
                                               "--queues",
                                               "16",
                                               "--messages",
                                               std::to_string(o.backlog),
                                               "--max-seconds",
                                               "30"};
        run(args, fmt::format("{}", fmt::join(args, " ")));
    }
    fmt::print(stderr, "[{:6.1f} s] done, {} failed run(s)\n", seconds_since(t0), failures);
    return failures == 0 ? 0 : 1;
}

/// Resident set size now, kB (VmRSS).
long current_rss_kb() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmRSS:", 0) == 0) {
            return std::stol(line.substr(6));
        }
    }
    return -1;
}

/// What an idle consumer costs in memory: RSS before and after starting N of them (each settled into its
/// long polls for 3 s).
int run_idle(const Options& o) {
    rmq::InProcessBroker broker;
    broker.create_topic(std::string(bench_topic), o.queues);
    std::vector<std::unique_ptr<rmq::PushConsumer<>>> consumers;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const long before = current_rss_kb();
    for (int i = 0; i < o.consumers; ++i) {
        rmq::ConsumerConfig config{.consumer_group = fmt::format("idle_{}", i)};
        config.consume_thread_min = o.threads;
        config.consume_thread_max = o.threads;
        auto c = std::make_unique<rmq::PushConsumer<>>(broker.connect(), config);
        c->subscribe(bench_topic, "*");
        c->register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
        c->start();
        consumers.push_back(std::move(c));
    }
    std::this_thread::sleep_for(std::chrono::seconds(3));
    const long after = current_rss_kb();
    fmt::print("{{\"mode\":\"idle\",\"consumers\":{},\"queues\":{},\"threads\":{},\"rss_before_kb\":{},"
               "\"rss_after_kb\":{},\"kb_per_consumer\":{:.1f}}}\n",
               o.consumers,
               o.queues,
               o.threads,
               before,
               after,
               static_cast<double>(after - before) / std::max(1, o.consumers));
    for (auto& c : consumers) {
        c->shutdown();
    }
    return 0;
}

Options parse(int argc, char** argv) {
    Options o;
    Flags()
        .add("--mode", o.mode)
        .add_switch("--suite", [&o] { o.mode = "suite"; })
        .add("--messages", o.messages)
        .add("--queues", o.queues)
        .add("--batch", o.batch)
        .add("--threads", o.threads)
        .add("--body", o.body_bytes)
        .add("--order", o.order)
        .add("--rebalance-interval", o.rebalance_interval)
        .add("--rate", o.rate)
        .add("--max-seconds", o.max_seconds)
        .add("--reps", o.reps)
        .add("--backlog", o.backlog)
        .add("--consumers", o.consumers)
        .add_switch("--no-backlog", [&o] { o.skip_backlog = true; })
        .add_switch("--trace", [&o] { o.trace = true; })
        .add_switch("--no-rebalance", [&o] { o.skip_rebalance = true; })
        .parse(argc, argv);
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options o = parse(argc, argv);
        if (o.mode == "suite") {
            return run_suite(o);
        }
        if (o.mode == "limit") {
            return run_limit(o);
        }
        if (o.mode == "concurrently" || o.mode == "orderly" || o.mode == "backlog") {
            return run_consumer(o);
        }
        if (o.mode == "rebalance") {
            return run_rebalance(o);
        }
        if (o.mode == "lite_pull") {
            return run_lite_pull(o);
        }
        if (o.mode == "pop") {
            return run_pop(o);
        }
        if (o.mode == "idle") {
            return run_idle(o);
        }
        fmt::print(
            stderr,
            "usage: {} --suite [--reps N] [--messages N] [--backlog N] [--no-backlog] [--no-rebalance]\n"
            "       {} --mode limit|concurrently|orderly|backlog|lite_pull|pop [--messages N] [--queues N] "
            "[--batch N]\n"
            "       {} --mode rebalance --order concurrently|orderly [--rebalance-interval ms] [--rate n]\n"
            "       {} --mode idle [--consumers N] [--queues N] [--threads N]\n",
            argv[0],
            argv[0],
            argv[0],
            argv[0]);
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "rmq_bench_consume: {}\n", e.what());
        return 1;
    }
}
