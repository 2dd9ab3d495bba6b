package rmq.bench;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

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
 * Java side of the rebalance/handover benchmark (docs/benchmarks.md), same procedure as rmq_bench_consume
 * --mode rebalance: a producer sends RATE msg/s; members A and B consume the topic; C joins; A shuts down. For
 * each event: time until every queue is delivered by its final owner only, time until the members' process
 * queue tables form that partition, duplicated deliveries. Java defaults otherwise (rebalance wait 20 s).
 *
 * <pre>JavaRebalanceBench NAMESRV TOPIC concurrently|orderly RATE</pre>
 */
public final class JavaRebalanceBench {
    private JavaRebalanceBench() {
    }

    record Delivery(int member, int queue, long offset, double t) {
    }

    static final List<Delivery> DELIVERIES = new ArrayList<>();
    static final long T0 = System.nanoTime();

    static double now() {
        return (System.nanoTime() - T0) / 1e9;
    }

    static synchronized void record(int member, List<MessageExt> msgs) {
        double t = now();
        for (MessageExt m : msgs) {
            DELIVERIES.add(new Delivery(member, m.getQueueId(), m.getQueueOffset(), t));
        }
    }

    static synchronized List<Delivery> snapshot() {
        return new ArrayList<>(DELIVERIES);
    }

    static DefaultMQPushConsumer member(String namesrv, String topic, String group, String order, int id)
        throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName("bench-rebalance-" + id + "-" + ProcessHandle.current().pid());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        if (order.equals("orderly")) {
            c.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
                record(id, msgs);
                return ConsumeOrderlyStatus.SUCCESS;
            });
        } else {
            c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                record(id, msgs);
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
        }
        return c;
    }

    /** owner[q] = index into members, or null when the process queue tables are not an exact partition. */
    static int[] partition(List<DefaultMQPushConsumer> members, String topic, int queues) {
        int[] owner = new int[queues];
        java.util.Arrays.fill(owner, -1);
        for (int i = 0; i < members.size(); i++) {
            for (MessageQueue mq : members.get(i).getDefaultMQPushConsumerImpl().getRebalanceImpl()
                .getProcessQueueTable().keySet()) {
                if (!mq.getTopic().equals(topic)) {
                    continue;
                }
                if (owner[mq.getQueueId()] != -1) {
                    return null;
                }
                owner[mq.getQueueId()] = i;
            }
        }
        for (int o : owner) {
            if (o == -1) {
                return null;
            }
        }
        return owner;
    }

    static String observe(List<DefaultMQPushConsumer> members, int[] ids, String topic, int queues, double tEvent,
        Set<String> seen) throws Exception {
        double assignMs = -1;
        double handoverMs = -1;
        boolean complete = false;
        int[] finalOwner = null;
        double start = now();
        while (now() - start < 90) {
            int[] part = partition(members, topic, queues);
            if (part != null && (finalOwner == null || !java.util.Arrays.equals(part, finalOwner))) {
                finalOwner = part;
                assignMs = (now() - tEvent) * 1000;
            }
            if (finalOwner != null) {
                List<Delivery> ds = snapshot();
                double worst = 0;
                boolean all = true;
                for (int q = 0; q < queues && all; q++) {
                    int ownerId = ids[finalOwner[q]];
                    double lastOther = tEvent;
                    for (Delivery d : ds) {
                        if (d.queue() == q && d.t() >= tEvent && d.member() != ownerId) {
                            lastOther = Math.max(lastOther, d.t());
                        }
                    }
                    double first = -1;
                    for (Delivery d : ds) {
                        if (d.queue() == q && d.member() == ownerId && d.t() >= lastOther) {
                            first = d.t();
                            break;
                        }
                    }
                    if (first < 0) {
                        all = false;
                    } else {
                        worst = Math.max(worst, first - tEvent);
                    }
                }
                if (all && now() - tEvent > worst + 1.0) {
                    handoverMs = worst * 1000;
                    complete = true;
                    break;
                }
            }
            Thread.sleep(5);
        }
        long dups = 0;
        for (Delivery d : snapshot()) {
            if (d.t() >= tEvent && !seen.add(d.queue() + ":" + d.offset())) {
                dups++;
            }
        }
        return String.format("{\"assign_ms\":%.1f,\"handover_ms\":%.1f,\"duplicates\":%d,\"complete\":%b}",
            assignMs, handoverMs, dups, complete);
    }

    public static void main(String[] argv) throws Exception {
        String namesrv = argv[0];
        String topic = argv[1];
        String order = argv[2];
        int rate = Integer.parseInt(argv[3]);
        int queues = 8;
        String group = "bench_java_rebalance_" + order + "_" + ProcessHandle.current().pid();
        DefaultMQProducer producer = new DefaultMQProducer("bench_java_rebalance_producer");
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("bench-rebalance-producer-" + ProcessHandle.current().pid());
        producer.start();
        AtomicBoolean stop = new AtomicBoolean();
        byte[] body = new byte[128];
        Thread sender = new Thread(() -> {
            long period = 1_000_000_000L / rate;
            long next = System.nanoTime();
            while (!stop.get()) {
                try {
                    producer.sendOneway(new Message(topic, "TagA", body));
                } catch (Exception e) {
                    // keep the rate; a lost message only thins the traffic
                }
                next += period;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
            }
        });
        sender.start();
        Set<String> seen = new HashSet<>();
        DefaultMQPushConsumer a = member(namesrv, topic, group, order, 0);
        DefaultMQPushConsumer b = member(namesrv, topic, group, order, 1);
        a.start();
        b.start();
        String initial = observe(List.of(a, b), new int[] {0, 1}, topic, queues, now(), seen);
        DefaultMQPushConsumer c = member(namesrv, topic, group, order, 2);
        double tJoin = now();
        c.start();
        String join = observe(List.of(a, b, c), new int[] {0, 1, 2}, topic, queues, tJoin, seen);
        double tLeave = now();
        a.shutdown();
        String leave = observe(List.of(b, c), new int[] {1, 2}, topic, queues, tLeave, seen);
        stop.set(true);
        sender.join();
        b.shutdown();
        c.shutdown();
        producer.shutdown();
        System.out.printf("{\"mode\":\"java_rebalance_%s\",\"queues\":%d,\"rate\":%d,\"rebalance_interval_ms\":20000,"
            + "\"initial\":%s,\"join\":%s,\"leave\":%s,\"deliveries\":%d}%n", order, queues, rate, initial, join, leave,
            snapshot().size());
        System.exit(0);
    }
}
