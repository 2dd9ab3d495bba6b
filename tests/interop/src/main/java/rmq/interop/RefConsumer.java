package rmq.interop;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Reference consumer: a DefaultMQPushConsumer (cluster mode) that prints one JSON line per delivered message on
 * stdout and exits once EXPECTED distinct messages were consumed successfully, or after TIMEOUT seconds.
 *
 * <pre>
 * RefConsumer NAMESRV GROUP TOPIC EXPRESSION concurrently|orderly EXPECTED TIMEOUT_S [options]
 *   EXPRESSION            tag expression ("*", "TagA || TagB"); with --sql an SQL92 expression
 *   --sql                 EXPRESSION is SQL92 (broker needs enablePropertyFilter=true)
 *   --from first|last|timestamp:yyyyMMddHHmmss    (first)
 *   --fail-times N        answer RECONSUME_LATER (orderly: SUSPEND_CURRENT_QUEUE_A_MOMENT) while the
 *                         message's reconsumeTimes &lt; N
 *   --max-reconsume-times N   (Java default: 16 concurrently, unlimited orderly)
 *   --suspend-ms MS       orderly suspend time (Java default 1000)
 *   --delay-level-when-next L concurrently: context.setDelayLevelWhenNextConsume (0: broker decides)
 *   --count distinct|all  what counts towards EXPECTED: distinct msgIds consumed OK (default) or every delivery
 *   --linger-ms MS        keep consuming (and printing) this long after EXPECTED was reached (catch duplicates)
 *   --consume-sleep-ms MS pause inside the listener (slow consumer)
 *   --threads N           consume thread pool size   --batch N   consumeMessageBatchMaxSize (1)
 *   --instance NAME       client instance name (default ref-consumer-PID)
 *   --poll-namesrv-ms MS  route refresh period (Java default 30000); a retry topic created by the first
 *                         send-back is only pulled after the next refresh, so retry tests want ~2000
 *   --pop                 (5.x) setClientRebalance(false): the broker assigns the queues (QUERY_ASSIGNMENT), and
 *                         when the group's consume mode is POP (mqadmin setConsumeMode -m POP, set before the
 *                         start) the consumer pops and acks instead of pulling
 *                         (ConsumeMessagePopConcurrentlyService); without POP mode it pulls what the broker assigned
 * </pre>
 * EXPECTED &lt;= 0: consume until the timeout and exit 0. Exit status: 0 done, 2 timeout before EXPECTED, 1 error.
 * Output line: msgId (UNIQ_KEY), offsetMsgId, topic, brokerName, queueId, queueOffset, commitLogOffset, tags, keys,
 * properties (all), bodyLen, bodySha256 (of the decompressed body), reconsumeTimes, bornTimestamp,
 * storeTimestamp, bornHost, storeHost, sysFlag, result ("ok" | "later"), thread, receivedAt.
 */
public final class RefConsumer {
    private static final List<String> FLAGS = List.of("sql", "pop");
    private static final List<String> KNOWN = List.of("sql", "from", "fail-times", "max-reconsume-times",
        "suspend-ms", "delay-level-when-next", "count", "linger-ms", "consume-sleep-ms", "threads", "batch",
        "instance", "poll-namesrv-ms", "pop");

    private RefConsumer() {
    }

    public static void main(String[] argv) throws Exception {
        Peer.init("consumer");
        Peer.Args a;
        try {
            a = new Peer.Args(argv, FLAGS);
            a.allowOnly(KNOWN);
            if (a.positional.size() != 7) {
                throw new IllegalArgumentException(
                    "expected NAMESRV GROUP TOPIC EXPRESSION concurrently|orderly EXPECTED TIMEOUT_S");
            }
        } catch (IllegalArgumentException e) {
            Peer.log("RefConsumer: %s\nusage: RefConsumer NAMESRV GROUP TOPIC EXPRESSION concurrently|orderly "
                + "EXPECTED TIMEOUT_S [options] (see RefConsumer.java)", e.getMessage());
            System.exit(64);
            return;
        }
        System.exit(run(a));
    }

    private static int run(Peer.Args a) throws Exception {
        String namesrv = a.positional.get(0);
        String group = a.positional.get(1);
        String topic = a.positional.get(2);
        String expression = a.positional.get(3);
        String mode = a.positional.get(4);
        int expected = Integer.parseInt(a.positional.get(5));
        long timeoutMs = Long.parseLong(a.positional.get(6)) * 1000;
        if (!mode.equals("concurrently") && !mode.equals("orderly")) {
            throw new IllegalArgumentException("mode must be concurrently or orderly, got " + mode);
        }
        int failTimes = a.getInt("fail-times", 0);
        boolean countAll = a.get("count", "distinct").equals("all");
        long sleepMs = a.getLong("consume-sleep-ms", 0);
        int delayWhenNext = a.getInt("delay-level-when-next", 0);

        // (group, hook) is 5.x only; this constructor exists in 4.9.x too
        DefaultMQPushConsumer consumer =
            new DefaultMQPushConsumer(group, Peer.aclHook(), new AllocateMessageQueueAveragely());
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName(a.get("instance", "ref-consumer-" + ProcessHandle.current().pid()));
        consumer.setVipChannelEnabled(false);
        if (a.has("pop")) {
            // RebalancePushImpl.clientRebalance: false only for a Concurrently, clustering consumer with this off.
            // Reflection: the peer also builds against the 4.9.x client, which has no such setter.
            DefaultMQPushConsumer.class.getMethod("setClientRebalance", boolean.class).invoke(consumer, false);
        }
        String from = a.get("from", "first");
        if (from.equals("first")) {
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        } else if (from.equals("last")) {
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
        } else if (from.startsWith("timestamp:")) {
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_TIMESTAMP);
            consumer.setConsumeTimestamp(from.substring(10));
        } else {
            throw new IllegalArgumentException("--from first|last|timestamp:yyyyMMddHHmmss");
        }
        if (a.has("max-reconsume-times")) {
            consumer.setMaxReconsumeTimes(a.getInt("max-reconsume-times", 16));
        }
        if (a.has("suspend-ms")) {
            consumer.setSuspendCurrentQueueTimeMillis(a.getLong("suspend-ms", 1000));
        }
        if (a.has("threads")) {
            int n = a.getInt("threads", 20);
            consumer.setConsumeThreadMin(n);
            consumer.setConsumeThreadMax(n);
        }
        consumer.setConsumeMessageBatchMaxSize(a.getInt("batch", 1));
        if (a.has("poll-namesrv-ms")) {
            consumer.setPollNameServerInterval(a.getInt("poll-namesrv-ms", 30000));
        }
        if (a.has("sql")) {
            consumer.subscribe(topic, MessageSelector.bySql(expression));
        } else {
            consumer.subscribe(topic, expression);
        }

