// rmq_bench_consume: in-process consumption benchmarks on the embedded broker (docs/benchmarks.md).
//
// One mode per process, so that every peak RSS belongs to one pipeline:
//   --mode limit          raw pull loop through InProcessTransport, no dispatch (the limit)
//   --mode concurrently   rmq::PushConsumer, 20 threads, no-op listener (--batch N, default 1)
//   --mode orderly        rmq::OrderlyConsumer, 20 threads, no-op listener
//   --mode rebalance      two members consume 8 queues under a steady producer; a third joins, one leaves
//                         (--order concurrently|orderly, --rebalance-interval ms)
//   --mode backlog        peak RSS of a concurrent consumer over a prefilled backlog (default thresholds)
//   --suite               runs the modes above in fresh child processes (fork/exec of this binary),
//                         interleaved, --reps times; one JSON line per run on stdout, progress on stderr.
// Every mode prints one JSON object on stdout.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view bench_topic = "BenchTopic";

struct Options {
    std::string mode;
    std::int64_t messages = 1'000'000;
    int queues = 8;
    int batch = 1;
    int threads = 20;
    int body_bytes = 128;
    std::string order = "concurrently";
    std::int64_t rebalance_interval = 1000;
    std::int64_t rate = 4000;          // rebalance: messages per second produced
    double max_seconds = 600;          // give up after this long
    int reps = 3;                      // suite
    std::int64_t backlog = 5'000'000;  // suite: messages of the backlog run
    bool skip_backlog = false;         // suite
    bool skip_rebalance = false;       // suite
};

double seconds_since(SteadyClock::time_point t0) {
    return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

double cpu_seconds() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/// getrusage's high-water mark (KiB on Linux): the whole process, prefill included.
long maxrss_kb() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/// A field of /proc/self/status in KiB (VmRSS, VmHWM), -1 when unavailable.
long proc_status_kb(std::string_view field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with(field) && line.size() > field.size() && line[field.size()] == ':') {
            return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
        }
    }
    return -1;
}

/// Resets VmHWM to the current RSS (Linux ≥ 4.0), so that the peak measured afterwards is the phase's own.
bool reset_peak_rss() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    out.flush();
    return static_cast<bool>(out);
}

/// Memory figures of one measured phase.
struct MemoryProbe {
    long base_kb = 0;        // RSS when the phase started (the prefilled broker)
    bool hwm_reset = false;  // VmHWM was reset at the start: peak is the phase's own

    void start() {
        base_kb = proc_status_kb("VmRSS");
        hwm_reset = reset_peak_rss();
    }

