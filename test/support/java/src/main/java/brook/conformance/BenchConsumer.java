package brook.conformance;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Benchmark consumer (bench/, scenarios 1 and 3): Apache Kafka's own {@link KafkaConsumer},
 * one member of a fresh group (classic protocol), default settings except
 * {@code auto.offset.reset=earliest}.
 *
 * <pre>java -cp brook-conformance.jar brook.conformance.BenchConsumer &lt;bootstrap&gt; &lt;topic&gt;
 *     &lt;group&gt; &lt;records&gt; &lt;timeoutMs&gt;</pre>
 *
 * Subscribes and polls until {@code records} records arrived or {@code timeoutMs} passed.
 * Prints one JSON line {@code {"records":N,"ms":..,"firstMs":..,"bytes":..,"timedOut":false}},
 * ms from subscribe() to the last record (group join included, as an application sees it),
 * firstMs from subscribe() to the first poll that returned records.
 */
public final class BenchConsumer {
    private BenchConsumer() {}

    public static void main(String[] args) {
        if (args.length != 5) {
            System.err.println("usage: BenchConsumer <bootstrap> <topic> <group> <records> <timeoutMs>");
            System.exit(2);
        }
        long wanted = Long.parseLong(args[3]);
        long timeoutMs = Long.parseLong(args[4]);
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "brook-bench-consumer");
        props.put(ConsumerConfig.GROUP_ID_CONFIG, args[2]);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        long count = 0;
        long bytes = 0;
        boolean timedOut = false;
        long start;
        long last;
        long first = -1;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            start = System.nanoTime();
            last = start;
            consumer.subscribe(List.of(args[1]));
            long deadline = start + timeoutMs * 1_000_000L;
            while (count < wanted) {
                if (System.nanoTime() > deadline) {
                    timedOut = true;
                    break;
                }
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> r : polled) {
                    count++;
                    if (r.value() != null) bytes += r.value().length;
                }
                if (!polled.isEmpty()) {
                    last = System.nanoTime();
                    if (first < 0) first = last;
                }
            }
        }
        System.out.println("{\"records\":" + count + ",\"ms\":" + (last - start) / 1e6 + ",\"firstMs\":" + (first < 0 ? -1 : (first - start) / 1e6) + ",\"bytes\":" + bytes + ",\"timedOut\":" + timedOut + "}");
        System.exit(0);
    }
}
