package rmq.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;

/**
 * The Java side of rmq's producer benchmark (docs/benchmarks.md), sending as rmq_bench_produce does. One JSON
 * line on stdout.
 *
 * <pre>
 * JavaProduceBench NAMESRV TOPIC sync|async|batch|oneway N BODY_BYTES [INFLIGHT [BATCH]]
 *     sync: one thread, send() after send(). async: one thread calling send(msg, callback) with at most
 *     INFLIGHT (1024) unanswered (a semaphore of the benchmark's own; DefaultMQProducer's back-pressure is off by
 *     default). batch: one thread, send(Collection) of BATCH (32) messages at a time. oneway: one thread,
 *     sendOneway() after sendOneway(), a message counted once the call returned. Messages are TagA with a
 *     body of BODY_BYTES 'x'; the producer picks the queues.
 * </pre>
 * CPU seconds: the process CPU time from the first measured send to the last acknowledgement; peak RSS: VmHWM of
 * the JVM process. The steady part starts once a fifth of N was acknowledged (the JIT has compiled the hot paths
 * by then).
 */
public final class JavaProduceBench {
    private JavaProduceBench() {
    }

    public static void main(String[] argv) throws Exception {
        System.setProperty("rocketmq.client.logUseSlf4j", "false");
        String namesrv = argv[0];
        String topic = argv[1];
        String mode = argv[2];
        long n = Long.parseLong(argv[3]);
        int bodyBytes = Integer.parseInt(argv[4]);
        int inflight = argv.length > 5 ? Integer.parseInt(argv[5]) : 1024;
        int batchSize = argv.length > 6 ? Integer.parseInt(argv[6]) : 32;
        if (!mode.equals("sync") && !mode.equals("async") && !mode.equals("batch") && !mode.equals("oneway")) {
            throw new IllegalArgumentException("mode must be sync, async, batch or oneway, not " + mode);
        }
        DefaultMQProducer producer = new DefaultMQProducer("bench_java_producer_" + ProcessHandle.current().pid());
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("bench-produce-" + ProcessHandle.current().pid());
        producer.setSendMsgTimeout(30_000);
        producer.start();
        producer.send(new Message(topic, "TagA", "warm-up".getBytes()));  // routes and connections first

        byte[] body = new byte[bodyBytes];
        Arrays.fill(body, (byte) 'x');
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        Thread sender = new Thread(() -> {
            try {
                if (mode.equals("sync") || mode.equals("oneway")) {
                    boolean oneway = mode.equals("oneway");
                    for (long i = 0; i < n; i++) {
                        try {
                            Message m = new Message(topic, "TagA", body);
                            if (oneway) {
                                producer.sendOneway(m);
                            } else {
                                producer.send(m);
                            }
                        } catch (Exception e) {
                            failed.incrementAndGet();
                        }
                        acked.incrementAndGet();
                    }
                } else if (mode.equals("async")) {
                    Semaphore slots = new Semaphore(inflight);
                    SendCallback cb = new SendCallback() {
                        @Override
                        public void onSuccess(SendResult r) {
                            acked.incrementAndGet();
                            slots.release();
                        }

                        @Override
                        public void onException(Throwable e) {
                            failed.incrementAndGet();
                            acked.incrementAndGet();
                            slots.release();
                        }
                    };
                    for (long i = 0; i < n; i++) {
                        slots.acquire();
                        producer.send(new Message(topic, "TagA", body), cb);
                    }
                } else {
                    for (long sent = 0; sent < n; sent += batchSize) {
                        int size = (int) Math.min(batchSize, n - sent);
                        List<Message> batch = new ArrayList<>(size);
                        for (int i = 0; i < size; i++) {
                            batch.add(new Message(topic, "TagA", body));
                        }
                        try {
                            producer.send(batch);
                        } catch (Exception e) {
                            failed.addAndGet(size);
                        }
                        acked.addAndGet(size);
                    }
                }
            } catch (Exception e) {
                e.printStackTrace();
                failed.incrementAndGet();
            }
        });
        long baseKb = JavaPushBench.statusKb("VmRSS");
        long cpu0 = JavaPushBench.cpuNanos();
        long t0 = System.nanoTime();
        sender.start();
        double warmS = -1;
        double warmCpu = 0;
        long warmCount = 0;
        boolean complete = true;
        for (;;) {
            long c = acked.get();
            if (warmS < 0 && n / 5 > 0 && c >= n / 5) {
                warmS = (System.nanoTime() - t0) / 1e9;
                warmCpu = (JavaPushBench.cpuNanos() - cpu0) / 1e9;
                warmCount = c;
            }
            if (c >= n) {
                break;
            }
            if (System.nanoTime() - t0 > 600_000_000_000L) {
                complete = false;
                break;
            }
            Thread.sleep(0, 500_000);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        double cpu = (JavaPushBench.cpuNanos() - cpu0) / 1e9;
        long peakKb = JavaPushBench.statusKb("VmHWM");
        long c = acked.get();
        sender.join();
        producer.shutdown();
        String steady = "";
        if (warmS >= 0 && complete && c > warmCount && s > warmS) {
            steady = String.format(",\"steady_msgs_per_s\":%.1f,\"steady_cpu_s_per_million\":%.4f",
                (c - warmCount) / (s - warmS), (cpu - warmCpu) * 1e6 / (c - warmCount));
        }
        System.out.printf("{\"mode\":\"java_produce_%s\",\"messages\":%d,\"body_bytes\":%d,\"inflight\":%d,"
                + "\"batch\":%d,\"consumed\":%d,\"complete\":%b,\"seconds\":%.4f,\"msgs_per_s\":%.1f,\"cpu_s\":%.4f,"
                + "\"cpu_s_per_million\":%.4f%s,\"failed\":%d,\"peak_rss_mb\":%.1f,\"base_rss_mb\":%.1f}%n",
            mode, n, bodyBytes, mode.equals("async") ? inflight : 1, mode.equals("batch") ? batchSize : 1, c,
            complete, s, c / s, cpu, cpu * 1e6 / Math.max(c, 1), steady, failed.get(), peakKb / 1024.0,
            baseKb / 1024.0);
        System.exit(failed.get() == 0 && complete ? 0 : 1);
    }
}
