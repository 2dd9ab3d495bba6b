package rmq.interop;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Reference producer: sends COUNT messages with the Apache RocketMQ Java client (DefaultMQProducer, synchronous
 * sends) and prints one JSON line per message on stdout, so that rmq's consumer can be compared with what Java
 * really sent.
 *
 * <pre>
 * RefProducer NAMESRV TOPIC COUNT [options]
 *   --group G             producer group (rmq_ref_producer)
 *   --tags A,B,C          tags, cycling over the messages (default: no tag)
 *   --keys PREFIX         key PREFIX&lt;i&gt; on message i
 *   --prop k=v            user property on every message (repeatable)
 *   --seq-prop NAME       user property NAME=&lt;i&gt;
 *   --body-size N         body bytes (64)
 *   --large-every K       every K-th message (i % K == K-1) gets --large-size bytes instead (0: never)
 *   --large-size N        (8192; above --compress-over the client compresses the body)
 *   --random-body         incompressible (seeded) body bytes instead of text
 *   --select MODE         none (client's own choice, default) | round (queue i % all queues) |
 *                         fixed:BROKER:QID | shard:K (queue (i % K) % all queues, the orderly pattern)
 *   --delay-level L       DELAY level
 *   --send-timeout MS     (10000)   --retries N (2)   --compress-over N (4096)
 *   --interval-ms MS      pause between sends
 *   --continue-on-error   print {"status":"ERROR",...} for a failed send and go on (broker restart tests)
 *   --trace               enableMsgTrace: Pub records to RMQ_SYS_TRACE_TOPIC (flushed by shutdown)
 * </pre>
 * Output line: i, status, msgId (UNIQ_KEY), offsetMsgId, topic, brokerName, queueId, queueOffset, tags, keys,
 * properties (the user properties set), bodyLen, bodySha256 (of the uncompressed body).
 * Exit status: 0 when every send returned SEND_OK, 1 otherwise.
 */
public final class RefProducer {
    private static final List<String> FLAGS = List.of("random-body", "continue-on-error", "trace");
    private static final List<String> KNOWN = List.of("group", "tags", "keys", "prop", "seq-prop", "body-size",
        "large-every", "large-size", "random-body", "select", "delay-level", "send-timeout", "retries",
        "compress-over", "interval-ms", "continue-on-error", "trace");

    private RefProducer() {
    }

    public static void main(String[] argv) throws Exception {
        Peer.init("producer");
        Peer.Args a;
        try {
            a = new Peer.Args(argv, FLAGS);
            a.allowOnly(KNOWN);
            if (a.positional.size() != 3) {
                throw new IllegalArgumentException("expected NAMESRV TOPIC COUNT");
            }
        } catch (IllegalArgumentException e) {
            Peer.log("RefProducer: %s\nusage: RefProducer NAMESRV TOPIC COUNT [options] (see RefProducer.java)",
                e.getMessage());
            System.exit(64);
            return;
        }
        System.exit(run(a));
    }

    private static int run(Peer.Args a) throws Exception {
        String namesrv = a.positional.get(0);
        String topic = a.positional.get(1);
        int count = Integer.parseInt(a.positional.get(2));
        String[] tags = a.has("tags") ? a.get("tags", "").split(",") : new String[0];
        String keyPrefix = a.get("keys", null);
        Map<String, String> props = new TreeMap<>();
        for (String kv : a.all("prop")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--prop wants k=v, got " + kv);
            }
            props.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        String seqProp = a.get("seq-prop", null);
        int bodySize = a.getInt("body-size", 64);
        int largeEvery = a.getInt("large-every", 0);
        int largeSize = a.getInt("large-size", 8192);
        boolean randomBody = a.has("random-body");
        String select = a.get("select", "none");
        int delayLevel = a.getInt("delay-level", 0);
        long interval = a.getLong("interval-ms", 0);
        boolean continueOnError = a.has("continue-on-error");

        DefaultMQProducer producer = new DefaultMQProducer(a.get("group", "rmq_ref_producer"), Peer.aclHook(),
            a.has("trace"), null);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("ref-producer-" + ProcessHandle.current().pid());
        producer.setSendMsgTimeout(a.getInt("send-timeout", 10000));
        producer.setRetryTimesWhenSendFailed(a.getInt("retries", 2));
        producer.setCompressMsgBodyOverHowmuch(a.getInt("compress-over", 4096));
        producer.setVipChannelEnabled(false);
        MessageQueueSelector selector = selector(select);
        producer.start();
        long t0 = System.nanoTime();
        int ok = 0;
        int failed = 0;
        try {
            for (int i = 0; i < count; i++) {
                int size = (largeEvery > 0 && i % largeEvery == largeEvery - 1) ? largeSize : bodySize;
                byte[] body = body(topic, i, size, randomBody);
                Message msg = new Message(topic, body);
                if (tags.length > 0) {
                    msg.setTags(tags[i % tags.length]);
                }
                if (keyPrefix != null) {
                    msg.setKeys(keyPrefix + i);
                }
                Map<String, String> user = new TreeMap<>(props);
                if (seqProp != null) {
                    user.put(seqProp, Integer.toString(i));
                }
                user.forEach(msg::putUserProperty);
                if (delayLevel > 0) {
                    msg.setDelayTimeLevel(delayLevel);
                }
                Map<String, Object> line = Peer.obj();
                line.put("i", i);
                line.put("topic", topic);
                line.put("tags", msg.getTags());
                line.put("keys", msg.getKeys());
                line.put("properties", user);
                line.put("bodyLen", body.length);
                line.put("bodySha256", Peer.sha256(body));
                try {
                    SendResult r = selector == null ? producer.send(msg) : producer.send(msg, selector, i);
                    line.put("status", r.getSendStatus().name());
                    line.put("msgId", r.getMsgId());
                    line.put("offsetMsgId", r.getOffsetMsgId());
                    line.put("brokerName", r.getMessageQueue().getBrokerName());
                    line.put("queueId", r.getMessageQueue().getQueueId());
                    line.put("queueOffset", r.getQueueOffset());
                    if (r.getSendStatus() == org.apache.rocketmq.client.producer.SendStatus.SEND_OK) {
                        ok++;
                    } else {
                        failed++;
                    }
                } catch (Exception e) {
                    failed++;
                    line.put("status", "ERROR");
                    line.put("error", e.toString());
                    Peer.emit(line);
                    if (!continueOnError) {
                        Peer.log("RefProducer: send %d failed: %s", i, e);
                        return 1;
                    }
                    continue;
                }
                Peer.emit(line);
                if (interval > 0) {
                    Thread.sleep(interval);
                }
            }
        } finally {
            producer.shutdown();
        }
        Peer.log("RefProducer: %d sent (SEND_OK), %d failed, in %d ms", ok, failed,
            (System.nanoTime() - t0) / 1_000_000);
        return failed == 0 ? 0 : 1;
    }

    private static MessageQueueSelector selector(String mode) {
        if (mode.equals("none")) {
            return null;
        }
        if (mode.equals("round")) {
            return (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size());
        }
        if (mode.startsWith("shard:")) {
            int shards = Integer.parseInt(mode.substring(6));
            return (mqs, msg, arg) -> mqs.get(((Integer) arg % shards) % mqs.size());
        }
        if (mode.startsWith("fixed:")) {
            String[] p = mode.split(":");
            if (p.length != 3) {
                throw new IllegalArgumentException("--select fixed:BROKER:QID");
            }
            String broker = p[1];
            int qid = Integer.parseInt(p[2]);
            return (mqs, msg, arg) -> {
                for (MessageQueue mq : mqs) {
                    if (mq.getBrokerName().equals(broker) && mq.getQueueId() == qid) {
                        return mq;
                    }
                }
                throw new IllegalStateException("no queue " + broker + ":" + qid + " in " + mqs);
            };
        }
        throw new IllegalArgumentException("--select none|round|fixed:BROKER:QID|shard:K, got " + mode);
    }

    /** Deterministic body of exactly size bytes: text that names the message, or seeded random bytes. */
    static byte[] body(String topic, int i, int size, boolean random) {
        byte[] b = new byte[size];
        if (random) {
            new Random(0x5eed0000L + i).nextBytes(b);
            return b;
        }
        byte[] head = (topic + "#" + i + ":").getBytes(StandardCharsets.UTF_8);
        byte[] fill = "The quick brown fox jumps over the lazy dog. ".getBytes(StandardCharsets.UTF_8);
        for (int k = 0; k < size; k++) {
            b[k] = k < head.length ? head[k] : fill[(k - head.length) % fill.length];
        }
        return b;
    }
}
