// rmq_bench_real_broker: rmq against a real Apache RocketMQ broker (docs/benchmarks.md). The topic must exist
// and hold the prefilled messages (tools/bench.sh prefills it with the Java producer); every run uses a fresh
// consumer group that starts from the first offset. One JSON object per run on stdout.
//
//   rmq_bench_real_broker --namesrv HOST:PORT --topic T --messages N --mode
//   concurrently|orderly|key_orderly|raw|lite_pull|pop|pop_batch_ack|push_pop|push_pop_assigned [--group G]
//                         [--batch N] [--threads N] [--body BYTES] [--work none|sleep1ms|hash100] [--trace]
//   rmq_bench_real_broker --namesrv HOST:PORT --topic T --messages N --mode backlog --max-seconds S
//   rmq_bench_real_broker --namesrv HOST:PORT --topic T --mode rebalance --order concurrently|orderly
//                         [--rate N] [--rebalance-interval ms]
//
// raw: one pull in flight per queue through rmq::RemotingTransport, re-issued from its completion, messages
// dropped (the limit on this broker). backlog: rmq::PushConsumer with default thresholds over a prefilled
// backlog, stopped after --max-seconds (the window); its peak RSS is the figure. rebalance: as
// rmq_bench_consume --mode rebalance, with rmq's default intervals (20000 ms). --body only labels the run
// with the size the topic was prefilled with. CPU seconds and peak RSS (VmHWM) are the whole process's.
// lite_pull: rmq::LitePullConsumer (subscribe, auto-commit, pull_batch_size 32), one thread polling;
// --work runs per polled batch. pop: rmq::SimpleConsumer (init mode Min), --threads threads each receiving
// up to 32 messages (invisible 60 s, await 1 s), doing --work per message and acking each (one ACK_MESSAGE
// per message); pop_batch_ack: the same, each received batch acked at once (BATCH_ACK_MESSAGE). push_pop:
// rmq::PushConsumer in POP mode (message_request_mode Pop, from the first offset: init mode Min), --threads
// and --batch as concurrently.
// --trace (push modes): enable_msg_trace, its records to RMQ_SYS_TRACE_TOPIC (the label gets _trace;
// JavaPushBench takes -Drmq.bench.trace=true). --work: what the listener does per call besides counting:
// sleep 1 ms (a listener waiting on I/O), or per message 100 rounds of FNV-1a over the body (CPU-bound);
// JavaPushBench's listener does the same.

#if __has_include(<rmq/transport/remoting.hpp>)

#    include <algorithm>
#    include <atomic>
#    include <chrono>
#    include <cstdint>
#    include <cstdio>
#    include <memory>
#    include <span>
#    include <stdexcept>
#    include <string>
#    include <string_view>
#    include <thread>
#    include <vector>

#    include "support.hpp"
#    include <unistd.h>

#    include <fmt/format.h>

#    include <rmq/allocate/by_broker.hpp>
#    include <rmq/consumer.hpp>
#    include <rmq/lite_pull_consumer.hpp>
#    include <rmq/order/key_orderly.hpp>
#    include <rmq/producer.hpp>
#    include <rmq/simple_consumer.hpp>
#    include <rmq/transport/remoting.hpp>

