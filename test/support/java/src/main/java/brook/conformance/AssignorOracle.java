package brook.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs Apache Kafka's own partition assignors (kafka-clients 4.4.0) for Brook's assignor
 * tests. Reads one JSON array of requests on stdin, writes one JSON array of replies:
 *
 *   {"op":"assign","assignor":"range"|"roundrobin"|"sticky"|"cooperative-sticky",
 *    "partitionsPerTopic":{"t":3},
 *    "members":[{"memberId":..,"groupInstanceId":..|null,"topics":[..],"userData":base64|null,
 *                "ownedPartitions":[{"topic":..,"partition":..}],"generationId":n,"rackId":..|null}]}
 *     -> {"assignment":{"memberId":[{"topic":..,"partition":..}]}}
 *   {"op":"sticky-user-data","partitions":[..],"generation":n}
 *     -> {"userData":base64}  (StickyAssignor.subscriptionUserData after onAssignment)
 *
 * A failing request answers {"error":"..."} instead.
 */
public final class AssignorOracle {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws IOException {
        JsonNode requests = JSON.readTree(System.in);
        ArrayNode replies = JSON.createArrayNode();
        for (JsonNode request : requests) {
            try {
                replies.add(handle(request));
            } catch (Exception e) {
                ObjectNode error = JSON.createObjectNode();
                StackTraceElement[] at = e.getStackTrace();
                error.put("error", e + (at.length > 0 ? " at " + at[0] : ""));
                replies.add(error);
            }
        }
        JSON.writeValue(System.out, replies);
    }

    private static ObjectNode handle(JsonNode request) {
        String op = request.get("op").asText();
        switch (op) {
            case "assign":
                return assign(request);
            case "sticky-user-data":
                return stickyUserData(request);
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    private static AbstractPartitionAssignor assignor(String name) {
        switch (name) {
            case "range": return new RangeAssignor();
            case "roundrobin": return new RoundRobinAssignor();
            case "sticky": return new StickyAssignor();
            case "cooperative-sticky": return new CooperativeStickyAssignor();
            default: throw new IllegalArgumentException("unknown assignor " + name);
        }
    }

    private static ObjectNode assign(JsonNode request) {
        Map<String, Integer> partitionsPerTopic = new HashMap<>();
        request.get("partitionsPerTopic").fields().forEachRemaining(e -> partitionsPerTopic.put(e.getKey(), e.getValue().asInt()));
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (JsonNode m : request.get("members")) {
            List<String> topics = new ArrayList<>();
            m.get("topics").forEach(t -> topics.add(t.asText()));
            ByteBuffer userData = m.get("userData").isNull() ? null : ByteBuffer.wrap(Base64.getDecoder().decode(m.get("userData").asText()));
            Optional<String> rackId = m.get("rackId").isNull() ? Optional.empty() : Optional.of(m.get("rackId").asText());
            Subscription subscription = new Subscription(topics, userData, partitions(m.get("ownedPartitions")), m.get("generationId").asInt(), rackId);
            if (!m.get("groupInstanceId").isNull()) subscription.setGroupInstanceId(Optional.of(m.get("groupInstanceId").asText()));
            subscriptions.put(m.get("memberId").asText(), subscription);
        }
        Map<String, List<TopicPartition>> result = assignor(request.get("assignor").asText()).assign(partitionsPerTopic, subscriptions);
        ObjectNode assignment = JSON.createObjectNode();
        result.forEach((member, tps) -> assignment.set(member, toJson(tps)));
        ObjectNode reply = JSON.createObjectNode();
        reply.set("assignment", assignment);
        return reply;
    }

    private static ObjectNode stickyUserData(JsonNode request) {
        StickyAssignor sticky = new StickyAssignor();
        sticky.onAssignment(new Assignment(partitions(request.get("partitions"))),
            new ConsumerGroupMetadata("group", request.get("generation").asInt(), "member", Optional.empty()));
        ByteBuffer userData = sticky.subscriptionUserData(new HashSet<>());
        byte[] bytes = new byte[userData.remaining()];
        userData.get(bytes);
        ObjectNode reply = JSON.createObjectNode();
        reply.put("userData", Base64.getEncoder().encodeToString(bytes));
        return reply;
    }

    private static List<TopicPartition> partitions(JsonNode list) {
        List<TopicPartition> out = new ArrayList<>();
        for (JsonNode tp : list) out.add(new TopicPartition(tp.get("topic").asText(), tp.get("partition").asInt()));
        return out;
    }

    private static ArrayNode toJson(List<TopicPartition> tps) {
        ArrayNode out = JSON.createArrayNode();
        for (TopicPartition tp : tps) {
            ObjectNode node = JSON.createObjectNode();
            node.put("topic", tp.topic());
            node.put("partition", tp.partition());
            out.add(node);
        }
        return out;
    }
}
