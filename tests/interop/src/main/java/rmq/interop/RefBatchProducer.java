package rmq.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Reference batch producer: sends COUNT messages in batches of BATCH (DefaultMQProducer.send(Collection,
 * MessageQueue)) to one queue, so a 5.x broker stores each batch of a BatchCQ topic as one inner-batch record.
 * Message i has body "batch-&lt;i&gt;", tag TagA and key k&lt;i&gt;.
 *
 * <pre>
 * RefBatchProducer NAMESRV TOPIC COUNT BATCH BROKER QUEUE_ID [--group G]
 * </pre>
 * Output line per batch: first (i of its first message), count, status, msgId, brokerName, queueId, queueOffset.
 * Exit status: 0 when every batch returned SEND_OK, 1 otherwise.
 */
public final class RefBatchProducer {
    private RefBatchProducer() {
    }

    public static void main(String[] argv) throws Exception {
        Peer.init("batch-producer");
        Peer.Args a;
        try {
            a = new Peer.Args(argv, List.of());
            a.allowOnly(List.of("group"));
            if (a.positional.size() != 6) {
                throw new IllegalArgumentException("expected NAMESRV TOPIC COUNT BATCH BROKER QUEUE_ID");
            }
        } catch (IllegalArgumentException e) {
            Peer.log("RefBatchProducer: %s\nusage: RefBatchProducer NAMESRV TOPIC COUNT BATCH BROKER QUEUE_ID", e.getMessage());
            System.exit(64);
            return;
        }
        System.exit(run(a));
    }

    private static int run(Peer.Args a) throws Exception {
        String topic = a.positional.get(1);
        int count = Integer.parseInt(a.positional.get(2));
        int batch = Integer.parseInt(a.positional.get(3));
        MessageQueue mq = new MessageQueue(topic, a.positional.get(4), Integer.parseInt(a.positional.get(5)));
        DefaultMQProducer producer = new DefaultMQProducer(a.get("group", "rmq_ref_batch_producer"), Peer.aclHook());
        producer.setNamesrvAddr(a.positional.get(0));
        producer.setInstanceName("ref-batch-producer-" + ProcessHandle.current().pid());
        producer.setVipChannelEnabled(false);
        producer.start();
        int failed = 0;
        try {
            for (int first = 0; first < count; first += batch) {
                List<Message> msgs = new ArrayList<>();
                for (int i = first; i < Math.min(count, first + batch); i++) {
                    msgs.add(new Message(topic, "TagA", "k" + i, ("batch-" + i).getBytes(StandardCharsets.UTF_8)));
                }
                Map<String, Object> line = Peer.obj();
                line.put("first", first);
                line.put("count", msgs.size());
                SendResult r = producer.send(msgs, mq);
                line.put("status", r.getSendStatus().name());
                line.put("msgId", r.getMsgId());
                line.put("brokerName", r.getMessageQueue().getBrokerName());
                line.put("queueId", r.getMessageQueue().getQueueId());
                line.put("queueOffset", r.getQueueOffset());
                if (r.getSendStatus() != org.apache.rocketmq.client.producer.SendStatus.SEND_OK) {
                    failed++;
                }
                Peer.emit(line);
            }
        } finally {
            producer.shutdown();
        }
        return failed == 0 ? 0 : 1;
    }
}