namespace {

using namespace rmq_bench;  // NOLINT(google-build-using-namespace): the harness of every bench program

struct Options {
    std::string namesrv = "127.0.0.1:9876";
    std::string topic = "BenchTopic";
    std::string mode;
    std::int64_t messages = 200'000;
    int batch = 1;
    int threads = 20;
    int body_bytes = 128;  // what the topic was prefilled with: reported, not sent
    double max_seconds = 600;
    int queues = 8;
    std::int64_t rate = 2000;
    std::int64_t rebalance_interval = 20000;
    bool trace = false;  // --trace: enable_msg_trace on the push consumer (records to RMQ_SYS_TRACE_TOPIC)
    std::string order = "concurrently";
    std::string work = "none";
    std::string group;  // --group: empty for a fresh one per run
};

/// 64-bit FNV-1a of `body`, 100 times over (each round seeded with the last): the CPU-bound listener's work,
/// the same arithmetic as JavaPushBench's.
std::uint64_t hash100(std::string_view body) {
    std::uint64_t h = 14695981039346656037ULL;
    for (int round = 0; round < 100; ++round) {
        for (const char c : body) {
            h ^= static_cast<unsigned char>(c);
            h *= 1099511628211ULL;
        }
    }
    return h;
}

/// The listener's work for one call (see --work).
class Work {
public:
    explicit Work(const std::string& kind)
        : sleep_(kind == "sleep1ms")
        , hash_(kind == "hash100") {
        if (!sleep_ && !hash_ && kind != "none") {
            throw std::invalid_argument("--work must be none, sleep1ms or hash100, not " + kind);
        }
    }

    void operator()(std::span<const rmq::MessageExt> msgs) {
        if (sleep_) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        if (hash_) {
            std::uint64_t h = 0;
            for (const auto& m : msgs) {
                h ^= hash100(m.body());
            }
            sink_.fetch_xor(h, std::memory_order_relaxed);  // keeps the hashing from being optimised away
        }
    }

private:
    bool sleep_;
    bool hash_;
    std::atomic<std::uint64_t> sink_{0};
};

void print(const Options& o, std::string_view name, const Run& r, long base_kb) {
    fmt::print("{{\"mode\":\"{}\",\"messages\":{},\"threads\":{},\"batch\":{},\"body_bytes\":{},{},"
               "\"peak_rss_mb\":{:.1f},\"base_rss_mb\":{:.1f}}}\n",
               name,
               o.messages,
               o.threads,
               o.batch,
               o.body_bytes,
               run_fields(r),
               mb(proc_status_kb("VmHWM")),
               mb(base_kb));
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
    Window w;
    w.start();
    std::int64_t total = 0;
    for (const auto& mq : mqs) {
        auto loop = std::make_shared<PullLoop<rmq::RemotingTransport>>();
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
            PullLoop<rmq::RemotingTransport>::issue(loop);
        }
    }
    const std::int64_t target = std::min(total, o.messages);
    Run r = w.wait(consumed, target, o.max_seconds);
    r.complete = r.complete && errors.load() == 0;
    print(o, "real_limit", r, w.mem.base_kb);
    return r.complete ? 0 : 1;
}

