package brook.conformance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of a share group, with Apache Kafka's real {@link KafkaShareConsumer} (KIP-932),
 * explicit acknowledgement.
 *
 * <pre>java -cp brook-conformance.jar brook.conformance.ShareGroupConsumer &lt;bootstrap&gt; &lt;topic&gt; &lt;group&gt;
 *     &lt;releaseEvery&gt; &lt;stopFile&gt; &lt;timeoutMs&gt; [&lt;clientId&gt;]</pre>
 *
 * Subscribes to the topic and polls. Each record is acknowledged: RELEASE when it is delivered
 * for the first time and its offset is a multiple of {@code releaseEvery} (0: never), so it must
 * come back with a higher delivery count; ACCEPT otherwise. After each poll's acknowledgements,
 * {@code commitSync()} makes them durable, and only then is each accepted record printed, one
 * JSON line {@code {"p":partition,"o":offset,"d":deliveryCount,"v":value,"ack":"ACCEPT"}}
 * (released ones print {@code "ack":"RELEASE"}; a commit error prints {@code {"error":..}}).
 * Stops (and closes, which leaves the group) once {@code stopFile} exists or after
 * {@code timeoutMs}, then prints {@code {"closed":true}}.
 */
public final class ShareGroupConsumer {
    public static void main(String[] args) throws Exception {
        if (args.length != 6 && args.length != 7) {
            System.err.println("usage: ShareGroupConsumer <bootstrap> <topic> <group> <releaseEvery> <stopFile> <timeoutMs> [<clientId>]");
            System.exit(2);
        }
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        long releaseEvery = Long.parseLong(args[3]);
        Path stopFile = Path.of(args[4]);
        long deadline = System.currentTimeMillis() + Long.parseLong(args[5]);
        ObjectMapper json = new ObjectMapper();

        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        if (args.length == 7) props.put(ConsumerConfig.CLIENT_ID_CONFIG, args[6]);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());

        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            while (!Files.exists(stopFile) && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) continue;
                Map<Integer, StringBuilder> out = new java.util.HashMap<>();
                for (ConsumerRecord<String, String> r : records) {
                    int delivery = r.deliveryCount().orElse((short) -1);
                    boolean release = releaseEvery > 0 && delivery == 1 && r.offset() % releaseEvery == 0;
                    consumer.acknowledge(r, release ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
                    ObjectNode line = json.createObjectNode();
                    line.put("p", r.partition());
                    line.put("o", r.offset());
                    line.put("d", delivery);
                    line.put("v", r.value());
                    line.put("ack", release ? "RELEASE" : "ACCEPT");
                    out.computeIfAbsent(r.partition(), p -> new StringBuilder()).append(json.writeValueAsString(line)).append('\n');
                }
                Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync();
                // A partition's records are printed only once its acknowledgements are durable:
                // the harness counts those as accepted.
                for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : result.entrySet()) {
                    if (e.getValue().isPresent()) {
                        ObjectNode line = json.createObjectNode();
                        line.put("error", e.getKey() + ": " + e.getValue().get());
                        System.out.println(json.writeValueAsString(line));
                    } else {
                        StringBuilder lines = out.get(e.getKey().partition());
                        if (lines != null) System.out.print(lines);
                    }
                }
                System.out.flush();
            }
        }
        System.out.println("{\"closed\":true}");
        System.out.flush();
    }
}
