package brook.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.coordinator.group.streams.CurrentAssignmentBuilder;
import org.apache.kafka.coordinator.group.streams.MemberState;
import org.apache.kafka.coordinator.group.streams.StreamsGroupMember;
import org.apache.kafka.coordinator.group.streams.TasksTuple;
import org.apache.kafka.coordinator.group.streams.TasksTupleWithEpochs;

/**
 * Runs Apache Kafka 4.4's streams CurrentAssignmentBuilder (kafka-group-coordinator) for
 * Brook's tests: how a streams group member moves towards its target. Reads one JSON array of
 * requests on stdin, writes one JSON array of replies:
 *
 *   {"member":{"memberId":..,"memberEpoch":n,"previousMemberEpoch":n,"state":byte,"processId":..,
 *              "assigned":TASKS,"pending":TASKS,"activeEpochs":{"<sub>":{"<p>":n}}},
 *    "targetEpoch":n,"target":TASKS,
 *    "activeOwners":{"<sub>":{"<p>":"<processId>"}},
 *    "standbyOwners":{"<sub>":{"<p>":["<processId>",..]}},"warmupOwners":{..},
 *    "owned":TASKS|null}
 *     -> {"memberEpoch":n,"previousMemberEpoch":n,"state":byte,"assigned":TASKS,"pending":TASKS,
 *         "activeEpochs":{"<sub>":{"<p>":n}}}
 *
 * TASKS is {"active":{"<sub>":[p,..]},"standby":{..},"warmup":{..}}. The member's active tasks
 * carry the assignment epochs of activeEpochs (Kafka 4.4 keeps one per active task; missing:
 * the member epoch); the reply gives those of the next member's active tasks. A failing
 * request answers {"error":"..."} instead.
 */
public final class StreamsReconcileOracle {
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

