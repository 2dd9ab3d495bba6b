// Prints tests/data/batch_ack.json: what Apache RocketMQ 5.x's own classes make of BATCH_ACK_MESSAGE
// (200151), for rmq's unit tests (tests/unit/pop/batch_ack_golden_test.cpp). Run from the repository root:
//
//   CP=$(tools/rocketmq.sh classpath client) && javac -cp "$CP" -d /tmp/batch_ack_golden \
//     tools/golden/BatchAckGolden.java && java -cp "$CP:/tmp/batch_ack_golden" BatchAckGolden > tests/data/batch_ack.json
//
// "bodies": BatchAckMessageRequestBody.encode() of bodies built field by field (fastjson with BatchAck's
// @JSONField names and BitSetSerializerDeserializer: BitSet.toByteArray() in base64). "client": the request
// MQClientAPIImpl.batchAckMessageAsync(addr, timeout, callback, topic, group, extraInfoList) hands to its
// remoting client for a list of receipts, caught by a stand-in RemotingClient (nothing is sent): the receipts'
// grouping into BatchAcks is Java's own. Standard library and the RocketMQ client only; the JSON is written by
// hand so its layout stays stable.

import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.consumer.AckCallback;
import org.apache.rocketmq.client.consumer.AckResult;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.remoting.InvokeCallback;
import org.apache.rocketmq.remoting.RemotingClient;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.SerializeType;
import org.apache.rocketmq.remoting.protocol.body.BatchAck;
import org.apache.rocketmq.remoting.protocol.body.BatchAckMessageRequestBody;

public final class BatchAckGolden {
    private BatchAckGolden() {
    }

    private static String hex(ByteBuffer b) {
        StringBuilder sb = new StringBuilder();
        while (b.hasRemaining()) {
            sb.append(String.format("%02x", b.get() & 0xff));
        }
        return sb.toString();
    }

