package rmq.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The Java side of rmq's real-broker benchmark (docs/benchmarks.md). One JSON line on stdout per run.
 *
 * <pre>
 * JavaPushBench NAMESRV TOPIC prefill N BODY_BYTES [SENDERS [KEYS]]
 *     N messages, round robin over the topic's queues, batches of 128 from SENDERS threads (default 1); with
 *     KEYS > 0 message i has the key "k" + (i % KEYS) (for rmq::KeyOrderly)
 * JavaPushBench NAMESRV TOPIC concurrently|orderly|backlog|lite_pull|pop N THREADS BATCH
 *               [BODY_BYTES [MAX_SECONDS [WORK]]]
 *     DefaultMQPushConsumer (fresh group, CONSUME_FROM_FIRST_OFFSET), a listener that counts; time until N
 *     consumed or MAX_SECONDS (default 600) pass. backlog: MessageListenerConcurrently with default thresholds,
 *     stopped after MAX_SECONDS (the window). BODY_BYTES only labels the run with what the topic holds. WORK:
 *     none (default), sleep1ms (1 ms per call: a listener waiting on I/O) or hash100 (per message 100 rounds of
 *     FNV-1a over the body), the same work as rmq_bench_real_broker --work.
 *     lite_pull: DefaultLitePullConsumer (subscribe, auto-commit, pullBatchSize 32), one thread polling, WORK per
 *     polled batch. pop: DefaultMQPushConsumer with clientRebalance false, so that it takes its queues from the
 *     broker (QUERY_ASSIGNMENT), and pops them when the group's consume mode is POP: the caller runs
 *     `mqadmin setConsumeMode -m POP` for the group first, named by -Drmq.bench.group=GROUP (the group of every
 *     mode when set).
 * </pre>
 * CPU seconds: the process CPU time (OperatingSystemMXBean) from start() to the last message; peak RSS: VmHWM of
 * the JVM process (the whole process, JIT and heap included). The steady part starts once a fifth of N was
 * consumed (the JIT has compiled the hot paths by then); the cold start is the time to the first 100,000.
 */
