package brook.conformance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Produces keyed records with Apache Kafka's real {@link KafkaProducer} (acks=all) and reads them
 * back with a {@link KafkaConsumer} that uses {@code assign()} + {@code seekToBeginning()} (no
 * consumer group), then prints a one-line JSON summary on stdout.
 *
 * <pre>java -cp brook-conformance.jar brook.conformance.RoundTrip &lt;bootstrap&gt; &lt;topic&gt; &lt;count&gt;
 *     [idempotent=true|false] [compression=none|gzip|snappy|lz4|zstd] [mode=both|produce|consume]</pre>
 *
 * Record i: key {@code key-(i % 37)} (null for every 97th record), value {@code value-i-} plus
 * filler text (so that compression has something to do), header {@code seq} = i.
 *
 * <ul>
 *   <li>{@code both} (default): produce {@code count} records, then consume the topic from the
 *       beginning and check that every record the producer had acknowledged is there at the
 *       (partition, offset) the producer was told, with its key, value and header, and that offsets
 *       increase within each partition.</li>
 *   <li>{@code produce}: produce only; the summary lists every acknowledged record.</li>
 *   <li>{@code consume}: consume until {@code count} records were read (or nothing new arrived for
 *       the idle timeout); the summary lists every record read.</li>
 * </ul>
 *
 * The summary: {@code {"produced":N,"consumed":M,"partitions":{"0":{"produced":..,
 * "lastProducedOffset":..,"consumed":..,"lastConsumedOffset":..,"endOffset":..}},"errors":[...],
 * "produceMs":..,"consumeMs":..,"records":[{"p":0,"o":0,"k":"key-0","v":"...","seq":"0"}]}}}
 * ({@code records} only in the produce and consume modes). Exit code 0 whenever the summary was
 * printed (failures are in {@code errors}), 2 on bad arguments. Bounded: the consumer gives up after
 * {@code -Dbrook.roundtrip.idleMs} (default 10000) without a new record, and a watchdog halts the
 * JVM after {@code -Dbrook.roundtrip.watchdogMs} (default 120000).
 */
public final class RoundTrip {
    private static final int MAX_ERRORS = 20;
    private static final String FILLER = "the quick brown fox jumps over the lazy dog; ".repeat(3);

    private final List<String> errors = new ArrayList<>();
    private final ObjectMapper json = new ObjectMapper();

    private RoundTrip() {}

    static String keyOf(int i) {
        return i % 97 == 96 ? null : "key-" + (i % 37);
    }

    static String valueOf(int i) {
        return "value-" + i + "-" + FILLER;
    }

    private void error(String message) {
        if (errors.size() < MAX_ERRORS) errors.add(message);
        else if (errors.size() == MAX_ERRORS) errors.add("(more errors left out)");
    }

