// Prints tests/data/pop.json: what Apache RocketMQ 5.x's own classes make of the POP requests, for rmq's unit
// tests (tests/unit/pop/golden_test.cpp). Run from the repository root:
//
//   CP=$(tools/rocketmq.sh classpath client) && javac -cp "$CP" -d /tmp/pop_golden tools/golden/PopGolden.java &&
//   java -cp "$CP:/tmp/pop_golden" PopGolden > tests/data/pop.json
//
// Standard library and the RocketMQ client only; the JSON is written by hand so its layout stays stable.

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.SerializeType;
import org.apache.rocketmq.remoting.protocol.header.AckMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.ChangeInvisibleTimeRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.ExtraInfoUtil;
import org.apache.rocketmq.remoting.protocol.header.PopMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.CommandCustomHeader;

public final class PopGolden {
    private PopGolden() {
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

    /** One request: its ext fields as Java makes them (sorted), and its frames in both serializations. */
    private static String command(String name, int code, CommandCustomHeader header) throws Exception {
        RemotingCommand cmd = RemotingCommand.createRequestCommand(code, header);
        cmd.setOpaque(42);
        cmd.setVersion(409);
        cmd.makeCustomHeaderToNet();
        Map<String, String> fields = new TreeMap<>(cmd.getExtFields());
        List<String> kv = new ArrayList<>();
        for (Map.Entry<String, String> e : fields.entrySet()) {
            kv.add(str(e.getKey()) + ": " + str(e.getValue()));
        }
        cmd.setSerializeTypeCurrentRPC(SerializeType.JSON);
        String json = hex(cmd.encode());
        cmd.setSerializeTypeCurrentRPC(SerializeType.ROCKETMQ);
        String binary = hex(cmd.encode());
        return "    {\"name\": " + str(name) + ", \"code\": " + code + ", \"ext_fields\": {" + String.join(", ", kv)
            + "},\n     \"json_frame_hex\": " + str(json) + ",\n     \"rocketmq_frame_hex\": " + str(binary) + "}";
    }

    public static void main(String[] args) throws Exception {
        PopMessageRequestHeader pop = new PopMessageRequestHeader();
        pop.setConsumerGroup("g");
        pop.setTopic("T");
        pop.setQueueId(-1);
        pop.setMaxMsgNums(16);
        pop.setInvisibleTime(30000);
        pop.setPollTime(5000);
        pop.setBornTime(1234);
        pop.setInitMode(1);
        pop.setExpType("TAG");
        pop.setExp("*");
        pop.setBrokerName("broker-a");

        // An orderly pop of one queue (PopMessageRequestHeader.order, as ConsumeMessagePopOrderlyService's pops).
        PopMessageRequestHeader popOrder = new PopMessageRequestHeader();
        popOrder.setConsumerGroup("g");
        popOrder.setTopic("T");
        popOrder.setQueueId(2);
        popOrder.setMaxMsgNums(16);
        popOrder.setInvisibleTime(30000);
        popOrder.setPollTime(5000);
        popOrder.setBornTime(1234);
        popOrder.setInitMode(1);
        popOrder.setExpType("TAG");
        popOrder.setExp("*");
        popOrder.setOrder(true);
        popOrder.setBrokerName("broker-a");

        String receipt = ExtraInfoUtil.buildExtraInfo(10, 1700000000000L, 30000, 2, "T", "broker-a", 1, 11);
        String retryReceipt =
            ExtraInfoUtil.buildExtraInfo(3, 1700000000000L, 30000, 2, "%RETRY%g_T", "broker-b", 0, 3);
        AckMessageRequestHeader ack = new AckMessageRequestHeader();
        String[] r = ExtraInfoUtil.split(retryReceipt);
        ack.setConsumerGroup("g");
        ack.setTopic(ExtraInfoUtil.getRealTopic(r, "T", "g"));
        ack.setQueueId(ExtraInfoUtil.getQueueId(r));
        ack.setExtraInfo(retryReceipt);
        ack.setOffset(ExtraInfoUtil.getQueueOffset(r));
        ack.setBrokerName(ExtraInfoUtil.getBrokerName(r));

        ChangeInvisibleTimeRequestHeader change = new ChangeInvisibleTimeRequestHeader();
        String[] c = ExtraInfoUtil.split(receipt);
        change.setConsumerGroup("g");
        change.setTopic(ExtraInfoUtil.getRealTopic(c, "T", "g"));
        change.setQueueId(ExtraInfoUtil.getQueueId(c));
        change.setExtraInfo(receipt);
        change.setOffset(ExtraInfoUtil.getQueueOffset(c));
        change.setInvisibleTime(5000L);
        change.setBrokerName(ExtraInfoUtil.getBrokerName(c));

        // A redelivery from the retry topic of enableRetryTopicV2 (%RETRY%<group>+<topic>): topic mark 2.
        String retryV2Receipt =
            ExtraInfoUtil.buildExtraInfo(4, 1700000000000L, 30000, 2, "%RETRY%g+T", "broker-b", 0, 4);
        AckMessageRequestHeader ackV2 = new AckMessageRequestHeader();
        String[] v = ExtraInfoUtil.split(retryV2Receipt);
        ackV2.setConsumerGroup("g");
        ackV2.setTopic(ExtraInfoUtil.getRealTopic(v, "T", "g"));
        ackV2.setQueueId(ExtraInfoUtil.getQueueId(v));
        ackV2.setExtraInfo(retryV2Receipt);
        ackV2.setOffset(ExtraInfoUtil.getQueueOffset(v));
        ackV2.setBrokerName(ExtraInfoUtil.getBrokerName(v));
        StringBuilder startV2 = new StringBuilder();
        ExtraInfoUtil.buildStartOffsetInfo(startV2, "T", 1, 10);
        ExtraInfoUtil.buildStartOffsetInfo(startV2, "%RETRY%g+T", 0, 4);
        StringBuilder offsetsV2 = new StringBuilder();
        ExtraInfoUtil.buildMsgOffsetInfo(offsetsV2, "T", 1, Arrays.asList(10L));
        ExtraInfoUtil.buildMsgOffsetInfo(offsetsV2, "%RETRY%g+T", 0, Arrays.asList(4L));

        StringBuilder start = new StringBuilder();
        ExtraInfoUtil.buildStartOffsetInfo(start, "T", 1, 10);
        ExtraInfoUtil.buildStartOffsetInfo(start, "%RETRY%g_T", 0, 3);
        StringBuilder offsets = new StringBuilder();
        ExtraInfoUtil.buildMsgOffsetInfo(offsets, "T", 1, Arrays.asList(10L, 11L));
        ExtraInfoUtil.buildMsgOffsetInfo(offsets, "%RETRY%g_T", 0, Arrays.asList(3L));

        // An orderly pop's answer: ConsumerOrderInfoManager.update writes one entry per message it served
        // before (its consumed count) and the queue's minimum, for older clients.
        String orderReceipt = ExtraInfoUtil.buildExtraInfo(20, 1700000000000L, 30000,
            org.apache.rocketmq.common.KeyBuilder.POP_ORDER_REVIVE_QUEUE, "T", "broker-a", 2, 21);
        StringBuilder orderStart = new StringBuilder();
        ExtraInfoUtil.buildStartOffsetInfo(orderStart, "T", 2, 20);
        StringBuilder orderOffsets = new StringBuilder();
        ExtraInfoUtil.buildMsgOffsetInfo(orderOffsets, "T", 2, Arrays.asList(20L, 21L, 22L));
        StringBuilder orderCount = new StringBuilder();
        ExtraInfoUtil.buildQueueOffsetOrderCountInfo(orderCount, "T", 2, 20, 3);
        ExtraInfoUtil.buildQueueOffsetOrderCountInfo(orderCount, "T", 2, 21, 2);
        ExtraInfoUtil.buildQueueIdOrderCountInfo(orderCount, "T", 2, 0);
        java.util.Map<String, Integer> parsedCount = ExtraInfoUtil.parseOrderCountInfo(orderCount.toString());
        List<String> parsed = new ArrayList<>();
        for (Map.Entry<String, Integer> e : new TreeMap<>(parsedCount).entrySet()) {
            parsed.add(str(e.getKey()) + ": " + e.getValue());
        }

        System.out.println("{");
        System.out.println("  \"generator\": \"tools/golden/PopGolden.java with the Apache RocketMQ "
            + org.apache.rocketmq.common.MQVersion.getVersionDesc(org.apache.rocketmq.common.MQVersion.CURRENT_VERSION)
            + " client\",");
        System.out.println("  \"commands\": [");
        System.out.println(command("pop", RequestCode.POP_MESSAGE, pop) + ",");
        System.out.println(command("pop_order", RequestCode.POP_MESSAGE, popOrder) + ",");
        System.out.println(command("ack", RequestCode.ACK_MESSAGE, ack) + ",");
        System.out.println(command("change", RequestCode.CHANGE_MESSAGE_INVISIBLETIME, change));
        System.out.println("  ],");
        System.out.println("  \"receipt\": " + str(receipt) + ",");
        System.out.println("  \"retry_receipt\": " + str(retryReceipt) + ",");
        System.out.println("  \"start_offset_info\": " + str(start.toString()) + ",");
        System.out.println("  \"msg_offset_info\": " + str(offsets.toString()) + ",");
        System.out.println("  \"retry_v2_receipt\": " + str(retryV2Receipt) + ",");
        System.out.println("  \"retry_v2_ack\":\n" + command("ack_v2", RequestCode.ACK_MESSAGE, ackV2) + ",");
        System.out.println("  \"retry_v2_start_offset_info\": " + str(startV2.toString()) + ",");
        System.out.println("  \"retry_v2_msg_offset_info\": " + str(offsetsV2.toString()) + ",");
        System.out.println("  \"order\": {\"receipt\": " + str(orderReceipt) + ", \"is_order\": "
            + ExtraInfoUtil.isOrder(ExtraInfoUtil.split(orderReceipt)) + ",");
        System.out.println("    \"start_offset_info\": " + str(orderStart.toString()) + ", \"msg_offset_info\": "
            + str(orderOffsets.toString()) + ",");
        System.out.println("    \"order_count_info\": " + str(orderCount.toString()) + ",");
        System.out.println("    \"parsed_order_count_info\": {" + String.join(", ", parsed) + "},");
        System.out.println("    \"queue_offset_key_of_21\": "
            + str(ExtraInfoUtil.getQueueOffsetMapKey("T", 2, 21)) + "}");
        System.out.println("}");
    }
}
