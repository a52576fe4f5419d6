package brook.conformance;

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Kafka's consumer (kafka-clients 4.4.0) with isolation.level=read_committed, without a
 * group: reads partition 0 of TOPIC from the beginning and prints each record's value on a
 * line, until EXPECTED records were read and a further second brought nothing (records past
 * the expected would show up then), or TIMEOUT_MS passed.
 * <pre>
 *   ReadCommitted BOOTSTRAP TOPIC EXPECTED TIMEOUT_MS
 * </pre>
 */
public final class ReadCommitted {
    public static void main(String[] args) {
        String bootstrap = args[0], topic = args[1];
        int expected = Integer.parseInt(args[2]);
        long deadline = System.currentTimeMillis() + Long.parseLong(args[3]);
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            int seen = 0;
            long quietUntil = Long.MAX_VALUE;
            while (System.currentTimeMillis() < Math.min(deadline, quietUntil)) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    System.out.println(r.value());
                    seen++;
                }
                if (seen >= expected && quietUntil == Long.MAX_VALUE) quietUntil = System.currentTimeMillis() + 1000;
            }
        }
        System.out.flush();
    }
}