    /// Peak RSS of the phase (KiB): VmHWM after the reset, else getrusage's process peak.
    [[nodiscard]] long peak_kb() const {
        const long hwm = hwm_reset ? proc_status_kb("VmHWM") : -1;
        return hwm > 0 ? hwm : maxrss_kb();
    }
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

rmq::ConsumerConfig consumer_config(const Options& o, std::string group) {
    rmq::ConsumerConfig c{.consumer_group = std::move(group),
                          .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    c.consume_thread_min = o.threads;
    c.consume_thread_max = o.threads;
    c.consume_message_batch_max_size = o.batch;
    return c;
}

/// Result of one throughput phase.
struct Phase {
    std::int64_t consumed = 0;
    double seconds = 0;
    double cpu = 0;
    long peak_kb = 0;
    long base_kb = 0;
    long process_peak_kb = 0;
    bool complete = false;
};

void print_phase(const Options& o, std::string_view name, const Phase& p, double prefill_seconds) {
    fmt::print("{{\"mode\":\"{}\",\"messages\":{},\"queues\":{},\"batch\":{},\"threads\":{},\"consumed\":{},"
               "\"complete\":{},\"seconds\":{:.4f},\"msgs_per_s\":{:.1f},\"cpu_s\":{:.4f},\"cpu_s_per_"
               "million\":{:.4f},"
               "\"peak_rss_mb\":{:.1f},\"base_rss_mb\":{:.1f},\"delta_rss_mb\":{:.1f},\"process_peak_rss_"
               "mb\":{:.1f},"
               "\"prefill_s\":{:.2f}}}\n",
               name,
               o.messages,
               o.queues,
               o.batch,
               o.threads,
               p.consumed,
               p.complete ? "true" : "false",
               p.seconds,
               p.seconds > 0 ? static_cast<double>(p.consumed) / p.seconds : 0.0,
               p.cpu,
               p.consumed > 0 ? p.cpu * 1e6 / static_cast<double>(p.consumed) : 0.0,
               static_cast<double>(p.peak_kb) / 1024.0,
               static_cast<double>(p.base_kb) / 1024.0,
               static_cast<double>(p.peak_kb - p.base_kb) / 1024.0,
               static_cast<double>(p.process_peak_kb) / 1024.0,
               prefill_seconds);
    std::fflush(stdout);
}

/// Waits until `counter` reaches `target` or `max_seconds` pass; true when reached.
bool wait_for_count(const std::atomic<std::int64_t>& counter, std::int64_t target, double max_seconds) {
    const auto t0 = SteadyClock::now();
    while (counter.load(std::memory_order_relaxed) < target) {
        if (seconds_since(t0) > max_seconds) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    return true;
}

// ---- limit: raw pull loop -------------------------------------------------------------------------------

/// One pull in flight per queue, re-issued from the completion (as the consumer does), messages dropped:
/// what the embedded broker can deliver through InProcessTransport.
int run_limit(const Options& o) {
    rmq::InProcessBroker broker;
    broker.create_topic(bench_topic, o.queues);
    const auto tp = SteadyClock::now();
    prefill(broker, o.messages, o.queues, o.body_bytes);
    const double prefill_s = seconds_since(tp);

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
    MemoryProbe mem;
    mem.start();
    const double cpu0 = cpu_seconds();
    const auto t0 = SteadyClock::now();

    struct Loop {
        rmq::InProcessTransport* transport;
        rmq::PullArgs args;
        std::atomic<std::int64_t>* consumed;
        std::atomic<int>* errors;
        std::int64_t end;

        void issue(const std::shared_ptr<Loop>& self) {
            transport->pull(args, [self](rmq::Outcome<rmq::PullResult> outcome) {
                if (!outcome.ok()) {
                    self->errors->fetch_add(1);
                    return;
                }
                auto& r = outcome.value();
                self->consumed->fetch_add(static_cast<std::int64_t>(r.msg_found_list.size()),
                                          std::memory_order_relaxed);
                self->args.queue_offset = r.next_begin_offset;
                if (r.next_begin_offset < self->end) {
                    self->issue(self);
                }
            });
        }
    };

    for (int q = 0; q < o.queues; ++q) {
        auto loop = std::make_shared<Loop>();
        loop->transport = &transport;
        loop->args.consumer_group = group;
        loop->args.mq = broker.queue(std::string(bench_topic), q);
        loop->args.max_msg_nums = 32;
        loop->args.sys_flag = rmq::pull_sys_flag::suspend;
        loop->args.suspend_timeout_millis = 15000;
        loop->consumed = &consumed;
        loop->errors = &errors;
        loop->end = broker.max_offset(loop->args.mq);
        loop->issue(loop);
    }
    Phase p;
    p.complete = wait_for_count(consumed, o.messages, o.max_seconds);
    p.seconds = seconds_since(t0);
    p.cpu = cpu_seconds() - cpu0;
    p.consumed = consumed.load();
    p.peak_kb = mem.peak_kb();
    p.base_kb = mem.base_kb;
    p.process_peak_kb = maxrss_kb();
    broker.drain();
    if (errors.load() > 0) {
        fmt::print(stderr, "limit: {} pulls failed\n", errors.load());
        p.complete = false;
    }
    print_phase(o, "limit", p, prefill_s);
    return p.complete ? 0 : 1;
}

// ---- consumers ------------------------------------------------------------------------------------------

template <class ConsumerT, class Status>
Phase drain_with(const Options& o, rmq::InProcessBroker& broker, std::int64_t target, Status ok) {
    std::atomic<std::int64_t> consumed{0};
    ConsumerT consumer{broker.connect(), consumer_config(o, "bench_group")};
    consumer.subscribe(bench_topic, "*");
    consumer.register_listener([&consumed, ok](std::span<const rmq::MessageExt> msgs, auto&) {
        consumed.fetch_add(static_cast<std::int64_t>(msgs.size()), std::memory_order_relaxed);
        return ok;
    });
    MemoryProbe mem;
    mem.start();
    const double cpu0 = cpu_seconds();
    const auto t0 = SteadyClock::now();
    consumer.start();
    Phase p;
    p.complete = wait_for_count(consumed, target, o.max_seconds);
    p.seconds = seconds_since(t0);
    p.cpu = cpu_seconds() - cpu0;
    p.consumed = consumed.load();
    p.peak_kb = mem.peak_kb();
    p.base_kb = mem.base_kb;
    p.process_peak_kb = maxrss_kb();
    consumer.shutdown();
    return p;
}

int run_consumer(const Options& o) {
    rmq::InProcessBroker broker;
    broker.create_topic(bench_topic, o.queues);
    const auto tp = SteadyClock::now();
    prefill(broker, o.messages, o.queues, o.body_bytes);
    const double prefill_s = seconds_since(tp);
    Phase p;
    std::string name;
    if (o.mode == "orderly") {
        p = drain_with<rmq::OrderlyConsumer<rmq::InProcessTransport>>(
            o, broker, o.messages, rmq::ConsumeOrderlyStatus::Success);
        name = "orderly";
    } else {
        p = drain_with<rmq::PushConsumer<rmq::InProcessTransport>>(
            o, broker, o.messages, rmq::ConsumeConcurrentlyStatus::ConsumeSuccess);
        name = o.mode == "backlog" ? "backlog" : fmt::format("concurrently_b{}", o.batch);
    }
    print_phase(o, name, p, prefill_s);
    // The backlog run measures memory: stopping at --max-seconds before the end is expected.
    return p.complete || o.mode == "backlog" ? 0 : 1;
}

// ---- rebalance / handover -------------------------------------------------------------------------------

struct Delivery {
    int member;
    std::int32_t queue;
    std::int64_t offset;
    double t;  // seconds since the run began
};

struct Recorder {
    std::mutex mutex;
    std::vector<Delivery> deliveries;
    SteadyClock::time_point t0 = SteadyClock::now();

    void record(int member, std::span<const rmq::MessageExt> msgs) {
        const double t = seconds_since(t0);
        const std::lock_guard lock(mutex);
        for (const auto& m : msgs) {
            deliveries.push_back(Delivery{member, m.queue_id(), m.queue_offset(), t});
        }
    }

    std::vector<Delivery> snapshot() {
        const std::lock_guard lock(mutex);
        return deliveries;
    }
};

/// Outcome of one membership event.
struct Handover {
    double assign_ms = -1;    // until the members' allocations formed the final partition
    double handover_ms = -1;  // until every queue was delivered by its final owner only
    std::int64_t duplicates = 0;
    bool complete = false;
};

/// owner[q] = index of the member assigned queue q, when the assignments form an exact partition.
template <class ConsumerT>
std::optional<std::vector<int>> partition_of(const std::vector<ConsumerT*>& members, int queues) {
    std::vector<int> owner(static_cast<std::size_t>(queues), -1);
    for (std::size_t i = 0; i < members.size(); ++i) {
        for (const auto& mq : members[i]->assigned_queues()) {
            if (mq.topic != bench_topic) {
                continue;
            }
            auto& slot = owner[static_cast<std::size_t>(mq.queue_id)];
            if (slot != -1) {
                return std::nullopt;
            }
            slot = static_cast<int>(i);
        }
    }
    if (std::ranges::find(owner, -1) != owner.end()) {
        return std::nullopt;
    }
    return owner;
}

/// Watches the event at `t_event` until every queue is delivered by its final owner only.
/// `member_ids[i]` maps the live member i to its recorder id.
template <class ConsumerT>
Handover observe(const Options& o,
                 Recorder& rec,
                 const std::vector<ConsumerT*>& members,
                 const std::vector<int>& member_ids,
                 double t_event,
                 std::set<std::pair<int, std::int64_t>>& seen_before) {
    Handover h;
    const auto start = SteadyClock::now();
    std::optional<std::vector<int>> final_owner;
    while (seconds_since(start) < 90) {
        auto part = partition_of(members, o.queues);
        if (part && (!final_owner || *part != *final_owner)) {
            final_owner = part;
            h.assign_ms = (seconds_since(rec.t0) - t_event) * 1000;
        }
        if (final_owner) {
            // Every queue delivered by its owner after every other member's last delivery of it?
            const auto ds = rec.snapshot();
            double worst = 0;
            bool all = true;
            for (int q = 0; q < o.queues; ++q) {
                const int owner_id =
                    member_ids[static_cast<std::size_t>((*final_owner)[static_cast<std::size_t>(q)])];
                double last_other = t_event;
                double first_owner_after_other = -1;
                for (const auto& d : ds) {
                    if (d.queue != q || d.t < t_event) {
                        continue;
                    }
                    if (d.member != owner_id) {
                        last_other = std::max(last_other, d.t);
                    }
                }
                for (const auto& d : ds) {
                    if (d.queue == q && d.member == owner_id && d.t >= last_other && d.t >= t_event) {
                        first_owner_after_other = d.t;
                        break;
                    }
                }
                if (first_owner_after_other < 0) {
                    all = false;
                    break;
                }
                worst = std::max(worst, first_owner_after_other - t_event);
            }
            if (all && seconds_since(rec.t0) - t_event > worst + 1.0) {
                h.handover_ms = worst * 1000;
                h.complete = true;
                break;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Duplicates: deliveries after the event of a (queue, offset) delivered before.
    for (const auto& d : rec.snapshot()) {
        if (d.t < t_event) {
            continue;
        }
        if (!seen_before.insert({d.queue, d.offset}).second) {
            ++h.duplicates;
        }
    }
    return h;
}

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

    std::set<std::pair<int, std::int64_t>> seen;
    auto a = make_member(0);
    auto b = make_member(1);
    a->start();
    b->start();
    // Let the first two settle (their start is not measured).
    const double t_start = seconds_since(rec.t0);
    const Handover initial = observe<ConsumerT>(o, rec, {a.get(), b.get()}, {0, 1}, t_start, seen);

    auto c = make_member(2);
    const double t_join = seconds_since(rec.t0);
    c->start();
    const Handover join = observe<ConsumerT>(o, rec, {a.get(), b.get(), c.get()}, {0, 1, 2}, t_join, seen);

    const double t_leave = seconds_since(rec.t0);
    a->shutdown();
    const Handover leave = observe<ConsumerT>(o, rec, {b.get(), c.get()}, {1, 2}, t_leave, seen);

    stop = true;
    producer_thread.join();
    b->shutdown();
    c->shutdown();
    auto fmt_h = [](const Handover& h) {
        return fmt::format(
            "{{\"assign_ms\":{:.1f},\"handover_ms\":{:.1f},\"duplicates\":{},\"complete\":{}}}",
            h.assign_ms,
            h.handover_ms,
            h.duplicates,
            h.complete ? "true" : "false");
    };
    fmt::print("{{\"mode\":\"rebalance_{}\",\"queues\":{},\"rate\":{},\"rebalance_interval_ms\":{},"
               "\"initial\":{},\"join\":{},\"leave\":{},\"deliveries\":{}}}\n",
               order_name,
               o.queues,
               o.rate,
               o.rebalance_interval,
               fmt_h(initial),
               fmt_h(join),
               fmt_h(leave),
               rec.snapshot().size());
    std::fflush(stdout);
    return initial.complete && join.complete && leave.complete ? 0 : 1;
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

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                throw std::invalid_argument(fmt::format("{} needs a value", a));
            }
            return argv[++i];
        };
        if (a == "--mode") {
            o.mode = value();
        } else if (a == "--suite") {
            o.mode = "suite";
        } else if (a == "--messages") {
            o.messages = std::stoll(value());
        } else if (a == "--queues") {
            o.queues = std::stoi(value());
        } else if (a == "--batch") {
            o.batch = std::stoi(value());
        } else if (a == "--threads") {
            o.threads = std::stoi(value());
        } else if (a == "--body") {
            o.body_bytes = std::stoi(value());
        } else if (a == "--order") {
            o.order = value();
        } else if (a == "--rebalance-interval") {
            o.rebalance_interval = std::stoll(value());
        } else if (a == "--rate") {
            o.rate = std::stoll(value());
        } else if (a == "--max-seconds") {
            o.max_seconds = std::stod(value());
        } else if (a == "--reps") {
            o.reps = std::stoi(value());
        } else if (a == "--backlog") {
            o.backlog = std::stoll(value());
        } else if (a == "--no-backlog") {
            o.skip_backlog = true;
        } else if (a == "--no-rebalance") {
            o.skip_rebalance = true;
        } else {
            throw std::invalid_argument(fmt::format("unknown argument {}", a));
        }
    }
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
        fmt::print(
            stderr,
            "usage: {} --suite [--reps N] [--messages N] [--backlog N] [--no-backlog] [--no-rebalance]\n"
            "       {} --mode limit|concurrently|orderly|backlog [--messages N] [--queues N] [--batch N]\n"
            "       {} --mode rebalance --order concurrently|orderly [--rebalance-interval ms] [--rate n]\n",
            argv[0],
            argv[0],
            argv[0]);
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "rmq_bench_consume: {}\n", e.what());
        return 1;
    }
}
