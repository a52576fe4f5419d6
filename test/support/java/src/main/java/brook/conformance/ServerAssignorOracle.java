package brook.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

/**
 * Runs Apache Kafka's server-side assignors, kafka-group-coordinator's UniformAssignor and
 * RangeAssignor (consumer groups, KIP-848) and SimpleAssignor (share groups, KIP-932), for
 * Brook's tests. Reads one JSON array of requests on stdin, writes one JSON array of replies:
 *
 *   {"assignor":"uniform"|"range"|"simple","subscriptionType":"homogeneous"|"heterogeneous",
 *    "assignable":{"<topicId>":[..]} (optional: the partitions a share group may assign),
 *    "partitions":{"<topicId>":n},
 *    "members":[{"memberId":..,"instanceId":..|null,"rackId":..|null,
 *                "subscribedTopicIds":[..],
 *                "assignment":[{"topicId":..,"partitions":[..]}]}]}
 *     -> {"assignment":{"<memberId>":[{"topicId":..,"partitions":[..]}]}}
 *
 * The group spec is built as Kafka's TargetAssignmentBuilder builds it: members put into a
 * HashMap in the order given, each member's topic ids kept in the order given, its current
 * assignment as Kafka replays it from a record (Assignment.fromRecord: a HashMap filled in
 * list order, each partition list copied into a HashSet). The partitions already assigned
 * are those of the members' assignments. Replies list topics and partitions in the
 * iteration order of the assignor's result, as Kafka writes them into records.
 * A failing request answers {"error":"..."} instead.
 */
public final class ServerAssignorOracle {
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

    /** A request ready to assign: Kafka's assignor, the group spec and the topics, as TargetAssignmentBuilder hands them over. */
    record Prepared(PartitionAssignor assignor, GroupSpecImpl spec, SubscribedTopicDescriber topics) {
        GroupAssignment assign() {
            return assignor.assign(spec, topics);
        }
    }

    private static ObjectNode handle(JsonNode request) {
        ObjectNode reply = JSON.createObjectNode();
        reply.set("assignment", toJson(prepare(request).assign()));
        return reply;
    }

    /** An assignor's result as the replies list it: member id -> topics and partitions, in the result's iteration order. */
    static ObjectNode toJson(GroupAssignment result) {
        ObjectNode byMember = JSON.createObjectNode();
        for (Map.Entry<String, MemberAssignment> e : result.members().entrySet()) {
            ArrayNode list = byMember.putArray(e.getKey());
            for (Map.Entry<Uuid, Set<Integer>> t : e.getValue().partitions().entrySet()) {
                ObjectNode topic = list.addObject();
                topic.put("topicId", t.getKey().toString());
                ArrayNode ps = topic.putArray("partitions");
                for (Integer p : t.getValue()) ps.add(p);
            }
        }
        return byMember;
    }

    static Prepared prepare(JsonNode request) {
        PartitionAssignor assignor = switch (request.get("assignor").asText()) {
            case "uniform" -> new UniformAssignor();
            case "range" -> new RangeAssignor();
            case "simple" -> new SimpleAssignor();
            default -> throw new IllegalArgumentException("unknown assignor " + request.get("assignor"));
        };
        Map<Uuid, Integer> partitions = new HashMap<>();
        request.get("partitions").fields().forEachRemaining(e -> partitions.put(Uuid.fromString(e.getKey()), e.getValue().asInt()));

        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        for (JsonNode m : request.get("members")) {
            String memberId = m.get("memberId").asText();
            Set<Uuid> topicIds = new LinkedHashSet<>();
            for (JsonNode t : m.get("subscribedTopicIds")) topicIds.add(Uuid.fromString(t.asText()));
            List<Map.Entry<Uuid, List<Integer>>> lists = new ArrayList<>();
            for (JsonNode t : m.get("assignment")) {
                List<Integer> ps = new ArrayList<>();
                for (JsonNode p : t.get("partitions")) {
                    ps.add(p.asInt());
                    inverted.computeIfAbsent(Uuid.fromString(t.get("topicId").asText()), k -> new HashMap<>()).put(p.asInt(), memberId);
                }
                lists.add(Map.entry(Uuid.fromString(t.get("topicId").asText()), ps));
            }
            Map<Uuid, Set<Integer>> assignment = lists.stream().collect(Collectors.toMap(Map.Entry::getKey, e -> new HashSet<>(e.getValue())));
            members.put(memberId, new MemberSubscriptionAndAssignmentImpl(
                Optional.ofNullable(textOrNull(m.get("rackId"))),
                Optional.ofNullable(textOrNull(m.get("instanceId"))),
                topicIds,
                new Assignment(assignment)
            ));
        }
        SubscriptionType type = request.get("subscriptionType").asText().equals("homogeneous") ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
        SubscribedTopicDescriber topics = new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return partitions.getOrDefault(topicId, -1);
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return Set.of();
            }
        };
        Optional<Map<Uuid, Set<Integer>>> assignable = Optional.empty();
        if (request.hasNonNull("assignable")) {
            Map<Uuid, Set<Integer>> allowed = new HashMap<>();
            request.get("assignable").fields().forEachRemaining(e -> {
                Set<Integer> ps = new HashSet<>();
                for (JsonNode p : e.getValue()) ps.add(p.asInt());
                allowed.put(Uuid.fromString(e.getKey()), ps);
            });
            assignable = Optional.of(allowed);
        }
        return new Prepared(assignor, new GroupSpecImpl(members, type, inverted, assignable), topics);
    }

    private static String textOrNull(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }
}
