// Golden vectors for rmq's unwrapping of 5.x inner-batch records (tests/data/inner_batch.json), produced by
// Apache RocketMQ's own classes: MessageDecoder.encodeMessages/encode build the records, and the pull answer
// is decoded as PullAPIWrapper.processPullResult does (decodesBatch, then MessageDecoder.decodeMessage for
// records flagged INNER_BATCH and NEED_UNWRAP, then offsetDelta). Run (JDK 17):
//   CP=$(tools/rocketmq.sh classpath client)
//   java -cp "$CP" tools/golden/InnerBatchVectors.java > tests/data/inner_batch.json
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.sysflag.MessageSysFlag;

public final class InnerBatchVectors {
    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }

    private static String str(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder o = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                o.append('\\').append(c);
            } else if (c < 0x20) {
                o.append(String.format("\\u%04x", (int) c));
            } else {
                o.append(c);
            }
        }
        return o.append('"').toString();
    }

    private static String props(Map<String, String> p) {
        StringBuilder o = new StringBuilder("{");
        for (Map.Entry<String, String> e : new TreeMap<>(p == null ? Map.of() : p).entrySet()) {
            o.append(o.length() > 1 ? "," : "").append(str(e.getKey())).append(':').append(str(e.getValue()));
        }
        return o.append('}').toString();
    }

    private static Message inner(int i, String body, int flag, boolean withProps) {
        Message m = new Message();
        m.setBody(body.getBytes(StandardCharsets.UTF_8));
        m.setFlag(flag);
        if (withProps) {
            m.putUserProperty("seq", Integer.toString(i));
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_TAGS, "Tag" + (i % 2));
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_KEYS, "k" + i);
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
                String.format("7F0000010001%020X", 100 + i));
        }
        return m;
    }

    private static MessageExt outer(List<Message> inners, int sysFlag, long queueOffset, long clOffset) {
        MessageExt m = new MessageExt();
        m.setTopic("BatchTopic");
        m.setQueueId(2);
        m.setQueueOffset(queueOffset);
        m.setFlag(0);
        m.setSysFlag(sysFlag);
        m.setBornTimestamp(1700000000123L);
        m.setBornHost(new InetSocketAddress("127.0.0.1", 5555));
        m.setStoreTimestamp(1700000000456L);
        m.setStoreHost(new InetSocketAddress("127.0.0.1", 10911));
        m.setCommitLogOffset(clOffset);
        m.setReconsumeTimes(0);
        m.setBody(inners == null ? "plain".getBytes(StandardCharsets.UTF_8) : MessageDecoder.encodeMessages(inners));
        if (inners != null) {
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
                "7F00000100010000000000000000BA7C");
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_INNER_NUM, Integer.toString(inners.size()));
        }
        MessageAccessor.putProperty(m, MessageConst.PROPERTY_CLUSTER, "DefaultCluster");
        return m;
    }

    /// PullAPIWrapper.processPullResult's decoding (its tag filter and hooks aside).
    private static List<MessageExt> pullDecode(byte[] body, Long offsetDelta) throws Exception {
        List<MessageExt> list = MessageDecoder.decodesBatch(ByteBuffer.wrap(body), true, true, true);
        List<MessageExt> out = new ArrayList<>();
        for (MessageExt e : list) {
            if (MessageSysFlag.check(e.getSysFlag(), MessageSysFlag.INNER_BATCH_FLAG)
                && MessageSysFlag.check(e.getSysFlag(), MessageSysFlag.NEED_UNWRAP_FLAG)) {
                MessageDecoder.decodeMessage(e, out);
            } else {
                out.add(e);
            }
        }
        if (offsetDelta != null) {
            for (MessageExt m : out) {
                m.setQueueOffset(offsetDelta + m.getQueueOffset());
            }
        }
        return out;
    }

    private static String caseJson(String name, String note, List<MessageExt> records, Long offsetDelta)
        throws Exception {
        ByteBuffer all = ByteBuffer.allocate(1 << 16);
        for (MessageExt r : records) {
            all.put(MessageDecoder.encode(r, false));
        }
        byte[] body = new byte[all.position()];
        all.flip();
        all.get(body);
        StringBuilder o = new StringBuilder();
        o.append("{\"name\":").append(str(name)).append(",\"note\":").append(str(note));
        o.append(",\"pull_body_hex\":").append(str(hex(body)));
        o.append(",\"offset_delta\":").append(offsetDelta == null ? "null" : offsetDelta.toString());
        o.append(",\"messages\":[");
        List<MessageExt> out = pullDecode(body, offsetDelta);
        for (int i = 0; i < out.size(); i++) {
            MessageExt m = out.get(i);
            o.append(i > 0 ? "," : "").append("\n  {\"topic\":").append(str(m.getTopic()));
            o.append(",\"queue_id\":").append(m.getQueueId());
            o.append(",\"queue_offset\":").append(m.getQueueOffset());
            o.append(",\"flag\":").append(m.getFlag());
            o.append(",\"sys_flag\":").append(m.getSysFlag());
            o.append(",\"body_hex\":").append(str(m.getBody() == null ? null : hex(m.getBody())));
            o.append(",\"properties\":").append(props(m.getProperties()));
            o.append(",\"msg_id\":").append(str(m.getMsgId()));
            o.append(",\"born_timestamp\":").append(m.getBornTimestamp());
            o.append(",\"born_host\":").append(str(m.getBornHostString() + ":" + ((InetSocketAddress) m.getBornHost()).getPort()));
            o.append(",\"store_timestamp\":").append(m.getStoreTimestamp());
            o.append(",\"store_host\":").append(str(m.getStoreHost() == null ? null
                : ((InetSocketAddress) m.getStoreHost()).getAddress().getHostAddress() + ":"
                + ((InetSocketAddress) m.getStoreHost()).getPort()));
            o.append(",\"commit_log_offset\":").append(m.getCommitLogOffset());
            o.append(",\"reconsume_times\":").append(m.getReconsumeTimes());
            o.append('}');
        }
        return o.append("]}").toString();
    }

    public static void main(String[] args) throws Exception {
        final int both = MessageSysFlag.INNER_BATCH_FLAG | MessageSysFlag.NEED_UNWRAP_FLAG;
        List<Message> three = List.of(inner(0, "first", 0, true), inner(1, "", 7, true), inner(2, "third \u00e9", 0, true));
        List<String> cases = new ArrayList<>();
        cases.add(caseJson("three_inner", "one inner-batch record of three messages", List.of(outer(three, both, 100, 4096)), null));
        cases.add(caseJson("mixed_with_plain", "a plain record, an inner batch of two (one without properties), a plain record",
            List.of(outer(null, 0, 99, 1000), outer(List.of(inner(5, "a", 0, true), inner(6, "b", 0, false)), both, 100, 2000),
                outer(null, 0, 102, 3000)), null));
        cases.add(caseJson("inner_flag_only", "INNER_BATCH without NEED_UNWRAP is not unwrapped",
            List.of(outer(three, MessageSysFlag.INNER_BATCH_FLAG, 100, 4096)), null));
        cases.add(caseJson("offset_delta", "an inner batch with the answer's offsetDelta (added after unwrapping)",
            List.of(outer(three, both, 0, 4096)), 40L));
        System.out.println("{\n\"about\": \"5.x inner-batch records (MessageSysFlag INNER_BATCH_FLAG 0x80 + NEED_UNWRAP_FLAG 0x40, a BatchCQ topic) in a PULL_MESSAGE body, decoded as PullAPIWrapper.processPullResult does: MessageDecoder.decodesBatch(readBody, decompressBody, isClient), then MessageDecoder.decodeMessage(outer, list) for each flagged record (inner i: the outer's topic, queueId, queueOffset + i, sysFlag, hosts, timestamps and commitLogOffset; its own flag, body and properties), then queueOffset += offsetDelta. msg_id is MessageClientExt.getMsgId() (UNIQ_KEY, else the offset message id). Generated by tools/golden/InnerBatchVectors.java.\",");
        System.out.println("\"apache_rocketmq\": \"rocketmq-common 5.3.3 (Maven Central)\",");
        System.out.println("\"cases\": [");
        System.out.println(String.join(",\n", cases));
        System.out.println("]}");
    }
}
