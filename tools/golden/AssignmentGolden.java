// Prints tests/data/assignment.json: the QUERY_ASSIGNMENT (400) and SET_MESSAGE_REQUEST_MODE (401) bodies as
// Apache RocketMQ 5.x's own classes write them, for rmq's unit tests (tests/unit/remoting/assignment_test.cpp).
// Run from the repository root:
//
//   CP=$(tools/rocketmq.sh classpath client) && javac -cp "$CP" -d /tmp/asg_golden tools/golden/AssignmentGolden.java &&
//   java -cp "$CP:/tmp/asg_golden" AssignmentGolden > tests/data/assignment.json
//
// Standard library and the RocketMQ client only; the surrounding JSON is written by hand so its layout stays stable.

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.message.MessageQueueAssignment;
import org.apache.rocketmq.common.message.MessageRequestMode;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.body.QueryAssignmentRequestBody;
import org.apache.rocketmq.remoting.protocol.body.QueryAssignmentResponseBody;
import org.apache.rocketmq.remoting.protocol.body.SetMessageRequestModeRequestBody;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;

public final class AssignmentGolden {
    private AssignmentGolden() {
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

    private static String body(byte[] b) {
        return str(new String(b, StandardCharsets.UTF_8));
    }

    private static String query(String topic, String group, String cid, String strategy, MessageModel model) {
        QueryAssignmentRequestBody b = new QueryAssignmentRequestBody();
        b.setTopic(topic);
        b.setConsumerGroup(group);
        b.setClientId(cid);
        b.setStrategyName(strategy);
        b.setMessageModel(model);
        return "    {\"topic\": " + str(topic) + ", \"consumer_group\": " + str(group) + ", \"client_id\": " + str(cid)
            + ", \"strategy_name\": " + str(strategy) + ", \"message_model\": " + str(model.name())
            + ", \"body\": " + body(b.encode()) + "}";
    }

    private static MessageQueueAssignment assignment(MessageQueue mq, MessageRequestMode mode, Map<String, String> att) {
        MessageQueueAssignment a = new MessageQueueAssignment();
        a.setMessageQueue(mq);
        a.setMode(mode);
        a.setAttachments(att);
        return a;
    }

    private static String assignmentJson(MessageQueueAssignment a) {
        StringBuilder sb = new StringBuilder("{\"topic\": ").append(str(a.getMessageQueue().getTopic()))
            .append(", \"broker_name\": ").append(str(a.getMessageQueue().getBrokerName()))
            .append(", \"queue_id\": ").append(a.getMessageQueue().getQueueId())
            .append(", \"mode\": ").append(str(a.getMode().name())).append(", \"attachments\": {");
        if (a.getAttachments() != null) {
            List<String> kv = new ArrayList<>();
            for (Map.Entry<String, String> e : new java.util.TreeMap<>(a.getAttachments()).entrySet()) {
                kv.add(str(e.getKey()) + ": " + str(e.getValue()));
            }
            sb.append(String.join(", ", kv));
        }
        return sb.append("}}").toString();
    }

    private static String response(String name, Set<MessageQueueAssignment> set) {
        QueryAssignmentResponseBody r = new QueryAssignmentResponseBody();
        r.setMessageQueueAssignments(set);
        String decoded = "null";
        if (set != null) {
            List<String> items = new ArrayList<>();
            for (MessageQueueAssignment a : set) {
                items.add(assignmentJson(a));
            }
            decoded = "[" + String.join(", ", items) + "]";
        }
        return "    {\"name\": " + str(name) + ", \"assignments\": " + decoded + ", \"body\": " + body(r.encode()) + "}";
    }

    private static String setMode(String topic, String group, MessageRequestMode mode, int share) {
        SetMessageRequestModeRequestBody b = new SetMessageRequestModeRequestBody();
        b.setTopic(topic);
        b.setConsumerGroup(group);
        b.setMode(mode);
        b.setPopShareQueueNum(share);
        return "    {\"topic\": " + str(topic) + ", \"consumer_group\": " + str(group) + ", \"mode\": " + str(mode.name())
            + ", \"pop_share_queue_num\": " + share + ", \"body\": " + body(b.encode()) + "}";
    }

    public static void main(String[] args) {
        StringBuilder out = new StringBuilder("{\n");
        out.append("  \"codes\": {\"query_assignment\": ").append(RequestCode.QUERY_ASSIGNMENT)
            .append(", \"set_message_request_mode\": ").append(RequestCode.SET_MESSAGE_REQUEST_MODE).append("},\n");
        out.append("  \"query_requests\": [\n");
        out.append(query("TopicTest", "group_a", "10.0.0.1@1234#1", "AVG", MessageModel.CLUSTERING)).append(",\n");
        out.append(query("%RETRY%group_a", "group_a", "10.0.0.2@99", "AVG_BY_CIRCLE", MessageModel.BROADCASTING))
            .append(",\n");
        out.append(query("T\"q\\", "g", "c", "", MessageModel.CLUSTERING)).append("\n  ],\n");

        out.append("  \"query_responses\": [\n");
        Set<MessageQueueAssignment> two = new HashSet<>();
        two.add(assignment(new MessageQueue("TopicTest", "broker-a", 0), MessageRequestMode.PULL, null));
        two.add(assignment(new MessageQueue("TopicTest", "broker-b", 3), MessageRequestMode.PULL, null));
        out.append(response("two_pull", two)).append(",\n");
        Set<MessageQueueAssignment> pop = new HashSet<>();
        Map<String, String> att = new HashMap<>();
        att.put("k1", "v1");
        att.put("k2", "v2");
        pop.add(assignment(new MessageQueue("TopicTest", "broker-a", -1), MessageRequestMode.POP, att));
        out.append(response("pop_with_attachments", pop)).append(",\n");
        out.append(response("empty", new HashSet<>())).append(",\n");
        out.append(response("null", null)).append("\n  ],\n");

        out.append("  \"set_mode_requests\": [\n");
        out.append(setMode("TopicTest", "group_a", MessageRequestMode.POP, 2)).append(",\n");
        out.append(setMode("TopicTest", "group_b", MessageRequestMode.PULL, 0)).append("\n  ]\n");
        out.append("}\n");
        System.out.print(out);
    }
}
