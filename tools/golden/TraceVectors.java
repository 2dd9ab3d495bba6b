// Golden vectors for rmq's message trace codec, produced by Apache RocketMQ's own TraceDataEncoder.
// Writes tests/data/trace.json; see tools/golden/README.md for how to run it.

import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.apache.rocketmq.client.AccessChannel;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.trace.TraceBean;
import org.apache.rocketmq.client.trace.TraceConstants;
import org.apache.rocketmq.client.trace.TraceContext;
import org.apache.rocketmq.client.trace.TraceDataEncoder;
import org.apache.rocketmq.client.trace.TraceTransferBean;
import org.apache.rocketmq.client.trace.TraceType;
import org.apache.rocketmq.common.message.MessageType;

public class TraceVectors {
    static String q(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    static TraceBean bean(String topic, String msgId, String offsetMsgId, String tags, String keys, String storeHost,
        int bodyLength, int retryTimes, MessageType type) {
        TraceBean b = new TraceBean();
        b.setTopic(topic);
        b.setMsgId(msgId);
        b.setOffsetMsgId(offsetMsgId);
        b.setTags(tags);
        b.setKeys(keys);
        b.setStoreHost(storeHost);
        b.setBodyLength(bodyLength);
        b.setRetryTimes(retryTimes);
        b.setMsgType(type);
        return b;
    }

    static TraceContext ctx(TraceType type, long ts, String region, String group, String requestId, int cost,
        boolean success, int code, AccessChannel channel, List<TraceBean> beans) {
        TraceContext c = new TraceContext();
        c.setTraceType(type);
        c.setTimeStamp(ts);
        c.setRegionId(region);
        c.setGroupName(group);
        c.setRequestId(requestId);
        c.setCostTime(cost);
        c.setSuccess(success);
        c.setContextCode(code);
        c.setAccessChannel(channel);
        c.setTraceBeans(beans);
        return c;
    }

    static String beanJson(TraceBean b) {
        return beanJson(b, true);
    }

    // hostKnown false: a decoded consume record, whose storeHost is TraceBean's default (this machine's address).
    static String beanJson(TraceBean b, boolean hostKnown) {
        return "{\"topic\":" + q(b.getTopic()) + ",\"msgId\":" + q(b.getMsgId()) + ",\"offsetMsgId\":"
            + q(b.getOffsetMsgId()) + ",\"tags\":" + q(b.getTags()) + ",\"keys\":" + q(b.getKeys())
            + ",\"storeHost\":" + (hostKnown ? q(b.getStoreHost()) : "null") + ",\"bodyLength\":" + b.getBodyLength()
            + ",\"retryTimes\":" + b.getRetryTimes() + ",\"msgType\":"
            + (b.getMsgType() == null ? "null" : String.valueOf(b.getMsgType().ordinal()))
            + ",\"transactionId\":" + q(b.getTransactionId()) + ",\"transactionState\":"
            + (b.getTransactionState() == null ? "null" : q(b.getTransactionState().name()))
            + ",\"fromTransactionCheck\":" + b.isFromTransactionCheck() + "}";
    }

    static String contextJson(TraceContext c) {
        StringBuilder s = new StringBuilder();
        s.append("{\"traceType\":").append(q(c.getTraceType().name())).append(",\"timeStamp\":")
            .append(c.getTimeStamp()).append(",\"regionId\":").append(q(c.getRegionId()))
            .append(",\"groupName\":").append(q(c.getGroupName())).append(",\"requestId\":")
            .append(q(c.getRequestId())).append(",\"costTime\":").append(c.getCostTime())
            .append(",\"success\":").append(c.isSuccess()).append(",\"contextCode\":").append(c.getContextCode())
            .append(",\"accessChannel\":").append(c.getAccessChannel() == null ? "null" : q(c.getAccessChannel().name()))
            .append(",\"beans\":[");
        for (int i = 0; i < c.getTraceBeans().size(); ++i) {
            s.append(i == 0 ? "" : ",").append(beanJson(c.getTraceBeans().get(i)));
        }
        return s.append("]}").toString();
    }

    // What decoderFromTraceDataString sets; fields a record does not carry (the decoder leaves Java's
    // defaults there: the current time, a fresh request id) are written as null.
    static String decodedJson(TraceContext c, String[] line) {
        TraceType t = c.getTraceType();
        boolean hasTs = t != TraceType.SubAfter || line.length >= 9;
        boolean hasRequest = t == TraceType.SubBefore || t == TraceType.SubAfter;
        boolean hasRegion = t != TraceType.SubAfter;
        TraceBean b = c.getTraceBeans().get(0);
        return "{\"traceType\":" + q(t.name()) + ",\"timeStamp\":" + (hasTs ? String.valueOf(c.getTimeStamp()) : "null")
            + ",\"regionId\":" + (hasRegion ? q(c.getRegionId()) : "null") + ",\"groupName\":"
            + (hasTs ? q(c.getGroupName()) : "null") + ",\"requestId\":" + (hasRequest ? q(c.getRequestId()) : "null")
            + ",\"costTime\":" + c.getCostTime() + ",\"success\":" + c.isSuccess() + ",\"contextCode\":"
            + c.getContextCode() + ",\"bean\":" + beanJson(b, !hasRequest) + "}";
    }

    static String keysJson(TraceTransferBean t) {
        StringBuilder s = new StringBuilder("[");
        int i = 0;
        for (String k : new TreeSet<>(t.getTransKey())) {
            s.append(i++ == 0 ? "" : ",").append(q(k));
        }
        return s.append(']').toString();
    }

    static List<TraceBean> list(TraceBean... beans) {
        List<TraceBean> l = new ArrayList<>();
        for (TraceBean b : beans) {
            l.add(b);
        }
        return l;
    }

    static TraceBean tx(String topic, String msgId, String tags, String keys, String host, String txId,
        LocalTransactionState state, boolean fromCheck) {
        TraceBean b = bean(topic, msgId, "", tags, keys, host, 0, 0, MessageType.Trans_msg_Commit);
        b.setTransactionId(txId);
        b.setTransactionState(state);
        b.setFromTransactionCheck(fromCheck);
        return b;
    }

    public static void main(String[] args) throws Exception {
        String id1 = "7F0000010A4C18B4AAC27D1C6E3B0000";
        String id2 = "7F0000010A4C18B4AAC27D1C6E3B0001";
        String id3 = "7F0000010A4C18B4AAC27D1C6E3B0002";
        String off1 = "7F00000100002A9F0000000000000A3C";
        String req = "7F0000010A4C18B4AAC27D1C6E3BFFFF";
        List<TraceContext> contexts = new ArrayList<>();
        List<String> names = new ArrayList<>();

        names.add("pub: tags, two keys, success");
        contexts.add(ctx(TraceType.Pub, 1700000000123L, "DefaultRegion", "PG", req, 3, true, 0, null,
            list(bean("TopicTest", id1, off1, "TagA", "K1 K2", "127.0.0.1:10911", 11, 0, MessageType.Normal_Msg))));
        names.add("pub: no tags and no keys (null), not SEND_OK, a delay message");
        contexts.add(ctx(TraceType.Pub, 1700000000999L, "DefaultRegion", "PG", req, 0, false, 0, null,
            list(bean("TopicTest", id2, off1, null, null, "10.1.2.3:10911", 4096, 0, MessageType.Delay_Msg))));
        names.add("pub: empty keys, a half message, a region of its own, UTF-8 tags");
        contexts.add(ctx(TraceType.Pub, 1L, "eu-west", "please_rename_unique_group_name", req, 1234, true, 0, null,
            list(bean("Topic-\u8ba2\u5355", id3, "", "\u6807\u7b7e", "", "broker:1", 1, 0, MessageType.Trans_Msg_Half))));
        names.add("pub: a batch's comma-separated ids");
        contexts.add(ctx(TraceType.Pub, 1700000000123L, "DefaultRegion", "PG", req, 7, true, 0, null,
            list(bean("TopicTest", id1 + "," + id2, off1 + "," + off1, null, null, "127.0.0.1:10911", 300, 0,
                MessageType.Normal_Msg))));
        names.add("subBefore: a batch of three beans, keys and retries");
        contexts.add(ctx(TraceType.SubBefore, 1700000001000L, "DefaultRegion", "CG", req, 0, true, 0, null,
            list(bean("TopicTest", id1, "", "TagA", "K1", "", 100, 0, null),
                bean("TopicTest", id2, "", null, null, "", 100, 3, null),
                bean("TopicTest", id3, "", "TagB", "K2 K3 K1", "", 100, 16, null))));
        names.add("subBefore: one bean, empty region and group");
        contexts.add(ctx(TraceType.SubBefore, 5L, "", "", req, 0, true, 0, null,
            list(bean("T", id1, "", "", "", "", 0, 1, null))));
        names.add("subAfter: local, two beans, failed (contextCode FAILED)");
        contexts.add(ctx(TraceType.SubAfter, 1700000001020L, "DefaultRegion", "CG", req, 10, false, 4,
            AccessChannel.LOCAL, list(bean("TopicTest", id1, "", "TagA", "K1", "", 0, 0, null),
                bean("TopicTest", id2, "", null, null, "", 0, 0, null))));
        names.add("subAfter: local, success");
        contexts.add(ctx(TraceType.SubAfter, 1700000001020L, "DefaultRegion", "CG", req, 0, true, 0,
            AccessChannel.LOCAL, list(bean("TopicTest", id1, "", "TagA", "", "", 0, 0, null))));
        names.add("subAfter: cloud (no time stamp and group)");
        contexts.add(ctx(TraceType.SubAfter, 1700000001020L, "DefaultRegion", "CG", req, 2, true, 1,
            AccessChannel.CLOUD, list(bean("TopicTest", id1, "", "TagA", "K9", "", 0, 0, null))));
        names.add("subAfter: local with an empty group (Java's split drops it)");
        contexts.add(ctx(TraceType.SubAfter, 1700000001020L, "DefaultRegion", "", req, 2, true, 2,
            AccessChannel.LOCAL, list(bean("TopicTest", id1, "", "TagA", "K9", "", 0, 0, null))));
        names.add("endTransaction: commit");
        contexts.add(ctx(TraceType.EndTransaction, 1700000002000L, "DefaultRegion", "TPG", req, 0, true, 0, null,
            list(tx("TopicTx", id1, "TagT", "order-1", "127.0.0.1:10911", id1, LocalTransactionState.COMMIT_MESSAGE, false))));
        names.add("endTransaction: rollback from a check, no tags and keys");
        contexts.add(ctx(TraceType.EndTransaction, 1700000002001L, "DefaultRegion", "TPG", req, 0, true, 0, null,
            list(tx("TopicTx", id2, null, null, "127.0.0.1:10911", id2, LocalTransactionState.ROLLBACK_MESSAGE, true))));
        names.add("endTransaction: unknow");
        contexts.add(ctx(TraceType.EndTransaction, 1700000002002L, "r", "TPG", req, 0, true, 0, null,
            list(tx("TopicTx", id3, "", "a b", "h:1", "", LocalTransactionState.UNKNOW, false))));

        StringBuilder out = new StringBuilder();
        out.append("{\n  \"about\": \"Message trace vectors: org.apache.rocketmq.client.trace.TraceDataEncoder.encoderFromContextBean (transData, and transKey sorted: Java keeps it in a HashSet) and decoderFromTraceDataString of each encoded record and of the records concatenated (one trace message body). Fields a decoded record does not carry are null.\",\n");
        out.append("  \"apache_rocketmq\": {\"client\":\"rocketmq-client-5.3.3\"},\n");
        out.append("  \"generator\": \"tools/golden/TraceVectors.java (javac/java 17) on tools/rocketmq.sh classpath client\",\n");
        out.append("  \"content_splitor\": ").append((int) TraceConstants.CONTENT_SPLITOR)
            .append(", \"field_splitor\": ").append((int) TraceConstants.FIELD_SPLITOR).append(",\n");
        out.append("  \"cases\": [\n");
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < contexts.size(); ++i) {
            TraceContext c = contexts.get(i);
            TraceTransferBean t = TraceDataEncoder.encoderFromContextBean(c);
            // Java's split drops trailing empty fields: a record ending in an empty one may not decode at all.
            StringBuilder dec = new StringBuilder("[");
            boolean decodes = true;
            try {
                List<TraceContext> decoded = TraceDataEncoder.decoderFromTraceDataString(t.getTransData());
                String[] records = t.getTransData().split(String.valueOf(TraceConstants.FIELD_SPLITOR));
                for (int j = 0; j < decoded.size(); ++j) {
                    dec.append(j == 0 ? "" : ",").append(
                        decodedJson(decoded.get(j), records[j].split(String.valueOf(TraceConstants.CONTENT_SPLITOR))));
                }
                dec.append(']');
            } catch (RuntimeException e) {
                dec = new StringBuilder("{\"error\":" + q(e.getClass().getName()) + "}");
                decodes = false;
            }
            if (decodes) {
                all.append(t.getTransData());  // the batch holds the records that decode
            }
            out.append("    {\"name\":").append(q(names.get(i))).append(",\"context\":").append(contextJson(c))
                .append(",\"transData\":").append(q(t.getTransData())).append(",\"transKey\":").append(keysJson(t))
                .append(",\"decoded\":").append(dec).append(i + 1 < contexts.size() ? "},\n" : "}\n");
        }
        out.append("  ],\n");
        List<TraceContext> decodedAll = TraceDataEncoder.decoderFromTraceDataString(all.toString());
        String[] records = all.toString().split(String.valueOf(TraceConstants.FIELD_SPLITOR));
        out.append("  \"batch\": {\"data\":").append(q(all.toString())).append(",\"decoded\":[");
        for (int j = 0; j < decodedAll.size(); ++j) {
            out.append(j == 0 ? "\n    " : ",\n    ")
                .append(decodedJson(decodedAll.get(j), records[j].split(String.valueOf(TraceConstants.CONTENT_SPLITOR))));
        }
        out.append("\n  ]}\n}\n");
        try (Writer w = new OutputStreamWriter(new FileOutputStream(args[0]), StandardCharsets.UTF_8)) {
            w.write(out.toString());
        }
    }
}
