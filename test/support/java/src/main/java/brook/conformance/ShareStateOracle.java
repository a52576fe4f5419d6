package brook.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.coordinator.share.PersisterStateBatchCombiner;
import org.apache.kafka.server.share.persister.PersisterStateBatch;

/**
 * Runs Apache Kafka's share coordinator's PersisterStateBatchCombiner (kafka-share-coordinator)
 * for Brook's tests. Reads one JSON array of requests on stdin, writes one JSON array of replies:
 *
 *   {"soFar":[{"firstOffset":..,"lastOffset":..,"deliveryState":..,"deliveryCount":..}],
 *    "update":[...], "startOffset":..}  ->  [{"firstOffset":..,...}] (the combined batches)
 */
public final class ShareStateOracle {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws IOException {
        JsonNode requests = JSON.readTree(System.in);
        ArrayNode replies = JSON.createArrayNode();
        for (JsonNode request : requests) {
            List<PersisterStateBatch> combined = new PersisterStateBatchCombiner(
                batches(request.get("soFar")), batches(request.get("update")), request.get("startOffset").asLong()
            ).combineStateBatches();
            ArrayNode reply = replies.addArray();
            for (PersisterStateBatch b : combined) {
                ObjectNode o = reply.addObject();
                o.put("firstOffset", b.firstOffset());
                o.put("lastOffset", b.lastOffset());
                o.put("deliveryState", b.deliveryState());
                o.put("deliveryCount", b.deliveryCount());
            }
        }
        JSON.writeValue(System.out, replies);
    }

    private static List<PersisterStateBatch> batches(JsonNode list) {
        List<PersisterStateBatch> out = new ArrayList<>();
        for (JsonNode b : list) {
            out.add(new PersisterStateBatch(b.get("firstOffset").asLong(), b.get("lastOffset").asLong(),
                (byte) b.get("deliveryState").asInt(), (short) b.get("deliveryCount").asInt()));
        }
        return out;
    }
}
