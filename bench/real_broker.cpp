// rmq_bench_real_broker: rmq against a real Apache RocketMQ broker (docs/benchmarks.md). The topic must exist
// and hold the prefilled messages (tools/bench.sh prefills it with the Java producer); every run uses a fresh
// consumer group that starts from the first offset. One JSON object per run on stdout.
//
//   rmq_bench_real_broker --namesrv HOST:PORT --topic T --messages N --mode concurrently|orderly|raw
//                         [--batch N] [--threads N]
//   rmq_bench_real_broker --namesrv HOST:PORT --topic T --mode rebalance --order concurrently|orderly [--rate
//   N]
//                         [--rebalance-interval ms]   (as rmq_bench_consume --mode rebalance; default 20000
//                         ms)
//
// raw: one pull in flight per queue through rmq::RemotingTransport, re-issued from its completion, messages
// dropped (the limit on this broker). CPU seconds and peak RSS (VmHWM) are the whole process's.

#if __has_include(<rmq/transport/remoting.hpp>)

#    include <algorithm>
#    include <atomic>
#    include <chrono>
#    include <cstdint>
#    include <cstdio>
#    include <cstdlib>
#    include <fstream>
#    include <map>
#    include <memory>
#    include <mutex>
#    include <optional>
#    include <set>
#    include <span>
#    include <stdexcept>
#    include <string>
#    include <string_view>
#    include <thread>
#    include <vector>

#    include <sys/resource.h>
#    include <unistd.h>

#    include <fmt/format.h>

#    include <rmq/consumer.hpp>
#    include <rmq/producer.hpp>
#    include <rmq/transport/remoting.hpp>