        Set<String> done = ConcurrentHashMap.newKeySet();
        AtomicInteger deliveries = new AtomicInteger();
        Object reached = new Object();
        // Counts what the listener accepted; notifies the main thread when EXPECTED is reached.
        Counter counter = (msg, accepted) -> {
            int n = deliveries.incrementAndGet();
            if (accepted) {
                done.add(msg.getMsgId());
            }
            int progress = countAll ? n : done.size();
            if (expected > 0 && progress >= expected) {
                synchronized (reached) {
                    reached.notifyAll();
                }
            }
        };

        if (mode.equals("concurrently")) {
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                boolean ok = msgs.stream().allMatch(m -> m.getReconsumeTimes() >= failTimes);
                sleep(sleepMs);
                for (MessageExt m : msgs) {
                    Peer.emit(line(m, ok));
                    counter.record(m, ok);
                }
                if (!ok && delayWhenNext != 0) {
                    ctx.setDelayLevelWhenNextConsume(delayWhenNext);
                }
                return ok ? ConsumeConcurrentlyStatus.CONSUME_SUCCESS : ConsumeConcurrentlyStatus.RECONSUME_LATER;
            });
        } else {
            consumer.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
                boolean ok = msgs.stream().allMatch(m -> m.getReconsumeTimes() >= failTimes);
                sleep(sleepMs);
                for (MessageExt m : msgs) {
                    Peer.emit(line(m, ok));
                    counter.record(m, ok);
                }
                return ok ? ConsumeOrderlyStatus.SUCCESS : ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
            });
        }

        long t0 = System.nanoTime();
        consumer.start();
        long deadline = System.currentTimeMillis() + timeoutMs;
        boolean ok = false;
        synchronized (reached) {
            while (true) {
                int progress = countAll ? deliveries.get() : done.size();
                if (expected > 0 && progress >= expected) {
                    ok = true;
                    break;
                }
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    break;
                }
                reached.wait(Math.min(left, 200));
            }
        }
        if (ok) {
            sleep(a.getLong("linger-ms", 0));
        }
        // shutdown persists the consumed offsets to the broker and unregisters the client
        consumer.shutdown();
        Peer.log("RefConsumer: %d distinct consumed OK, %d deliveries, in %d ms%s", done.size(), deliveries.get(),
            (System.nanoTime() - t0) / 1_000_000,
            expected <= 0 ? " (ran until the timeout)" : ok ? "" : " -- TIMEOUT, expected " + expected);
        return ok || expected <= 0 ? 0 : 2;
    }

    private interface Counter {
        void record(MessageExt msg, boolean accepted);
    }

    private static void sleep(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String host(SocketAddress a) {
        if (a instanceof InetSocketAddress s) {
            return s.getAddress().getHostAddress() + ":" + s.getPort();
        }
        return a == null ? null : a.toString();
    }

    private static Map<String, Object> line(MessageExt m, boolean accepted) {
        Map<String, Object> line = Peer.obj();
        line.put("msgId", m.getMsgId());
        // a pulled message is a MessageClientExt: getMsgId() is UNIQ_KEY, the offset id is separate
        line.put("offsetMsgId", m instanceof MessageClientExt c ? c.getOffsetMsgId() : m.getMsgId());
        line.put("topic", m.getTopic());
        line.put("brokerName", m.getBrokerName());
        line.put("queueId", m.getQueueId());
        line.put("queueOffset", m.getQueueOffset());
        line.put("commitLogOffset", m.getCommitLogOffset());
        line.put("tags", m.getTags());
        line.put("keys", m.getKeys());
        line.put("properties", new TreeMap<>(m.getProperties()));
        byte[] body = m.getBody() == null ? new byte[0] : m.getBody();
        line.put("bodyLen", body.length);
        line.put("bodySha256", Peer.sha256(body));
        line.put("reconsumeTimes", m.getReconsumeTimes());
        line.put("bornTimestamp", m.getBornTimestamp());
        line.put("storeTimestamp", m.getStoreTimestamp());
        line.put("bornHost", host(m.getBornHost()));
        line.put("storeHost", host(m.getStoreHost()));
        line.put("sysFlag", m.getSysFlag());
        line.put("result", accepted ? "ok" : "later");
        line.put("thread", Thread.currentThread().getName());
        line.put("receivedAt", System.currentTimeMillis());
        return line;
    }
}
