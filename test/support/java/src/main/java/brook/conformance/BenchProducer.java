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
 * Benchmark producer (bench/, scenarios 2 and 3): Apache Kafka's own {@link KafkaProducer}
 * with its default settings except {@code acks} (and idempotence, which needs acks=all).
 *
 * <pre>java -cp brook-conformance.jar brook.conformance.BenchProducer &lt;bootstrap&gt; &lt;topic&gt;
 *     &lt;records&gt; &lt;valueBytes&gt; &lt;acks: all|1&gt;</pre>
 *
 * Sends {@code records} records with a null key and a {@code valueBytes} value as fast as the
 * producer accepts them, then flushes. Prints one JSON line:
 * {@code {"records":N,"ms":..,"bytes":..,"p50Ms":..,"p99Ms":..,"errors":N,"firstError":".."}}
 * where ms runs from the first send to the last acknowledgement, and the percentiles are of
 * each record's time from send() to its acknowledgement callback.
 */
public final class BenchProducer {
    private BenchProducer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: BenchProducer <bootstrap> <topic> <records> <valueBytes> <all|1>");
            System.exit(2);
        }
        String bootstrap = args[0];
        String topic = args[1];
        int records = Integer.parseInt(args[2]);
        int valueBytes = Integer.parseInt(args[3]);
        String acks = args[4];
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "brook-bench-producer");
        props.put(ProducerConfig.ACKS_CONFIG, acks);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, String.valueOf(acks.equals("all")));
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        byte[][] values = new byte[64][];
        for (int i = 0; i < values.length; i++) {
            values[i] = new byte[valueBytes];
            Arrays.fill(values[i], (byte) ('a' + (i % 26)));
        }
        long[] latencyNs = new long[records];
        AtomicLong errors = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        AtomicLong lastAckNs = new AtomicLong();
        long start;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            // Metadata first, so the timed part measures sending, not the first lookup.
            producer.partitionsFor(topic);
            start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                final int index = i;
                final long sentNs = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, null, values[i & 63]), (metadata, exception) -> {
                    long now = System.nanoTime();
                    latencyNs[index] = now - sentNs;
                    lastAckNs.accumulateAndGet(now, Math::max);
                    if (exception != null && errors.getAndIncrement() == 0) firstError.set(exception.toString());
                });
            }
            producer.flush();
        }
        long end = lastAckNs.get();
        Arrays.sort(latencyNs);
        StringBuilder out = new StringBuilder("{");
        out.append("\"records\":").append(records);
        out.append(",\"ms\":").append((end - start) / 1e6);
        out.append(",\"bytes\":").append((long) records * valueBytes);
        out.append(",\"p50Ms\":").append(percentile(latencyNs, 50) / 1e6);
        out.append(",\"p99Ms\":").append(percentile(latencyNs, 99) / 1e6);
        out.append(",\"errors\":").append(errors.get());
        if (firstError.get() != null) out.append(",\"firstError\":").append(BenchJson.quote(firstError.get()));
        out.append("}");
        System.out.println(out);
        System.exit(0);
    }

    /** Nearest-rank percentile of sorted values. */
    static long percentile(long[] sorted, int p) {
        if (sorted.length == 0) return 0;
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
    }
}
