package brook.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Arrays;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;

/**
 * Times Apache Kafka's server-side assignors (kafka-group-coordinator's UniformAssignor,
 * RangeAssignor) for Brook's benchmark, on the group specs ServerAssignorOracle builds
 * (same JSON requests on stdin, each with "runs" and "warmups"): each request is assigned
 * "warmups" times untimed (the JIT's turn), then "runs" times. Writes one JSON array:
 *
 *   [{"medianMs": m, "minMs": n, "assigned": partitions assigned in the last run,
 *     "assignment": the last run's result, as ServerAssignorOracle lists it}]
 *
 * The assignment lets the benchmark check that Brook's assignor, timed on the same group,
 * gave the same answer.
 */
public final class BenchServerAssignor {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws IOException {
        JsonNode requests = JSON.readTree(System.in);
        ArrayNode replies = JSON.createArrayNode();
        for (JsonNode request : requests) {
            ServerAssignorOracle.Prepared prepared = ServerAssignorOracle.prepare(request);
            for (int i = 0; i < request.get("warmups").asInt(); i++) prepared.assign();
            int runs = request.get("runs").asInt();
            double[] times = new double[runs];
            GroupAssignment last = null;
            for (int i = 0; i < runs; i++) {
                long start = System.nanoTime();
                last = prepared.assign();
                times[i] = (System.nanoTime() - start) / 1e6;
            }
            Arrays.sort(times);
            long assigned = 0;
            for (MemberAssignment m : last.members().values()) for (var ps : m.partitions().values()) assigned += ps.size();
            ObjectNode reply = replies.addObject();
            reply.put("medianMs", times[runs / 2]);
            reply.put("minMs", times[0]);
            reply.put("assigned", assigned);
            reply.set("assignment", ServerAssignorOracle.toJson(last));
        }
        JSON.writeValue(System.out, replies);
    }
}
