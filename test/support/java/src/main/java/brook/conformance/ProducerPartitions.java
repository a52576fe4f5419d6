package brook.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The partition Java's producer picks for keys, two ways:
 * <pre>
 *   ProducerPartitions hash                     stdin: "NUM_PARTITIONS HEX_KEY" per line
 *                                               stdout: BuiltInPartitioner.partitionForKey per line
 *   ProducerPartitions produce BOOTSTRAP TOPIC  stdin: "HEX_KEY" per line; each sent with KafkaProducer's
 *                                               default partitioner; stdout: the acknowledged partition per line
 * </pre>
 */
public final class ProducerPartitions {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(System.out, false, StandardCharsets.UTF_8);
        HexFormat hex = HexFormat.of();
        if (args.length == 1 && args[0].equals("hash")) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isEmpty()) continue;
                String[] parts = line.split(" ", -1);
                out.println(BuiltInPartitioner.partitionForKey(hex.parseHex(parts[1]), Integer.parseInt(parts[0])));
            }
        } else if (args.length == 3 && args[0].equals("produce")) {
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
                for (String line; (line = in.readLine()) != null; ) {
                    sends.add(producer.send(new ProducerRecord<>(args[2], hex.parseHex(line), new byte[0])));
                }
                for (Future<RecordMetadata> f : sends) out.println(f.get().partition());
            }
        } else {
            System.err.println("usage: ProducerPartitions hash | produce BOOTSTRAP TOPIC");
            System.exit(2);
        }
        out.flush();
    }
}