namespace {

using SteadyClock = std::chrono::steady_clock;

struct Options {
    std::string namesrv = "127.0.0.1:9876";
    std::string topic = "BenchTopic";
    std::string mode;
    std::int64_t messages = 200'000;
    int batch = 1;
    int threads = 20;
    double max_seconds = 600;
    int queues = 8;
    std::int64_t rate = 2000;
    std::int64_t rebalance_interval = 20000;
    std::string order = "concurrently";
};

std::string g_topic;

double seconds_since(SteadyClock::time_point t0) {
    return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

double cpu_seconds() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

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

void print(const Options& o,
           std::string_view name,
           std::int64_t consumed,
           bool complete,
           double seconds,
           double cpu,
           long base_kb) {
    const long peak = proc_status_kb("VmHWM");
    fmt::print(
        "{{\"mode\":\"{}\",\"messages\":{},\"threads\":{},\"batch\":{},\"consumed\":{},\"complete\":{},"
        "\"seconds\":{:.4f},\"msgs_per_s\":{:.1f},\"cpu_s\":{:.4f},\"cpu_s_per_million\":{:.4f},"
        "\"peak_rss_mb\":{:.1f},\"base_rss_mb\":{:.1f}}}\n",
        name,
        o.messages,
        o.threads,
        o.batch,
        consumed,
        complete ? "true" : "false",
        seconds,
        seconds > 0 ? static_cast<double>(consumed) / seconds : 0.0,
        cpu,
        consumed > 0 ? cpu * 1e6 / static_cast<double>(consumed) : 0.0,
        static_cast<double>(peak) / 1024.0,
        static_cast<double>(base_kb) / 1024.0);
    std::fflush(stdout);
}

std::string fresh_group(std::string_view what) {
    return fmt::format("bench_rmq_{}_{}", what, ::getpid());
}

int run_raw(const Options& o) {
    rmq::RemotingConfig rc;
    rc.namesrv_addr = o.namesrv;
    rmq::RemotingTransport transport{rc};
    const auto route = transport.topic_route(o.topic);
    const std::vector<rmq::MessageQueue> mqs = route.read_queues;
    const std::string group = fresh_group("raw");
    std::atomic<std::int64_t> consumed{0};
    std::atomic<int> errors{0};
    const long base = proc_status_kb("VmRSS");
    const double cpu0 = cpu_seconds();
    const auto t0 = SteadyClock::now();

    struct Loop {
        rmq::RemotingTransport* transport;
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

    std::int64_t total = 0;
    for (const auto& mq : mqs) {
        auto loop = std::make_shared<Loop>();
        loop->transport = &transport;
        loop->args.consumer_group = group;
        loop->args.mq = mq;
        loop->args.max_msg_nums = 32;
        loop->args.sys_flag = rmq::pull_sys_flag::subscription;
        loop->args.subscription = "*";
        loop->args.suspend_timeout_millis = 0;
        loop->consumed = &consumed;
        loop->errors = &errors;
        loop->end = transport.max_offset(mq);
        total += loop->end - transport.min_offset(mq);
        if (loop->args.queue_offset < loop->end) {
            loop->issue(loop);
        }
    }
    const std::int64_t target = std::min(total, o.messages);
    const bool complete = wait_for_count(consumed, target, o.max_seconds) && errors.load() == 0;
    print(o, "real_limit", consumed.load(), complete, seconds_since(t0), cpu_seconds() - cpu0, base);
    return complete ? 0 : 1;
}

template <class ConsumerT, class Status>
int run_consumer(const Options& o, Status ok, std::string_view name) {
    rmq::RemotingConfig rc;
    rc.namesrv_addr = o.namesrv;
    rmq::RemotingTransport transport{rc};
    rmq::ConsumerConfig cfg{.consumer_group = fresh_group(name),
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.namesrv_addr = o.namesrv;
    cfg.consume_thread_min = o.threads;
    cfg.consume_thread_max = o.threads;
    cfg.consume_message_batch_max_size = o.batch;
    std::atomic<std::int64_t> consumed{0};
    ConsumerT consumer{transport, cfg};
    consumer.subscribe(o.topic, "*");
    consumer.register_listener([&consumed, ok](std::span<const rmq::MessageExt> msgs, auto&) {
        consumed.fetch_add(static_cast<std::int64_t>(msgs.size()), std::memory_order_relaxed);
        return ok;
    });
    const long base = proc_status_kb("VmRSS");
    const double cpu0 = cpu_seconds();
    const auto t0 = SteadyClock::now();
    consumer.start();
    const bool complete = wait_for_count(consumed, o.messages, o.max_seconds);
    const double s = seconds_since(t0);
    const double cpu = cpu_seconds() - cpu0;
    print(o,
          name == "orderly" ? std::string("real_orderly") : fmt::format("real_concurrently_b{}", o.batch),
          consumed.load(),
          complete,
          s,
          cpu,
          base);
    consumer.shutdown();
    return complete ? 0 : 1;
}

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
            if (mq.topic != g_topic) {
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

/// Same procedure as rmq_bench_consume --mode rebalance, over RemotingTransport (rmq's default intervals).
template <class ConsumerT, class Status>
int run_rebalance_with(const Options& o, Status ok, std::string_view order_name) {
    rmq::RemotingConfig rc;
    rc.namesrv_addr = o.namesrv;
    g_topic = o.topic;
    Recorder rec;
    std::atomic<bool> stop{false};
    std::thread producer_thread([&] {
        rmq::Producer<rmq::RemotingTransport> producer(
            rmq::RemotingTransport{rc},
            rmq::ProducerConfig{.producer_group =
                                    fmt::format("bench_rmq_rebalance_producer_{}", ::getpid())});
        producer.start();
        const std::string body(128, 'x');
        const auto period = std::chrono::nanoseconds(1'000'000'000 / std::max<std::int64_t>(o.rate, 1));
        auto next = SteadyClock::now();
        while (!stop.load()) {
            try {
                (void)producer.send(rmq::Message(o.topic, "TagA", body));
            } catch (
                const std::exception&) {  // NOLINT(bugprone-empty-catch): a lost send only thins the traffic
            }
            next += period;
            std::this_thread::sleep_until(next);
        }
        producer.shutdown();
    });
    const std::string group = fresh_group(fmt::format("rebalance_{}", order_name));
    auto make_member = [&](int id) {
        rmq::ConsumerConfig cfg{.consumer_group = group,
                                .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
        cfg.namesrv_addr = o.namesrv;
        cfg.instance_name = fmt::format("bench-rebalance-{}-{}", id, ::getpid());
        cfg.rebalance_interval = o.rebalance_interval;
        cfg.lock_renewal_interval = o.rebalance_interval;
        auto c = std::make_unique<ConsumerT>(rmq::RemotingTransport{rc}, cfg);
        c->subscribe(o.topic, "*");
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
    const Handover initial =
        observe<ConsumerT>(o, rec, {a.get(), b.get()}, {0, 1}, seconds_since(rec.t0), seen);
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
    fmt::print("{{\"mode\":\"real_rebalance_{}\",\"queues\":{},\"rate\":{},\"rebalance_interval_ms\":{},"
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
        if (a == "--namesrv") {
            o.namesrv = value();
        } else if (a == "--topic") {
            o.topic = value();
        } else if (a == "--mode") {
            o.mode = value();
        } else if (a == "--messages") {
            o.messages = std::stoll(value());
        } else if (a == "--batch") {
            o.batch = std::stoi(value());
        } else if (a == "--threads") {
            o.threads = std::stoi(value());
        } else if (a == "--order") {
            o.order = value();
        } else if (a == "--rate") {
            o.rate = std::stoll(value());
        } else if (a == "--rebalance-interval") {
            o.rebalance_interval = std::stoll(value());
        } else if (a == "--max-seconds") {
            o.max_seconds = std::stod(value());
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
        if (o.mode == "raw") {
            return run_raw(o);
        }
        if (o.mode == "rebalance") {
            if (o.order == "orderly") {
                return run_rebalance_with<rmq::OrderlyConsumer<rmq::RemotingTransport>>(
                    o, rmq::ConsumeOrderlyStatus::Success, "orderly");
            }
            return run_rebalance_with<rmq::PushConsumer<rmq::RemotingTransport>>(
                o, rmq::ConsumeConcurrentlyStatus::ConsumeSuccess, "concurrently");
        }
        if (o.mode == "orderly") {
            return run_consumer<rmq::OrderlyConsumer<rmq::RemotingTransport>>(
                o, rmq::ConsumeOrderlyStatus::Success, "orderly");
        }
        if (o.mode == "concurrently") {
            return run_consumer<rmq::PushConsumer<rmq::RemotingTransport>>(
                o, rmq::ConsumeConcurrentlyStatus::ConsumeSuccess, "concurrently");
        }
        fmt::print(stderr,
                   "usage: {} --namesrv HOST:PORT --topic T --messages N --mode concurrently|orderly|raw "
                   "[--batch N] [--threads N]\n",
                   argv[0]);
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "rmq_bench_real_broker: {}\n", e.what());
        return 1;
    }
}

#else

#    include <cstdio>

int main() {
    std::fputs("rmq_bench_real_broker: <rmq/transport/remoting.hpp> is not available in this tree\n", stderr);
    return 3;
}

#endif
