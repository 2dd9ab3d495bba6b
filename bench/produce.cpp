// rmq_bench_produce: rmq::Producer against a real Apache RocketMQ broker (docs/benchmarks.md), beside
// bench/java's JavaProduceBench, which sends the same way with DefaultMQProducer. One JSON object per run on
// stdout. tools/bench.sh --producer runs both, interleaved.
//
//   rmq_bench_produce --namesrv HOST:PORT --topic T --mode sync|async|async_queue|batch|oneway --messages N
//   --body BYTES
//                     [--inflight N] [--batch N] [--max-seconds S]
//
// sync: one thread, send() after send(). async: one thread calling send_async() with at most --inflight
// (1024) sends unanswered (a counting semaphore of the benchmark's own, as JavaProduceBench has: the
// producer's back-pressure bound is 10000 and Java's is off by default). async_queue: as async, with
// send_async(msg, queue) over the topic's write queues in turn. batch: one thread, send() of --batch
// (32) messages at a time. oneway: one thread, send_oneway() after send_oneway(), a message counted once the
// call returned (the broker's answer is never read; with the in-flight bound,
// back_pressure_for_async_send_num, a oneway send still on a producer thread holds the caller back). Every
// message is TagA with a body of BYTES 'x'; the producer picks the queues. CPU seconds and peak RSS (VmHWM,
// reset when the run starts) are the whole process's; the steady part starts once a fifth of N was
// acknowledged.

#if __has_include(<rmq/transport/remoting.hpp>)

#    include <atomic>
#    include <cstdint>
#    include <cstdio>
#    include <exception>
#    include <semaphore>
#    include <stdexcept>
#    include <string>
#    include <string_view>
#    include <thread>
#    include <vector>

#    include "support.hpp"
#    include <unistd.h>

#    include <fmt/format.h>

#    include <rmq/producer.hpp>
#    include <rmq/transport/remoting.hpp>

