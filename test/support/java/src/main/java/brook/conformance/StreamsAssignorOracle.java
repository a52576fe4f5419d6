package brook.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

/**
 * Runs Apache Kafka's streams-group task assignor (kafka-group-coordinator's
 * StickyTaskAssignor, KIP-1071) for Brook's tests. Reads one JSON array of requests on
 * stdin, writes one JSON array of replies:
 *
 *   {"numStandbyReplicas":n, "rackAwareAssignmentTags":[..],
 *    "subtopologies":[{"id":..,"partitions":n,"stateful":bool}],   (the describer's order)
 *    "members":[{"memberId":..,"instanceId":..|null,"rackId":..|null,"processId":..,
 *                "clientTags":{..},
 *                "activeTasks":{"<subtopology>":[..]},"standbyTasks":{..},"warmupTasks":{..},
 *                "taskOffsets":{"<subtopology>":{"<partition>":"<long>"}},"taskEndOffsets":{..}}]}
 *     -> {"assignment":{"<memberId>":{"activeTasks":{"<subtopology>":[..]},"standbyTasks":{..}}}}
 *
 * The members go into a LinkedHashMap in the order given, so the assignor iterates them in
 * that order (Kafka's TargetAssignmentBuilder uses a HashMap: the caller passes its order).
 * Each member's task maps are HashMaps of HashSets, as Kafka builds them. Replies list
 * subtopologies and partitions sorted. A failing request answers {"error":"<class>: <message>"}.
 */
public final class StreamsAssignorOracle {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws IOException {
        JsonNode requests = JSON.readTree(System.in);
        ArrayNode replies = JSON.createArrayNode();
        for (JsonNode request : requests) {
            try {
                replies.add(handle(request));
            } catch (Exception e) {
                ObjectNode error = JSON.createObjectNode();
                error.put("error", e.getClass().getName() + ": " + e.getMessage());
                replies.add(error);
            }
        }
        JSON.writeValue(System.out, replies);
    }

    private static ObjectNode handle(JsonNode request) {
        List<String> subtopologies = new ArrayList<>();
        Map<String, Integer> partitions = new HashMap<>();
        Set<String> stateful = new HashSet<>();
        for (JsonNode s : request.get("subtopologies")) {
            String id = s.get("id").asText();
            subtopologies.add(id);
            partitions.put(id, s.get("partitions").asInt());
            if (s.get("stateful").asBoolean()) stateful.add(id);
        }
        TopologyDescriber topology = new TopologyDescriber() {
            @Override
            public List<String> subtopologies() {
                return subtopologies;
            }

            @Override
            public int maxNumInputPartitions(String subtopologyId) {
                Integer n = partitions.get(subtopologyId);
                if (n == null) throw new NoSuchElementException("Unknown subtopology: " + subtopologyId);
                return n;
            }

            @Override
            public boolean isStateful(String subtopologyId) {
                return stateful.contains(subtopologyId);
            }
        };

        Map<String, MemberMetadataAndStateImpl> members = new LinkedHashMap<>();
        for (JsonNode m : request.get("members")) {
            Map<String, String> clientTags = new HashMap<>();
            m.path("clientTags").fields().forEachRemaining(e -> clientTags.put(e.getKey(), e.getValue().asText()));
            members.put(m.get("memberId").asText(), new MemberMetadataAndStateImpl(
                Optional.ofNullable(textOrNull(m.get("instanceId"))),
                Optional.ofNullable(textOrNull(m.get("rackId"))),
                m.get("processId").asText(),
                clientTags,
                tasks(m.path("activeTasks")),
                tasks(m.path("standbyTasks")),
                tasks(m.path("warmupTasks")),
                offsets(m.path("taskOffsets")),
                offsets(m.path("taskEndOffsets"))
            ));
        }
        List<String> tags = new ArrayList<>();
        for (JsonNode t : request.path("rackAwareAssignmentTags")) tags.add(t.asText());
        AssignmentConfigsImpl configs = new AssignmentConfigsImpl(request.get("numStandbyReplicas").asInt(), tags);

        GroupAssignment result = new StickyTaskAssignor().assign(new GroupSpecImpl(members, configs), topology);
        ObjectNode reply = JSON.createObjectNode();
        ObjectNode byMember = reply.putObject("assignment");
        for (Map.Entry<String, MemberAssignment> e : new TreeMap<>(result.members()).entrySet()) {
            ObjectNode member = byMember.putObject(e.getKey());
            member.set("activeTasks", toJson(e.getValue().activeTasks()));
            member.set("standbyTasks", toJson(e.getValue().standbyTasks()));
        }
        return reply;
    }

    private static Map<String, Set<Integer>> tasks(JsonNode node) {
        Map<String, Set<Integer>> tasks = new HashMap<>();
        node.fields().forEachRemaining(e -> {
            Set<Integer> ps = new HashSet<>();
            for (JsonNode p : e.getValue()) ps.add(p.asInt());
            tasks.put(e.getKey(), ps);
        });
        return tasks;
    }

    private static Map<String, Map<Integer, Long>> offsets(JsonNode node) {
        Map<String, Map<Integer, Long>> offsets = new HashMap<>();
        node.fields().forEachRemaining(e -> {
            Map<Integer, Long> byPartition = new HashMap<>();
            e.getValue().fields().forEachRemaining(p -> byPartition.put(Integer.parseInt(p.getKey()), Long.parseLong(p.getValue().asText())));
            offsets.put(e.getKey(), byPartition);
        });
        return offsets;
    }

    private static ObjectNode toJson(Map<String, Set<Integer>> tasks) {
        ObjectNode node = JSON.createObjectNode();
        for (Map.Entry<String, Set<Integer>> e : new TreeMap<>(tasks).entrySet()) {
            ArrayNode ps = node.putArray(e.getKey());
            for (Integer p : new TreeSet<>(e.getValue())) ps.add(p);
        }
        return node;
    }

    private static String textOrNull(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }
}
