package brook.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's transactional producer (kafka-clients 4.4.0) through a transaction's life, for the
 * interop tests; one line on stdout per step:
 * <pre>
 *   TransactionalFlow BOOTSTRAP TOPIC TRANSACTIONAL_ID
 *   producer A: initTransactions; 3 records committed; 2 records aborted; 1 record in an
 *   open transaction, then "ongoing" and a wait for a line on stdin (the test describes it);
 *   producer B, same transactional id: initTransactions (fences A, aborting its transaction);
 *   A's commitTransaction: "fenced ProducerFencedException" expected; B commits 1 record.
 * </pre>
 * Records go to partition 0. Any other failure: a stack trace and exit code 1.
 */
public final class TransactionalFlow {
    private static KafkaProducer<String, String> producer(String bootstrap, String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static void send(KafkaProducer<String, String> p, String topic, String prefix, int count) throws Exception {
        for (int i = 0; i < count; i++) p.send(new ProducerRecord<>(topic, 0, prefix + i, prefix + i)).get();
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1], transactionalId = args[2];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        KafkaProducer<String, String> a = producer(bootstrap, transactionalId);
        a.initTransactions();
        System.out.println("initialized");
        a.beginTransaction();
        send(a, topic, "committed-", 3);
        a.commitTransaction();
        System.out.println("committed");
        a.beginTransaction();
        send(a, topic, "aborted-", 2);
        a.abortTransaction();
        System.out.println("aborted");
        a.beginTransaction();
        send(a, topic, "zombie-", 1);
        System.out.println("ongoing");
        System.out.flush();
        in.readLine();
        try (KafkaProducer<String, String> b = producer(bootstrap, transactionalId)) {
            b.initTransactions();
            System.out.println("second initialized");
            try {
                a.commitTransaction();
                System.out.println("zombie committed");
            } catch (ProducerFencedException e) {
                System.out.println("fenced " + e.getClass().getSimpleName());
            }
            a.close();
            b.beginTransaction();
            send(b, topic, "second-", 1);
            b.commitTransaction();
            System.out.println("second committed");
        }
        System.out.flush();
    }
}
