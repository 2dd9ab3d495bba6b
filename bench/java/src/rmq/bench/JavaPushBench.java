package rmq.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The Java side of rmq's real-broker benchmark (docs/benchmarks.md). One JSON line on stdout per run.
 *
 * <pre>
 * JavaPushBench NAMESRV TOPIC prefill N BODY_BYTES [SENDERS]
 *     N messages, round robin over the topic's queues, batches of 128 from SENDERS threads (default 1)
 * JavaPushBench NAMESRV TOPIC concurrently|orderly|backlog N THREADS BATCH [BODY_BYTES [MAX_SECONDS]]
 *     DefaultMQPushConsumer (fresh group, CONSUME_FROM_FIRST_OFFSET), no-op listener; time until N consumed or
 *     MAX_SECONDS (default 600) pass. backlog: MessageListenerConcurrently with default thresholds, stopped after
 *     MAX_SECONDS (the window). BODY_BYTES only labels the run with what the topic holds.
 * </pre>
 * CPU seconds: the process CPU time (OperatingSystemMXBean) from start() to the last message; peak RSS: VmHWM of
 * the JVM process (the whole process, JIT and heap included).
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
            prefill(namesrv, topic, n, Integer.parseInt(argv[4]), argv.length > 5 ? Integer.parseInt(argv[5]) : 1);
        } else {
            consume(namesrv, topic, mode, n, Integer.parseInt(argv[4]), Integer.parseInt(argv[5]),
                argv.length > 6 ? Integer.parseInt(argv[6]) : 128,
                argv.length > 7 ? Double.parseDouble(argv[7]) : 600.0);
        }
        System.exit(0);
    }

    static void prefill(String namesrv, String topic, long n, int bodyBytes, int senders) throws Exception {
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
                            batch.add(new Message(topic, "TagA", body));
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

    static void consume(String namesrv, String topic, String mode, long n, int threads, int batch, int bodyBytes,
        double maxSeconds) throws Exception {
        AtomicLong consumed = new AtomicLong();
        String group = "bench_java_" + mode + "_" + ProcessHandle.current().pid();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName("bench-" + ProcessHandle.current().pid());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setConsumeThreadMin(threads);
        consumer.setConsumeThreadMax(threads);
        consumer.setConsumeMessageBatchMaxSize(batch);
        consumer.subscribe(topic, "*");
        if (mode.equals("orderly")) {
            consumer.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
                consumed.addAndGet(msgs.size());
                return ConsumeOrderlyStatus.SUCCESS;
            });
        } else {
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                consumed.addAndGet(msgs.size());
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
        }
        long baseKb = statusKb("VmRSS");
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        consumer.start();
        boolean complete = true;
        while (consumed.get() < n) {
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
        consumer.shutdown();
        String label = mode.equals("orderly") || mode.equals("backlog") ? mode : "concurrently_b" + batch;
        System.out.printf("{\"mode\":\"java_%s\",\"messages\":%d,\"threads\":%d,\"batch\":%d,\"body_bytes\":%d,"
                + "\"consumed\":%d,"
                + "\"complete\":%b,\"seconds\":%.4f,\"msgs_per_s\":%.1f,\"cpu_s\":%.4f,\"cpu_s_per_million\":%.4f,"
                + "\"peak_rss_mb\":%.1f,\"base_rss_mb\":%.1f}%n",
            label, n, threads, batch, bodyBytes, c, complete, s,
            c / s, cpu, cpu * 1e6 / Math.max(c, 1), peakKb / 1024.0, baseKb / 1024.0);
    }
}