    private static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.append('"').toString();
    }

    private static BatchAck ack(String group, String topic, String retry, long start, int queueId, int reviveQid,
        long popTime, long invisibleTime, int... bits) {
        BatchAck a = new BatchAck();
        a.setConsumerGroup(group);
        a.setTopic(topic);
        a.setRetry(retry);
        a.setStartOffset(start);
        a.setQueueId(queueId);
        a.setReviveQueueId(reviveQid);
        a.setPopTime(popTime);
        a.setInvisibleTime(invisibleTime);
        BitSet b = new BitSet();
        for (int i : bits) {
            b.set(i);
        }
        a.setBitSet(b);
        return a;
    }

    /** One body: its acks as plain fields (the set bits listed) and Java's encoding. */
    private static String body(String name, String brokerName, BatchAck... acks) {
        BatchAckMessageRequestBody body = new BatchAckMessageRequestBody();
        body.setBrokerName(brokerName);
        body.setAcks(Arrays.asList(acks));
        List<String> rows = new ArrayList<>();
        for (BatchAck a : acks) {
            List<String> bits = new ArrayList<>();
            for (int i = a.getBitSet().nextSetBit(0); i >= 0; i = a.getBitSet().nextSetBit(i + 1)) {
                bits.add(Integer.toString(i));
            }
            rows.add("{\"consumer_group\": " + str(a.getConsumerGroup()) + ", \"topic\": " + str(a.getTopic())
                + ", \"retry\": " + str(a.getRetry()) + ", \"start_offset\": " + a.getStartOffset()
                + ", \"queue_id\": " + a.getQueueId() + ", \"revive_queue_id\": " + a.getReviveQueueId()
                + ", \"pop_time\": " + a.getPopTime() + ", \"invisible_time\": " + a.getInvisibleTime()
                + ", \"bits\": [" + String.join(", ", bits) + "]}");
        }
        String json = new String(body.encode(), StandardCharsets.UTF_8);
        return "    {\"name\": " + str(name) + ", \"broker_name\": " + (brokerName == null ? "null" : str(brokerName))
            + ",\n     \"acks\": [" + String.join(",\n              ", rows) + "],\n     \"json\": " + str(json) + "}";
    }

    /** The request batchAckMessageAsync gives its remoting client for `receipts`, caught instead of sent. */
    private static RemotingCommand clientRequest(String topic, String group, List<String> receipts) throws Exception {
        MQClientAPIImpl api = new MQClientAPIImpl(new NettyClientConfig(), null, null, new ClientConfig());
        RemotingCommand[] caught = new RemotingCommand[1];
        RemotingClient stub = (RemotingClient) Proxy.newProxyInstance(RemotingClient.class.getClassLoader(),
            new Class<?>[] {RemotingClient.class}, (proxy, method, args) -> {
                if (method.getName().equals("invokeAsync")) {
                    caught[0] = (RemotingCommand) args[1];
                    ((InvokeCallback) args[3]).operationSucceed(
                        RemotingCommand.createResponseCommand(ResponseCode.SUCCESS, null));
                }
                return null;
            });
        Field f = MQClientAPIImpl.class.getDeclaredField("remotingClient");
        f.setAccessible(true);
        f.set(api, stub);
        api.batchAckMessageAsync("127.0.0.1:10911", 3000, new AckCallback() {
            @Override
            public void onSuccess(AckResult ackResult) {
            }

            @Override
            public void onException(Throwable e) {
                throw new IllegalStateException(e);
            }
        }, topic, group, receipts);
        return caught[0];
    }

    public static void main(String[] args) throws Exception {
        final long pt = 1700000000000L;
        List<String> receipts = Arrays.asList(
            "10 1700000000000 30000 2 0 broker-a 1 10",
            "10 1700000000000 30000 2 0 broker-a 1 11",
            "10 1700000000000 30000 2 0 broker-a 1 13",
            "3 1700000000000 30000 2 1 broker-a 0 3",
            "10 1700000000000 30000 2 0 broker-a 1 18",
            "20 1700000005000 45000 3 0 broker-a 1 20",
            "5 1700000000000 30000 2 0 broker-a 2 75",
            "3 1700000000000 30000 2 1 broker-a 0 4");
        RemotingCommand request = clientRequest("T", "g", receipts);
        request.setOpaque(42);
        request.setSerializeTypeCurrentRPC(SerializeType.JSON);
        String frame = hex(request.encode());
        List<String> quoted = new ArrayList<>();
        for (String r : receipts) {
            quoted.add(str(r));
        }

        System.out.println("{");
        System.out.println("  \"generator\": \"tools/golden/BatchAckGolden.java with the Apache RocketMQ "
            + org.apache.rocketmq.common.MQVersion.getVersionDesc(org.apache.rocketmq.common.MQVersion.CURRENT_VERSION)
            + " client\",");
        System.out.println("  \"code\": " + RequestCode.BATCH_ACK_MESSAGE + ",");
        System.out.println("  \"bodies\": [");
        System.out.println(body("one bit", "broker-a", ack("g", "T", "0", 100, 1, 2, pt, 5000, 0)) + ",");
        System.out.println(body("bits 1 3 5", "broker-a", ack("g", "T", "0", 100, 1, 2, pt, 5000, 1, 3, 5)) + ",");
        System.out.println(body("a byte boundary and a retry ack", "broker-b",
            ack("g", "T", "0", 0, 3, 7, pt, 60000, 0, 1, 2, 3, 4, 5, 6, 7, 8),
            ack("g", "T", "1", 42, 0, 7, pt + 1, 60000, 31)) + ",");
        System.out.println(body("far bit, no broker name", null, ack("grp", "Topic", "0", 9, 0, 0, pt, 1000, 70))
            + ",");
        System.out.println(body("empty bit set", "broker-a", ack("g", "T", "0", 5, 0, 0, pt, 1000)) + ",");
        System.out.println(body("no acks", "broker-a"));
        System.out.println("  ],");
        System.out.println("  \"client\": {\"topic\": \"T\", \"group\": \"g\",");
        System.out.println("    \"receipts\": [" + String.join(",\n                 ", quoted) + "],");
        System.out.println("    \"body\": " + str(new String(request.getBody(), StandardCharsets.UTF_8)) + ",");
        System.out.println("    \"json_frame_hex\": " + str(frame) + "}");
        System.out.println("}");
    }
}