/// Drains the topic from its first offset with a fresh group. backlog: stops after --max-seconds (the
/// window) whatever was consumed, and reports the peak RSS of that window under rmq's default thresholds.
template <class ConsumerT, class Status>
int run_consumer(const Options& o, Status ok, std::string_view name) {
    rmq::RemotingConfig rc;
    rc.namesrv_addr = o.namesrv;
    rmq::RemotingTransport transport{rc};
    rmq::ConsumerConfig cfg{.consumer_group = o.group.empty() ? fresh_group(name) : o.group,
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.namesrv_addr = o.namesrv;
    cfg.consume_thread_min = o.threads;
    cfg.consume_thread_max = o.threads;
    cfg.consume_message_batch_max_size = o.batch;
    cfg.enable_msg_trace = o.trace;
    if (name == "push_pop") {  // push_pop_assigned pops what the broker assigns in POP mode
        cfg.message_request_mode = rmq::MessageRequestMode::Pop;
    }
    std::atomic<std::int64_t> consumed{0};
    Work work(o.work);
    ConsumerT consumer{transport, cfg};
    consumer.subscribe(o.topic, "*");
    consumer.register_listener([&consumed, &work, ok](std::span<const rmq::MessageExt> msgs, auto&) {
        work(msgs);
        consumed.fetch_add(static_cast<std::int64_t>(msgs.size()), std::memory_order_relaxed);
        return ok;
    });
    Window w;
    w.start();
    consumer.start();
    const Run r = w.wait(consumed, o.messages, o.max_seconds);
    std::string label;
    if (name == "backlog") {
        label = "real_backlog";
    } else if (name == "orderly" || name == "key_orderly") {
        label = fmt::format("real_{}", name);
    } else if (name == "push_pop" || name == "push_pop_assigned") {
        label = fmt::format("real_{}_b{}", name, o.batch);
    } else {
        label = fmt::format("real_concurrently_b{}", o.batch);
    }
    if (o.work != "none") {
        label += "_" + o.work;
    }
    if (o.trace) {
        label += "_trace";
        print_trace_stats(consumer.trace_stats());
    }
    print(o, label, r, w.mem.base_kb);
    consumer.shutdown();
    return r.complete || name == "backlog" ? 0 : 1;
}

std::string with_work(std::string label, const Options& o) {
    return o.work == "none" ? label : label + "_" + o.work;
}

/// rmq::LitePullConsumer draining the topic from its first offset with a fresh group: one thread polls
/// (auto-commit), the work runs per polled batch.
int run_lite_pull(const Options& o) {
    rmq::RemotingConfig rc;
    rc.namesrv_addr = o.namesrv;
    rmq::LitePullConfig cfg{.consumer_group = fresh_group("lite_pull"),
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.namesrv_addr = o.namesrv;
    cfg.pull_batch_size = 32;  // Java's push consumer pulls 32; DefaultLitePullConsumer's default is 10
    rmq::LitePullConsumer<rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::RemotingTransport> consumer{
        rmq::RemotingTransport{rc}, cfg};
    consumer.subscribe(o.topic, "*");
    std::atomic<std::int64_t> consumed{0};
    std::atomic<bool> stop{false};
    Work work(o.work);
    Window w;
    w.start();
    consumer.start();
    std::thread poller([&] {
        while (!stop.load(std::memory_order_relaxed)) {
            const auto msgs = consumer.poll(std::chrono::milliseconds(200));
            work(msgs);
            consumed.fetch_add(static_cast<std::int64_t>(msgs.size()), std::memory_order_relaxed);
        }
    });
    const Run r = w.wait(consumed, o.messages, o.max_seconds);
    stop = true;
    poller.join();
    print(o, with_work("real_lite_pull", o), r, w.mem.base_kb);
    consumer.shutdown();
    return r.complete ? 0 : 1;
}

/// rmq::SimpleConsumer (POP) draining the topic with a fresh group from the queues' first offsets: --threads
/// threads receive up to 32 messages each, do the work per message and ack each message (pop) or each
/// received batch in one request (pop_batch_ack).
int run_pop(const Options& o) {
    rmq::RemotingConfig rc;
    rc.namesrv_addr = o.namesrv;
    rmq::SimpleConsumer<rmq::RemotingTransport> consumer{
        rmq::RemotingTransport{rc},
        rmq::SimpleConsumerConfig{.consumer_group = fresh_group("pop"),
                                  .await_duration = 1000,
                                  .init_mode = rmq::ConsumeInitMode::Min}};
    consumer.subscribe(o.topic);
    std::atomic<std::int64_t> consumed{0};
    std::atomic<std::int64_t> errors{0};
    std::atomic<bool> stop{false};
    Work work(o.work);
    Window w;
    w.start();
    std::vector<std::thread> threads;
    for (int t = 0; t < std::max(o.threads, 1); ++t) {
        threads.emplace_back([&] {
            while (!stop.load(std::memory_order_relaxed)) {
                try {
                    const auto msgs = consumer.receive(32, std::chrono::seconds(60));
                    if (o.mode == "pop_batch_ack") {
                        for (const auto& m : msgs) {
                            work(std::span<const rmq::MessageExt>(&m, 1));
                        }
                        if (!msgs.empty()) {
                            consumer.ack(std::span<const rmq::MessageExt>(msgs));
                        }
                        consumed.fetch_add(static_cast<std::int64_t>(msgs.size()), std::memory_order_relaxed);
                        continue;
                    }
                    for (const auto& m : msgs) {
                        work(std::span<const rmq::MessageExt>(&m, 1));
                        consumer.ack(m);
                        consumed.fetch_add(1, std::memory_order_relaxed);
                    }
                } catch (const std::exception& e) {
                    if (errors.fetch_add(1) < 5) {
                        fmt::print(stderr, "rmq_bench_real_broker pop: {}\n", e.what());
                    }
                }
            }
        });
    }
    Run r = w.wait(consumed, o.messages, o.max_seconds);
    stop = true;
    for (auto& t : threads) {
        t.join();
    }
    r.complete = r.complete && errors.load() == 0;
    print(o, with_work("real_" + o.mode, o), r, w.mem.base_kb);
    return r.complete ? 0 : 1;
}

/// Same procedure as rmq_bench_consume --mode rebalance, over RemotingTransport (rmq's default intervals).
template <class ConsumerT, class Status>
int run_rebalance_with(const Options& o, Status ok, std::string_view order_name) {
    rmq::RemotingConfig rc;
    rc.namesrv_addr = o.namesrv;
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
    const RebalanceSettings settings{.mode = fmt::format("real_rebalance_{}", order_name),
                                     .topic = o.topic,
                                     .queues = o.queues,
                                     .rate = o.rate,
                                     .rebalance_interval = o.rebalance_interval};
    return rebalance_sequence(settings, rec, make_member, [&] {
        stop = true;
        producer_thread.join();
    });
}

Options parse(int argc, char** argv) {
    Options o;
    Flags()
        .add("--namesrv", o.namesrv)
        .add("--topic", o.topic)
        .add("--mode", o.mode)
        .add("--messages", o.messages)
        .add("--batch", o.batch)
        .add("--threads", o.threads)
        .add("--body", o.body_bytes)
        .add("--queues", o.queues)
        .add("--order", o.order)
        .add("--rate", o.rate)
        .add("--rebalance-interval", o.rebalance_interval)
        .add("--max-seconds", o.max_seconds)
        .add("--work", o.work)
        .add("--group", o.group)
        .add_switch("--trace", [&o] { o.trace = true; })
        .parse(argc, argv);
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options o = parse(argc, argv);
        if (o.mode == "raw") {
            return run_raw(o);
        }
        if (o.mode == "lite_pull") {
            return run_lite_pull(o);
        }
        if (o.mode == "pop" || o.mode == "pop_batch_ack") {
            return run_pop(o);
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
        if (o.mode == "key_orderly") {
            return run_consumer<rmq::Consumer<rmq::KeyOrderly,
                                              rmq::AllocateAveragely,
                                              rmq::RemoteOffsetStore,
                                              rmq::RemotingTransport>>(
                o, rmq::ConsumeOrderlyStatus::Success, "key_orderly");
        }
        if (o.mode == "push_pop_assigned") {
            return run_consumer<rmq::Consumer<rmq::Concurrently,
                                              rmq::AllocateByBroker,
                                              rmq::RemoteOffsetStore,
                                              rmq::RemotingTransport>>(
                o, rmq::ConsumeConcurrentlyStatus::ConsumeSuccess, o.mode);
        }
        if (o.mode == "concurrently" || o.mode == "backlog" || o.mode == "push_pop") {
            return run_consumer<rmq::PushConsumer<rmq::RemotingTransport>>(
                o, rmq::ConsumeConcurrentlyStatus::ConsumeSuccess, o.mode);
        }
        fmt::print(stderr,
                   "usage: {} --namesrv HOST:PORT --topic T --messages N --mode "
                   "concurrently|orderly|key_orderly|raw|backlog|lite_pull|pop|pop_batch_ack|push_pop|"
                   "push_pop_assigned "
                   "[--batch N] "
                   "[--threads N] [--group G] "
                   "[--body BYTES] "
                   "[--max-seconds S] [--work none|sleep1ms|hash100]\n",
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