public final class JavaPushBench {
    private JavaPushBench() {
    }

    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    }

    static long statusKb(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
                }
            }
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }

    public static void main(String[] argv) throws Exception {
        System.setProperty("rocketmq.client.logUseSlf4j", "false");
        String namesrv = argv[0];
        String topic = argv[1];
        String mode = argv[2];
        long n = Long.parseLong(argv[3]);
        if (mode.equals("prefill")) {
            prefill(namesrv, topic, n, Integer.parseInt(argv[4]), argv.length > 5 ? Integer.parseInt(argv[5]) : 1,
                argv.length > 6 ? Integer.parseInt(argv[6]) : 0);
        } else {
            consume(namesrv, topic, mode, n, Integer.parseInt(argv[4]), Integer.parseInt(argv[5]),
                argv.length > 6 ? Integer.parseInt(argv[6]) : 128,
                argv.length > 7 ? Double.parseDouble(argv[7]) : 600.0,
                argv.length > 8 ? argv[8] : "none");
        }
        System.exit(0);
    }

    static void prefill(String namesrv, String topic, long n, int bodyBytes, int senders, int keys)
        throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("bench_java_producer");
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("bench-prefill-" + ProcessHandle.current().pid());
        producer.setSendMsgTimeout(30_000);
        producer.start();
        List<MessageQueue> mqs = producer.fetchPublishMessageQueues(topic);
        mqs.sort(null);
        byte[] body = new byte[bodyBytes];
        Arrays.fill(body, (byte) 'x');
        AtomicLong next = new AtomicLong();
        AtomicLong batchNo = new AtomicLong();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        // Several senders keep the broker's commit log busy while one waits for its reply: the 5,000,000
        // message backlog is filled in minutes instead of tens of minutes.
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < senders; t++) {
            Thread th = new Thread(() -> {
                try {
                    for (;;) {
                        long first = next.getAndAdd(128);
                        if (first >= n) {
                            return;
                        }
                        int size = (int) Math.min(128, n - first);
                        List<Message> batch = new ArrayList<>(size);
                        for (int i = 0; i < size; i++) {
                            batch.add(keys > 0 ? new Message(topic, "TagA", "k" + ((first + i) % keys), body)
                                : new Message(topic, "TagA", body));
                        }
                        producer.send(batch, mqs.get((int) (batchNo.getAndIncrement() % mqs.size())));
                        long done = first + size;
                        if (n >= 1_000_000 && done % 1_000_000 < size) {
                            System.err.printf("  prefill %s: %,d messages (%.0f s)%n", topic, done,
                                (System.nanoTime() - t0) / 1e9);
                        }
                    }
                } catch (Exception e) {
                    errors.add(e);
                }
            });
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) {
            th.join();
        }
        double s = (System.nanoTime() - t0) / 1e9;
        producer.shutdown();
        if (!errors.isEmpty()) {
            throw new IllegalStateException("prefill failed", errors.get(0));
        }
        System.out.printf("{\"mode\":\"java_prefill\",\"topic\":\"%s\",\"messages\":%d,\"body_bytes\":%d,"
            + "\"queues\":%d,\"senders\":%d,\"seconds\":%.3f}%n", topic, n, bodyBytes, mqs.size(), senders, s);
    }

    /** 64-bit FNV-1a of the body, 100 times over: rmq_bench_real_broker's hash100. */
    static long hash100(byte[] body) {
        long h = 0xcbf29ce484222325L;
        for (int round = 0; round < 100; round++) {
            for (byte b : body) {
                h ^= (b & 0xff);
                h *= 0x100000001b3L;
            }
        }
        return h;
    }

    static final AtomicLong SINK = new AtomicLong();

    static void work(String kind, List<MessageExt> msgs) {
        if (kind.equals("sleep1ms")) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else if (kind.equals("hash100")) {
            long h = 0;
            for (MessageExt m : msgs) {
                h ^= hash100(m.getBody());
            }
            SINK.getAndAccumulate(h, (a, b) -> a ^ b);  // keeps the hashing from being optimised away
        }
    }

    static void consume(String namesrv, String topic, String mode, long n, int threads, int batch, int bodyBytes,
        double maxSeconds, String workKind) throws Exception {
        if (!workKind.equals("none") && !workKind.equals("sleep1ms") && !workKind.equals("hash100")) {
            throw new IllegalArgumentException("WORK must be none, sleep1ms or hash100, not " + workKind);
        }
        AtomicLong consumed = new AtomicLong();
        String group =
            System.getProperty("rmq.bench.group", "bench_java_" + mode + "_" + ProcessHandle.current().pid());
        if (mode.equals("lite_pull")) {
            consumeLitePull(namesrv, topic, group, n, threads, batch, bodyBytes, maxSeconds, workKind);
            return;
        }
        // -Drmq.bench.trace=true: Java's message trace (enableMsgTrace), as rmq_bench_real_broker --trace
        boolean trace = Boolean.getBoolean("rmq.bench.trace");
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group, trace, null);
        if (mode.equals("pop")) {
            consumer.setClientRebalance(false);
        }
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName("bench-" + ProcessHandle.current().pid());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setConsumeThreadMin(threads);
        consumer.setConsumeThreadMax(threads);
        consumer.setConsumeMessageBatchMaxSize(batch);
        consumer.subscribe(topic, "*");
        if (mode.equals("orderly")) {
            consumer.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
                work(workKind, msgs);
                consumed.addAndGet(msgs.size());
                return ConsumeOrderlyStatus.SUCCESS;
            });
        } else {
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                work(workKind, msgs);
                consumed.addAndGet(msgs.size());
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
        }
        measure(mode, n, threads, batch, bodyBytes, maxSeconds, workKind, consumed, consumer::start,
            consumer::shutdown);
    }

    interface Step {
        void run() throws Exception;
    }

    /** Starts, waits until N were consumed or MAX_SECONDS passed, stops, prints the run's JSON line. */
    static void measure(String mode, long n, int threads, int batch, int bodyBytes, double maxSeconds,
        String workKind, AtomicLong consumed, Step start, Step stop) throws Exception {
        long baseKb = statusKb("VmRSS");
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        start.run();
        boolean complete = true;
        double first100k = -1;
        double warmS = -1;
        double warmCpu = 0;
        long warmCount = 0;
        for (;;) {
            long c = consumed.get();
            if (first100k < 0 && c >= 100_000) {
                first100k = (System.nanoTime() - t0) / 1e9;
            }
            if (warmS < 0 && n / 5 > 0 && c >= n / 5) {
                warmS = (System.nanoTime() - t0) / 1e9;
                warmCpu = (cpuNanos() - cpu0) / 1e9;
                warmCount = c;
            }
            if (c >= n) {
                break;
            }
            if (System.nanoTime() - t0 > (long) (maxSeconds * 1e9)) {
                complete = false;
                break;
            }
            Thread.sleep(0, 500_000);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        double cpu = (cpuNanos() - cpu0) / 1e9;
        long peakKb = statusKb("VmHWM");
        long c = consumed.get();
        stop.run();
        String label = (mode.equals("concurrently") ? "concurrently_b" + batch : mode)
            + (workKind.equals("none") ? "" : "_" + workKind) + (Boolean.getBoolean("rmq.bench.trace") ? "_trace" : "");
        StringBuilder extra = new StringBuilder();
        if (first100k >= 0) {
            extra.append(String.format(",\"first_100k_s\":%.4f", first100k));
        }
        if (warmS >= 0 && complete && c > warmCount && s > warmS) {
            extra.append(String.format(",\"steady_msgs_per_s\":%.1f,\"steady_cpu_s_per_million\":%.4f",
                (c - warmCount) / (s - warmS), (cpu - warmCpu) * 1e6 / (c - warmCount)));
        }
        System.out.printf("{\"mode\":\"java_%s\",\"messages\":%d,\"threads\":%d,\"batch\":%d,\"body_bytes\":%d,"
                + "\"consumed\":%d,"
                + "\"complete\":%b,\"seconds\":%.4f,\"msgs_per_s\":%.1f,\"cpu_s\":%.4f,\"cpu_s_per_million\":%.4f,"
                + "\"peak_rss_mb\":%.1f,\"base_rss_mb\":%.1f%s}%n",
            label, n, threads, batch, bodyBytes, c, complete, s,
            c / s, cpu, cpu * 1e6 / Math.max(c, 1), peakKb / 1024.0, baseKb / 1024.0, extra);
    }

    /** DefaultLitePullConsumer from the first offset, one thread polling (auto-commit), WORK per polled batch. */
    static void consumeLitePull(String namesrv, String topic, String group, long n, int threads, int batch,
        int bodyBytes, double maxSeconds, String workKind) throws Exception {
        AtomicLong consumed = new AtomicLong();
        DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName("bench-" + ProcessHandle.current().pid());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setPullBatchSize(32);
        consumer.subscribe(topic, "*");
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread poller = new Thread(() -> {
            while (!stop.get()) {
                List<MessageExt> msgs = consumer.poll(200);
                work(workKind, msgs);
                consumed.addAndGet(msgs.size());
            }
        });
        measure("lite_pull", n, threads, batch, bodyBytes, maxSeconds, workKind, consumed, () -> {
            consumer.start();
            poller.start();
        }, () -> {
            stop.set(true);
            poller.join();
            consumer.shutdown();
        });
    }
}
