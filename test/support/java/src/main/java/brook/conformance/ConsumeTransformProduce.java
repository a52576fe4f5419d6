package brook.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's consume-transform-produce loop (kafka-clients 4.4.0): a read_committed consumer in
 * a group, a transactional producer, the consumed offsets sent with
 * {@code sendOffsetsToTransaction(offsets, consumer.groupMetadata())}. One line on stdout per
 * transaction, each followed by a wait for a line on stdin (the test checks the group's
 * committed offsets meanwhile):
 * <pre>
 *   ConsumeTransformProduce BOOTSTRAP INPUT OUTPUT GROUP TRANSACTIONAL_ID
 *   t1: input records 0-3 → OUTPUT as "t1:VALUE", offset 4 sent; commit → "committed 4"
 *   t2: input records 4-6 → "t2:VALUE", offset 7 sent; abort → "aborted 7"; the consumer
 *       seeks back to the committed offset, as an application does after an abort
 *   t3: input records 4-9 → "t3:VALUE", offset 10 sent; commit → "committed 10"
 * </pre>
 * INPUT has one partition holding 10 records. Any failure: a stack trace and exit code 1.
 */
public final class ConsumeTransformProduce {
    private static List<ConsumerRecord<String, String>> take(KafkaConsumer<String, String> consumer, int count) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 30_000;
        while (out.size() < count) {
            if (System.currentTimeMillis() > deadline) throw new IllegalStateException("only " + out.size() + " of " + count + " records");
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) out.add(r);
        }
        return out;
    }

    private static long transaction(KafkaProducer<String, String> producer, KafkaConsumer<String, String> consumer, String output, String tag, int count, boolean commit) {
        producer.beginTransaction();
        long next = -1;
        TopicPartition tp = null;
        for (ConsumerRecord<String, String> r : take(consumer, count)) {
            producer.send(new ProducerRecord<>(output, 0, r.key(), tag + ":" + r.value()));
            tp = new TopicPartition(r.topic(), r.partition());
            next = r.offset() + 1;
        }
        producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(next)), consumer.groupMetadata());
        // An abort drops the batches not yet sent; flushed first, the aborted transaction's
        // records are in the log (what the test then checks read_committed readers skip).
        producer.flush();
        if (commit) producer.commitTransaction();
        else producer.abortTransaction();
        return next;
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], input = args[1], output = args[2], group = args[3], transactionalId = args[4];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c); KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            consumer.subscribe(List.of(input));
            producer.initTransactions();
            System.out.println("committed " + transaction(producer, consumer, output, "t1", 4, true));
            System.out.flush();
            in.readLine();
            System.out.println("aborted " + transaction(producer, consumer, output, "t2", 3, false));
            System.out.flush();
            in.readLine();
            TopicPartition tp = new TopicPartition(input, 0);
            consumer.seek(tp, consumer.committed(java.util.Set.of(tp)).get(tp).offset());
            System.out.println("committed " + transaction(producer, consumer, output, "t3", 6, true));
            System.out.flush();
        }
    }
}