namespace {

using namespace rmq_bench;  // NOLINT(google-build-using-namespace): the harness of every bench program
using Producer = rmq::Producer<rmq::RemotingTransport>;

struct Options {
    std::string namesrv = "127.0.0.1:9876";
    std::string topic = "BenchProduce";
    std::string mode;
    std::int64_t messages = 200'000;
    int body_bytes = 128;
    int inflight = 1024;
    int batch = 32;
    double max_seconds = 600;
};

/// Counts acknowledged messages; `failed` counts those a send reported lost.
struct Counters {
    std::atomic<std::int64_t> acked{0};
    std::atomic<std::int64_t> failed{0};
};

void send_sync(Producer& p, const Options& o, Counters& c) {
    const rmq::Message msg(o.topic, "TagA", std::string(static_cast<std::size_t>(o.body_bytes), 'x'));
    for (std::int64_t i = 0; i < o.messages; ++i) {
        try {
            (void)p.send(msg);
        } catch (const std::exception&) {
            c.failed.fetch_add(1, std::memory_order_relaxed);
        }
        c.acked.fetch_add(1, std::memory_order_relaxed);
    }
}

/// async: send_async(msg); async_queue: send_async(msg, queue), the caller going round the topic's write
/// queues itself (as an application that picks its queues does).
void send_async(Producer& p, const Options& o, Counters& c, const std::vector<rmq::MessageQueue>& queues) {
    const rmq::Message msg(o.topic, "TagA", std::string(static_cast<std::size_t>(o.body_bytes), 'x'));
    std::counting_semaphore<> slots(o.inflight);
    const auto done = [&](const rmq::SendResult&) {
        c.acked.fetch_add(1, std::memory_order_relaxed);
        slots.release();
    };
    const auto failed = [&](const std::exception_ptr&) {
        c.failed.fetch_add(1, std::memory_order_relaxed);
        c.acked.fetch_add(1, std::memory_order_relaxed);
        slots.release();
    };
    for (std::int64_t i = 0; i < o.messages; ++i) {
        slots.acquire();
        if (!queues.empty()) {
            p.send_async(msg, queues[static_cast<std::size_t>(i) % queues.size()], done, failed);
            continue;
        }
        p.send_async(
            msg,
            [&](const rmq::SendResult&) {
                c.acked.fetch_add(1, std::memory_order_relaxed);
                slots.release();
            },
            [&](const std::exception_ptr&) {
                c.failed.fetch_add(1, std::memory_order_relaxed);
                c.acked.fetch_add(1, std::memory_order_relaxed);
                slots.release();
            });
    }
}

void send_oneway(Producer& p, const Options& o, Counters& c) {
    const rmq::Message msg(o.topic, "TagA", std::string(static_cast<std::size_t>(o.body_bytes), 'x'));
    for (std::int64_t i = 0; i < o.messages; ++i) {
        try {
            p.send_oneway(msg);
        } catch (const std::exception&) {
            c.failed.fetch_add(1, std::memory_order_relaxed);
        }
        c.acked.fetch_add(1, std::memory_order_relaxed);
    }
}

void send_batches(Producer& p, const Options& o, Counters& c) {
    const std::string body(static_cast<std::size_t>(o.body_bytes), 'x');
    std::vector<rmq::Message> batch(static_cast<std::size_t>(o.batch), rmq::Message(o.topic, "TagA", body));
    for (std::int64_t sent = 0; sent < o.messages; sent += o.batch) {
        const auto n = static_cast<std::size_t>(std::min<std::int64_t>(o.batch, o.messages - sent));
        try {
            (void)p.send(std::span<const rmq::Message>(batch.data(), n));
        } catch (const std::exception&) {
            c.failed.fetch_add(static_cast<std::int64_t>(n), std::memory_order_relaxed);
        }
        c.acked.fetch_add(static_cast<std::int64_t>(n), std::memory_order_relaxed);
    }
}

int run(const Options& o) {
    rmq::RemotingConfig rc;
    rc.namesrv_addr = o.namesrv;
    rc.send_msg_timeout = 30'000;
    Producer producer(
        rmq::RemotingTransport{rc},
        rmq::ProducerConfig{.producer_group = fmt::format("bench_rmq_producer_{}", ::getpid())});
    producer.start();
    {
        // Routes and connections before the window, as JavaProduceBench warms them.
        (void)producer.send(rmq::Message(o.topic, "TagA", std::string("warm-up")));
    }
    std::vector<rmq::MessageQueue> queues;
    if (o.mode == "async_queue") {
        rmq::RemotingTransport t{rc};
        queues = t.topic_route(o.topic).write_queues;
    }
    Counters c;
    Window w;
    w.start();
    std::thread sender([&] {
        if (o.mode == "sync") {
            send_sync(producer, o, c);
        } else if (o.mode == "async" || o.mode == "async_queue") {
            send_async(producer, o, c, queues);
        } else if (o.mode == "oneway") {
            send_oneway(producer, o, c);
        } else {
            send_batches(producer, o, c);
        }
    });
    const Run r = w.wait(c.acked, o.messages, o.max_seconds);
    sender.join();
    fmt::print(
        "{{\"mode\":\"real_produce_{}\",\"messages\":{},\"body_bytes\":{},\"inflight\":{},\"batch\":{},"
        "{},\"failed\":{},\"peak_rss_mb\":{:.1f},\"base_rss_mb\":{:.1f}}}\n",
        o.mode,
        o.messages,
        o.body_bytes,
        o.mode.starts_with("async") ? o.inflight : 1,
        o.mode == "batch" ? o.batch : 1,
        run_fields(r),
        c.failed.load(),
        mb(proc_status_kb("VmHWM")),
        mb(w.mem.base_kb));
    std::fflush(stdout);
    producer.shutdown();
    return r.complete && c.failed.load() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    try {
        Flags()
            .add("--namesrv", o.namesrv)
            .add("--topic", o.topic)
            .add("--mode", o.mode)
            .add("--messages", o.messages)
            .add("--body", o.body_bytes)
            .add("--inflight", o.inflight)
            .add("--batch", o.batch)
            .add("--max-seconds", o.max_seconds)
            .parse(argc, argv);
        if (o.mode != "sync" && o.mode != "async" && o.mode != "async_queue" && o.mode != "batch" &&
            o.mode != "oneway") {
            throw std::invalid_argument("--mode sync|async|async_queue|batch|oneway");
        }
        if (o.messages <= 0 || o.body_bytes <= 0 || o.inflight <= 0 || o.batch <= 0) {
            throw std::invalid_argument("--messages, --body, --inflight and --batch must be positive");
        }
        return run(o);
    } catch (const std::exception& e) {
        fmt::print(stderr, "rmq_bench_produce: {}\n", e.what());
        return 2;
    }
}

#else

#    include <cstdio>

int main() {
    std::fputs("rmq_bench_produce: rmq::RemotingTransport is not available in this build\n", stderr);
    return 2;
}

#endif
