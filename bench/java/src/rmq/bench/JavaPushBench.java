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
 * JavaPushBench NAMESRV TOPIC prefill N BODY_BYTES      N messages, round robin over the topic's queues (batches of 32)
 * JavaPushBench NAMESRV TOPIC concurrently|orderly N THREADS BATCH
 *     DefaultMQPushConsumer (fresh group, CONSUME_FROM_FIRST_OFFSET), no-op listener; time until N consumed
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
            prefill(namesrv, topic, n, Integer.parseInt(argv[4]));
        } else {
            consume(namesrv, topic, mode, n, Integer.parseInt(argv[4]), Integer.parseInt(argv[5]));
        }
        System.exit(0);
    }

    static void prefill(String namesrv, String topic, long n, int bodyBytes) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("bench_java_producer");
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("bench-prefill-" + ProcessHandle.current().pid());
        producer.start();
        List<MessageQueue> mqs = producer.fetchPublishMessageQueues(topic);
        mqs.sort(null);
        byte[] body = new byte[bodyBytes];
        Arrays.fill(body, (byte) 'x');
        long t0 = System.nanoTime();
        long sent = 0;
        int q = 0;
        while (sent < n) {
            int size = (int) Math.min(32, n - sent);
            List<Message> batch = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                batch.add(new Message(topic, "TagA", body));
            }
            producer.send(batch, mqs.get(q));
            q = (q + 1) % mqs.size();
            sent += size;
        }
        double s = (System.nanoTime() - t0) / 1e9;
        producer.shutdown();
        System.out.printf("{\"mode\":\"java_prefill\",\"messages\":%d,\"queues\":%d,\"seconds\":%.3f}%n", n,
            mqs.size(), s);
    }

    static void consume(String namesrv, String topic, String mode, long n, int threads, int batch)
        throws Exception {
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
            if (System.nanoTime() - t0 > 600_000_000_000L) {
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
        System.out.printf("{\"mode\":\"java_%s\",\"messages\":%d,\"threads\":%d,\"batch\":%d,\"consumed\":%d,"
                + "\"complete\":%b,\"seconds\":%.4f,\"msgs_per_s\":%.1f,\"cpu_s\":%.4f,\"cpu_s_per_million\":%.4f,"
                + "\"peak_rss_mb\":%.1f,\"base_rss_mb\":%.1f}%n",
            mode.equals("orderly") ? "orderly" : "concurrently_b" + batch, n, threads, batch, c, complete, s,
            c / s, cpu, cpu * 1e6 / Math.max(c, 1), peakKb / 1024.0, baseKb / 1024.0);
    }
}