    private static Map<String, Set<Integer>> tasks(JsonNode node) {
        Map<String, Set<Integer>> out = new HashMap<>();
        if (node == null || node.isNull()) return out;
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Set<Integer> ps = new HashSet<>();
            for (JsonNode p : e.getValue()) ps.add(p.asInt());
            if (!ps.isEmpty()) out.put(e.getKey(), ps);
        }
        return out;
    }

    private static Map<String, Map<Integer, Integer>> withEpoch(Map<String, Set<Integer>> tasks, int epoch) {
        Map<String, Map<Integer, Integer>> out = new HashMap<>();
        tasks.forEach((sub, ps) -> {
            Map<Integer, Integer> m = new HashMap<>();
            for (Integer p : ps) m.put(p, epoch);
            out.put(sub, m);
        });
        return out;
    }

    private static TasksTupleWithEpochs tupleWithEpochs(JsonNode node, int epoch, JsonNode epochs) {
        Map<String, Map<Integer, Integer>> active = withEpoch(tasks(node.get("active")), epoch);
        if (epochs != null && !epochs.isNull()) {
            active.forEach((sub, ps) -> ps.replaceAll((p, e) -> {
                JsonNode s = epochs.get(sub);
                JsonNode v = s == null ? null : s.get(Integer.toString(p));
                return v == null ? e : v.asInt();
            }));
        }
        return new TasksTupleWithEpochs(active, tasks(node.get("standby")), tasks(node.get("warmup")));
    }

    private static TasksTuple tuple(JsonNode node) {
        return new TasksTuple(tasks(node.get("active")), tasks(node.get("standby")), tasks(node.get("warmup")));
    }

    private static String owner(JsonNode owners, String sub, int p) {
        JsonNode s = owners == null ? null : owners.get(sub);
        JsonNode v = s == null ? null : s.get(Integer.toString(p));
        return v == null || v.isNull() ? null : v.asText();
    }

    private static Set<String> owners(JsonNode owners, String sub, int p) {
        Set<String> out = new HashSet<>();
        JsonNode s = owners == null ? null : owners.get(sub);
        JsonNode v = s == null ? null : s.get(Integer.toString(p));
        if (v != null) for (JsonNode id : v) out.add(id.asText());
        return out;
    }

    private static ObjectNode handle(JsonNode request) {
        JsonNode m = request.get("member");
        int epoch = m.get("memberEpoch").asInt();
        StreamsGroupMember member = new StreamsGroupMember.Builder(m.get("memberId").asText())
            .setMemberEpoch(epoch)
            .setPreviousMemberEpoch(m.get("previousMemberEpoch").asInt())
            .setState(MemberState.fromValue((byte) m.get("state").asInt()))
            .setProcessId(m.get("processId").asText())
            .setRackId(null).setInstanceId(null).setClientId("c").setClientHost("h").setRebalanceTimeoutMs(30000).setTopologyEpoch(0)
            .setClientTags(Map.of()).setUserEndpoint(null)
            .setAssignedTasks(tupleWithEpochs(m.get("assigned"), epoch, m.get("activeEpochs")))
            .setTasksPendingRevocation(tupleWithEpochs(m.get("pending"), epoch, m.get("activeEpochs")))
            .build();
        JsonNode activeOwners = request.get("activeOwners"), standbyOwners = request.get("standbyOwners"), warmupOwners = request.get("warmupOwners");
        CurrentAssignmentBuilder builder = new CurrentAssignmentBuilder(member)
            .withTargetAssignment(request.get("targetEpoch").asInt(), tuple(request.get("target")))
            .withCurrentActiveTaskProcessId((sub, p) -> owner(activeOwners, sub, p))
            .withCurrentStandbyTaskProcessIds((sub, p) -> owners(standbyOwners, sub, p))
            .withCurrentWarmupTaskProcessIds((sub, p) -> owners(warmupOwners, sub, p));
        JsonNode owned = request.get("owned");
        if (owned != null && !owned.isNull()) builder = builder.withOwnedAssignment(tuple(owned));
        StreamsGroupMember next = builder.build();
        ObjectNode reply = JSON.createObjectNode();
        reply.put("memberEpoch", next.memberEpoch());
        reply.put("previousMemberEpoch", next.previousMemberEpoch());
        reply.put("state", next.state().value());
        reply.set("assigned", toJson(next.assignedTasks()));
        reply.set("pending", toJson(next.tasksPendingRevocation()));
        ObjectNode epochs = JSON.createObjectNode();
        Map<String, Map<Integer, Integer>> all = new TreeMap<>();
        for (TasksTupleWithEpochs t : List.of(next.assignedTasks(), next.tasksPendingRevocation())) {
            t.activeTasksWithEpochs().forEach((sub, ps) -> all.computeIfAbsent(sub, k -> new TreeMap<>()).putAll(ps));
        }
        all.forEach((sub, ps) -> {
            if (ps.isEmpty()) return;
            ObjectNode o = epochs.putObject(sub);
            ps.forEach((p, e) -> o.put(Integer.toString(p), e));
        });
        reply.set("activeEpochs", epochs);
        return reply;
    }

    private static ObjectNode toJson(TasksTupleWithEpochs t) {
        ObjectNode out = JSON.createObjectNode();
        Map<String, Set<Integer>> active = new HashMap<>();
        t.activeTasksWithEpochs().forEach((sub, ps) -> active.put(sub, ps.keySet()));
        out.set("active", setsToJson(active));
        out.set("standby", setsToJson(t.standbyTasks()));
        out.set("warmup", setsToJson(t.warmupTasks()));
        return out;
    }

    private static ObjectNode setsToJson(Map<String, Set<Integer>> tasks) {
        ObjectNode out = JSON.createObjectNode();
        new TreeMap<>(tasks).forEach((sub, ps) -> {
            if (ps.isEmpty()) return;
            ArrayNode list = out.putArray(sub);
            for (Integer p : new TreeSet<>(ps)) list.add(p);
        });
        return out;
    }
}