    /** What one record looked like, produced or consumed. */
    private record Rec(int partition, long offset, String key, String value, String seq) {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || args.length > 6) {
            System.err.println("usage: java -cp brook-conformance.jar brook.conformance.RoundTrip <bootstrap> <topic> <count>"
                    + " [idempotent=true|false] [compression=none|gzip|snappy|lz4|zstd] [mode=both|produce|consume]");
            System.exit(2);
        }
        String bootstrap = args[0];
        String topic = args[1];
        int count = Integer.parseInt(args[2]);
        boolean idempotent = args.length < 4 || Boolean.parseBoolean(args[3]);
        String compression = args.length < 5 ? "none" : args[4];
        String mode = args.length < 6 ? "both" : args[5];
        if (!List.of("both", "produce", "consume").contains(mode)) {
            System.err.println("RoundTrip: unknown mode " + mode);
            System.exit(2);
        }
        long watchdogMs = Long.getLong("brook.roundtrip.watchdogMs", 120_000L);
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(watchdogMs);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("RoundTrip: watchdog: still running after " + watchdogMs + " ms, halting");
            Runtime.getRuntime().halt(3);
        });
        watchdog.setDaemon(true);
        watchdog.start();

        RoundTrip run = new RoundTrip();
        ObjectNode summary = run.run(bootstrap, topic, count, idempotent, compression, mode);
        System.out.println(run.json.writeValueAsString(summary));
        System.out.flush();
        System.exit(0);
    }

    private ObjectNode run(String bootstrap, String topic, int count, boolean idempotent, String compression, String mode) {
        ObjectNode summary = json.createObjectNode();
        Map<Integer, ObjectNode> partitions = new TreeMap<>();
        List<Rec> produced = new ArrayList<>();
        List<Rec> consumed = new ArrayList<>();

        long t0 = System.nanoTime();
        if (!mode.equals("consume")) {
            try {
                produced = produce(bootstrap, topic, count, idempotent, compression);
            } catch (Exception e) {
                error("producer: " + e);
            }
        }
        long t1 = System.nanoTime();
        Map<Integer, Long> endOffsets = new HashMap<>();
        if (!mode.equals("produce")) {
            int expected = mode.equals("consume") ? count : produced.size();
            try {
                consumed = consume(bootstrap, topic, expected, endOffsets);
            } catch (Exception e) {
                error("consumer: " + e);
            }
        }
        long t2 = System.nanoTime();

        for (Rec r : produced) {
            ObjectNode p = partitions.computeIfAbsent(r.partition, k -> json.createObjectNode());
            p.put("produced", p.path("produced").asInt(0) + 1);
            p.put("lastProducedOffset", Math.max(p.path("lastProducedOffset").asLong(-1), r.offset));
        }
        for (Rec r : consumed) {
            ObjectNode p = partitions.computeIfAbsent(r.partition, k -> json.createObjectNode());
            p.put("consumed", p.path("consumed").asInt(0) + 1);
            p.put("lastConsumedOffset", Math.max(p.path("lastConsumedOffset").asLong(-1), r.offset));
        }
        for (Map.Entry<Integer, Long> e : endOffsets.entrySet()) {
            partitions.computeIfAbsent(e.getKey(), k -> json.createObjectNode()).put("endOffset", e.getValue());
        }
        if (mode.equals("both")) check(produced, consumed);
        if (mode.equals("consume") && consumed.size() != count) {
            error("consumed " + consumed.size() + " records, expected " + count);
        }

        summary.put("produced", produced.size());
        summary.put("consumed", consumed.size());
        ObjectNode parts = summary.putObject("partitions");
        partitions.forEach((p, node) -> parts.set(Integer.toString(p), node));
        ArrayNode errs = summary.putArray("errors");
        errors.forEach(errs::add);
        summary.put("produceMs", TimeUnit.NANOSECONDS.toMillis(t1 - t0));
        summary.put("consumeMs", TimeUnit.NANOSECONDS.toMillis(t2 - t1));
        if (!mode.equals("both")) {
            ArrayNode records = summary.putArray("records");
            for (Rec r : mode.equals("produce") ? produced : consumed) {
                ObjectNode o = records.addObject();
                o.put("p", r.partition);
                o.put("o", r.offset);
                o.put("k", r.key);
                o.put("v", r.value);
                o.put("seq", r.seq);
            }
        }
        return summary;
    }

    private List<Rec> produce(String bootstrap, String topic, int count, boolean idempotent, String compression) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "brook-roundtrip-producer");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(idempotent));
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());

        List<Future<RecordMetadata>> futures = new ArrayList<>(count);
        List<Rec> acked = new ArrayList<>(count);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count; i++) {
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, keyOf(i), valueOf(i));
                record.headers().add(new RecordHeader("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8)));
                futures.add(producer.send(record));
            }
            producer.flush();
            for (int i = 0; i < count; i++) {
                try {
                    RecordMetadata md = futures.get(i).get(30, TimeUnit.SECONDS);
                    acked.add(new Rec(md.partition(), md.offset(), keyOf(i), valueOf(i), Integer.toString(i)));
                } catch (Exception e) {
                    error("record " + i + " not acknowledged: " + (e.getCause() != null ? e.getCause() : e));
                }
            }
        }
        return acked;
    }

    private List<Rec> consume(String bootstrap, String topic, int expected, Map<Integer, Long> endOffsets) {
        long idleMs = Long.getLong("brook.roundtrip.idleMs", 10_000L);
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "brook-roundtrip-consumer");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());

        List<Rec> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(10))) {
                tps.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<Integer, Long> lastOffset = new HashMap<>();
            long lastProgress = System.nanoTime();
            while (out.size() < expected) {
                var records = consumer.poll(Duration.ofMillis(200));
                if (!records.isEmpty()) lastProgress = System.nanoTime();
                for (ConsumerRecord<String, String> r : records) {
                    Long previous = lastOffset.put(r.partition(), r.offset());
                    if (previous != null && r.offset() <= previous) {
                        error("partition " + r.partition() + ": offset " + r.offset() + " after " + previous);
                    }
                    Header seq = r.headers().lastHeader("seq");
                    out.add(new Rec(r.partition(), r.offset(), r.key(), r.value(),
                            seq == null || seq.value() == null ? null : new String(seq.value(), StandardCharsets.UTF_8)));
                }
                if (System.nanoTime() - lastProgress > TimeUnit.MILLISECONDS.toNanos(idleMs)) {
                    error("consumer: no new record for " + idleMs + " ms after " + out.size() + " of " + expected);
                    break;
                }
            }
            try {
                for (Map.Entry<TopicPartition, Long> e : consumer.endOffsets(tps, Duration.ofSeconds(10)).entrySet()) {
                    endOffsets.put(e.getKey().partition(), e.getValue());
                }
            } catch (Exception e) {
                error("endOffsets: " + e);
            }
        }
        return out;
    }

    /** Every acknowledged record was read back at its (partition, offset), unchanged; nothing else. */
    private void check(List<Rec> produced, List<Rec> consumed) {
        Map<String, Rec> byPosition = new HashMap<>();
        for (Rec r : consumed) {
            if (byPosition.put(r.partition + "@" + r.offset, r) != null) error("read twice: partition " + r.partition + " offset " + r.offset);
        }
        for (Rec p : produced) {
            Rec c = byPosition.get(p.partition + "@" + p.offset);
            if (c == null) {
                error("record seq " + p.seq + " acknowledged at partition " + p.partition + " offset " + p.offset + " was not read back");
            } else if (!p.equals(c)) {
                error("at partition " + p.partition + " offset " + p.offset + ": produced " + p + ", read " + c);
            }
        }
        if (consumed.size() != produced.size()) {
            error("produced " + produced.size() + " records, read " + consumed.size());
        }
    }
}
