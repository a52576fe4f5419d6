package brook.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseDataJsonConverter;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.generated.StreamsGroupTopologyValue;
import org.apache.kafka.coordinator.group.generated.StreamsGroupTopologyValueJsonConverter;
import org.apache.kafka.coordinator.group.streams.StreamsTopology;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredInternalTopic;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredSubtopology;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredTopology;
import org.apache.kafka.coordinator.group.streams.topics.InternalTopicManager;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.slf4j.helpers.NOPLogger;

/**
 * Runs Kafka 4.4's InternalTopicManager.configureTopics for Brook's tests. Reads one JSON
 * array of requests on stdin, writes one JSON array of replies:
 *
 *   {"topology": <StreamsGroupTopologyValue as its JsonConverter reads it (version 0)>,
 *    "topics": {"<name>": partitionCount, ...}}
 *     -> {"topologyEpoch":n, "subtopologies": {"<id>": {"numberOfTasks":n, "sourceTopics":[..],
 *          "repartitionSinkTopics":[..], "repartitionSourceTopics":[<internal topic>..],
 *          "stateChangelogTopics":[<internal topic>..]}} | null,
 *         "internalTopicsToBeCreated": [{"name":..,"numPartitions":n,"replicationFactor":n,
 *          "configs":[{"name":..,"value":..}]}],
 *         "status": code | null, "message": ".." | null,
 *         "describe": <StreamsGroupDescribeResponseData.Topology as its JsonConverter writes it>}
 *
 * An internal topic is {"name","numberOfPartitions","replicationFactor" (null when empty),
 * "topicConfigs":[[key,value]..]}; collections are listed in Kafka's iteration order. The
 * topology goes through StreamsTopology.fromRecord and the topics into a MetadataImage by
 * replaying TopicRecord and PartitionRecord (one replica, broker 0), as the coordinator sees
 * them in KRaftCoordinatorMetadataImage. An exception escaping configureTopics answers
 * {"exception": "<class simple name>", "message": ".."}.
 */
public final class StreamsTopologyOracle {
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
        StreamsGroupTopologyValue value = StreamsGroupTopologyValueJsonConverter.read(request.get("topology"), (short) 0);
        StreamsTopology topology = StreamsTopology.fromRecord(value);
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        request.get("topics").fields().forEachRemaining(e -> {
            Uuid id = Uuid.randomUuid();
            delta.replay(new TopicRecord().setName(e.getKey()).setTopicId(id));
            for (int p = 0; p < e.getValue().asInt(); p++) {
                delta.replay(new PartitionRecord().setPartitionId(p).setTopicId(id)
                    .setReplicas(List.of(0)).setIsr(List.of(0)).setLeader(0).setLeaderEpoch(0).setPartitionEpoch(0));
            }
        });
        MetadataImage image = delta.apply(MetadataProvenance.EMPTY);
        ObjectNode reply = JSON.createObjectNode();
        ConfiguredTopology configured;
        try {
            configured = InternalTopicManager.configureTopics(NOPLogger.NOP_LOGGER, "group", "member", 0L,
                topology, new KRaftCoordinatorMetadataImage(image), Time.SYSTEM);
        } catch (RuntimeException e) {
            reply.put("exception", e.getClass().getSimpleName());
            reply.put("message", e.getMessage());
            return reply;
        }
        reply.put("topologyEpoch", configured.topologyEpoch());
        if (configured.subtopologies().isPresent()) {
            ObjectNode subs = reply.putObject("subtopologies");
            for (Map.Entry<String, ConfiguredSubtopology> e : configured.subtopologies().get().entrySet()) {
                ConfiguredSubtopology s = e.getValue();
                ObjectNode o = subs.putObject(e.getKey());
                o.put("numberOfTasks", s.numberOfTasks());
                ArrayNode sources = o.putArray("sourceTopics");
                s.sourceTopics().stream().sorted().forEach(sources::add);
                ArrayNode sinks = o.putArray("repartitionSinkTopics");
                s.repartitionSinkTopics().stream().sorted().forEach(sinks::add);
                ArrayNode rs = o.putArray("repartitionSourceTopics");
                s.repartitionSourceTopics().values().forEach(t -> rs.add(internalTopic(t)));
                ArrayNode cl = o.putArray("stateChangelogTopics");
                s.stateChangelogTopics().values().forEach(t -> cl.add(internalTopic(t)));
            }
        } else {
            reply.putNull("subtopologies");
        }
        ArrayNode create = reply.putArray("internalTopicsToBeCreated");
        for (CreatableTopic t : configured.internalTopicsToBeCreated().values()) {
            ObjectNode o = create.addObject();
            o.put("name", t.name());
            o.put("numPartitions", t.numPartitions());
            o.put("replicationFactor", t.replicationFactor());
            ArrayNode configs = o.putArray("configs");
            for (CreatableTopicConfig c : t.configs()) {
                ObjectNode kv = configs.addObject();
                kv.put("name", c.name());
                kv.put("value", c.value());
            }
        }
        if (configured.topicConfigurationException().isPresent()) {
            reply.put("status", configured.topicConfigurationException().get().status().code());
            reply.put("message", configured.topicConfigurationException().get().getMessage());
        } else {
            reply.putNull("status");
            reply.putNull("message");
        }
        StreamsGroupDescribeResponseData.Topology described = configured.asStreamsGroupDescribeTopology();
        reply.set("describe", StreamsGroupDescribeResponseDataJsonConverter.TopologyJsonConverter.write(described, (short) 0));
        return reply;
    }

    private static ObjectNode internalTopic(ConfiguredInternalTopic t) {
        ObjectNode o = JSON.createObjectNode();
        o.put("name", t.name());
        o.put("numberOfPartitions", t.numberOfPartitions());
        if (t.replicationFactor().isPresent()) o.put("replicationFactor", t.replicationFactor().get());
        else o.putNull("replicationFactor");
        ArrayNode configs = o.putArray("topicConfigs");
        t.topicConfigs().forEach((k, v) -> configs.addArray().add(k).add(v));
        return o;
    }
}
