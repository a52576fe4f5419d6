package brook.conformance;

import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Transactional benchmark producer (bench/txn-produce-compare.ts): Apache Kafka's own
 * {@link KafkaProducer} with a {@code transactional.id} and otherwise its default settings
 * (acks=all, idempotence on, as transactions require).
 *
 * <pre>java -cp brook-conformance.jar brook.conformance.BenchTxnProducer &lt;bootstrap&gt; &lt;topic&gt;
 *     &lt;records&gt; &lt;valueBytes&gt; &lt;recordsPerTransaction&gt; &lt;transactionalId&gt;</pre>
 *
 * After initTransactions, sends {@code records} records (null key, {@code valueBytes} value)
 * in transactions of {@code recordsPerTransaction}: beginTransaction, the sends without
 * waiting, commitTransaction (which flushes). Prints one JSON line:
 * {@code {"records":N,"transactions":T,"ms":..,"errors":N,"firstError":".."}} where ms runs
 * from the first beginTransaction to the last commit's return.
 */
public final class BenchTxnProducer {
    private BenchTxnProducer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: BenchTxnProducer <bootstrap> <topic> <records> <valueBytes> <recordsPerTransaction> <transactionalId>");
            System.exit(2);
        }
        String bootstrap = args[0];
        String topic = args[1];
        int records = Integer.parseInt(args[2]);
        int valueBytes = Integer.parseInt(args[3]);
        int perTxn = Integer.parseInt(args[4]);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "brook-bench-txn-producer");
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, args[5]);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        byte[][] values = new byte[64][];
        for (int i = 0; i < values.length; i++) {
            values[i] = new byte[valueBytes];
            Arrays.fill(values[i], (byte) ('a' + (i % 26)));
        }
        AtomicLong errors = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        int transactions = 0;
        long start;
        long end;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            producer.initTransactions();
            // Metadata first, so the timed part measures transactions, not the first lookup.
            producer.partitionsFor(topic);
            start = System.nanoTime();
            for (int from = 0; from < records; from += perTxn) {
                producer.beginTransaction();
                int to = Math.min(records, from + perTxn);
                for (int i = from; i < to; i++) {
                    producer.send(new ProducerRecord<>(topic, null, values[i & 63]), (metadata, exception) -> {
                        if (exception != null && errors.getAndIncrement() == 0) firstError.set(exception.toString());
                    });
                }
                producer.commitTransaction();
                transactions++;
            }
            end = System.nanoTime();
        }
        StringBuilder out = new StringBuilder("{");
        out.append("\"records\":").append(records);
        out.append(",\"transactions\":").append(transactions);
        out.append(",\"ms\":").append((end - start) / 1e6);
        out.append(",\"errors\":").append(errors.get());
        if (firstError.get() != null) out.append(",\"firstError\":").append(BenchJson.quote(firstError.get()));
        out.append("}");
        System.out.println(out);
        System.exit(0);
    }
}
