package brook.conformance;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Drives Apache Kafka's real Java clients (producer, classic-protocol consumer, admin) against a
 * test server, so Brook's tests can capture the request frames the Java client sends.
 *
 * <pre>java -cp brook-conformance.jar brook.conformance.ClientTraffic &lt;host:port&gt; &lt;topic&gt; &lt;group&gt;</pre>
 *
 * Everything is logged to stderr; every failure is caught and logged; the process always exits 0.
 * The waits are bounded so that the whole run stays around 20 s even if the server never answers:
 * the blocking calls after the producer share one budget ({@link #BUDGET_MS}), each still getting
 * at least {@link #MIN_SLICE_MS} so every client gets to connect and send its first request; a
 * watchdog ends the process after {@link #WATCHDOG_MS} in case anything hangs anyway.
 */
public final class ClientTraffic {
    /** Budget (from start) shared by the bounded waits. */
    private static final long BUDGET_MS = 16_000;
    /** Minimum wait granted to a call even when the budget is used up. */
    private static final long MIN_SLICE_MS = 500;
    /** Hard stop: System.exit(0) after this long no matter what. */
    private static final long WATCHDOG_MS = 25_000;
    /** Total time spent in the consumer's poll loop. */
    private static final long POLL_TOTAL_MS = 4_000;

    private static final long START = System.nanoTime();

    private ClientTraffic() {}

    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: java -cp brook-conformance.jar brook.conformance.ClientTraffic <bootstrap host:port> <topic> <group>");
            System.exit(2);
        }
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];

        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(WATCHDOG_MS);
            } catch (InterruptedException e) {
                return;
            }
            log("watchdog: still running after " + WATCHDOG_MS + " ms, exiting");
            Runtime.getRuntime().halt(0);
        }, "client-traffic-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        log("bootstrap=" + bootstrap + " topic=" + topic + " group=" + group);
        phase("producer", () -> runProducer(bootstrap, topic));
        phase("consumer", () -> runConsumer(bootstrap, topic, group));
        phase("admin", () -> runAdmin(bootstrap, topic, group));
        log("done");
        System.out.flush();
        System.err.flush();
        System.exit(0);
    }

    // ---------------------------------------------------------------- producer

    private static void runProducer(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "golden-java-producer");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());

        KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        try {
            ProducerRecord<String, String> withHeader = new ProducerRecord<>(topic, "key-1", "value-1");
            withHeader.headers().add(new RecordHeader("golden-header", "header-value".getBytes(StandardCharsets.UTF_8)));
            List<ProducerRecord<String, String>> records = List.of(
                withHeader,
                new ProducerRecord<>(topic, null, "value-2-null-key"),
                new ProducerRecord<>(topic, "key-3", "value-3"));
            for (int i = 0; i < records.size(); i++) {
                String label = "record " + (i + 1);
                AtomicReference<Exception> failure = new AtomicReference<>();
                Future<RecordMetadata> f;
                try {
                    f = producer.send(records.get(i), (md, e) -> {
                        if (e != null) {
                            failure.set(e);
                            log("producer: " + label + " failed: " + describe(e));
                        } else {
                            log("producer: " + label + " -> " + md);
                        }
                    });
                } catch (Exception e) {
                    log("producer: send of " + label + " threw: " + describe(e));
                    continue;
                }
                // send() blocks up to max.block.ms waiting for metadata. If that wait timed out
                // (the future is already failed), the server is not answering: the remaining
                // sends would only block the same way, so skip them.
                if (f.isDone() && failure.get() instanceof TimeoutException) {
                    log("producer: metadata wait timed out; skipping the remaining records");
                    break;
                }
            }
            log("producer: flush");
            producer.flush();
            log("producer: flushed");
        } catch (Exception e) {
            log("producer: " + describe(e));
        } finally {
            close("producer", () -> producer.close(Duration.ofMillis(2000)));
        }
    }

    // ---------------------------------------------------------------- consumer

    private static void runConsumer(String bootstrap, String topic, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "golden-java-consumer");
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            CooperativeStickyAssignor.class.getName() + "," + RangeAssignor.class.getName());
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());

        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p);
        try {
            consumer.subscribe(List.of(topic));
            long pollEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(POLL_TOTAL_MS);
            int polls = 0;
            while (System.nanoTime() < pollEnd) {
                polls++;
                try {
                    ConsumerRecords<String, String> recs = consumer.poll(Duration.ofMillis(500));
                    for (ConsumerRecord<String, String> r : recs) {
                        log("consumer: record " + r.topic() + "-" + r.partition() + "@" + r.offset()
                            + " key=" + r.key() + " value=" + r.value() + " headers=" + r.headers());
                    }
                } catch (Exception e) {
                    log("consumer: poll " + polls + " failed: " + describe(e));
                    sleepUntilAtMost(pollEnd, 500);
                }
            }
            log("consumer: " + polls + " polls, assignment=" + safe(consumer::assignment));

            long commitMs = slice(3000);
            try {
                Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1));
                log("consumer: commitSync " + offsets + " (timeout " + commitMs + " ms)");
                consumer.commitSync(offsets, Duration.ofMillis(commitMs));
                log("consumer: commitSync ok");
            } catch (Exception e) {
                log("consumer: commitSync failed: " + describe(e));
            }
        } catch (Exception e) {
            log("consumer: " + describe(e));
        } finally {
            long closeMs = slice(2000);
            close("consumer", () -> consumer.close(Duration.ofMillis(closeMs)));
        }
    }

    // ---------------------------------------------------------------- admin

    private static void runAdmin(String bootstrap, String topic, String group) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "golden-java-admin");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");

        Admin admin = Admin.create(p);
        try {
            call("admin: listGroups()", () -> admin.listGroups().all(), 5000);
            // Kafka 4.1's replacement for the deprecated listConsumerGroups()
            call("admin: listGroups(forConsumerGroups())",
                () -> admin.listGroups(ListGroupsOptions.forConsumerGroups()).all(), 5000);
            call("admin: describeConsumerGroups(" + group + ")",
                () -> admin.describeConsumerGroups(List.of(group)).all(), 5000);
            TopicPartition tp = new TopicPartition(topic, 0);
            call("admin: listOffsets(" + tp + " latest)",
                () -> admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all(), 5000);
        } catch (Exception e) {
            log("admin: " + describe(e));
        } finally {
            long closeMs = slice(2000);
            close("admin", () -> admin.close(Duration.ofMillis(closeMs)));
        }
    }

    // ---------------------------------------------------------------- helpers

    private interface FutureSupplier<T> {
        KafkaFuture<T> get() throws Exception;
    }

    private interface Action {
        void run() throws Exception;
    }

    private static <T> void call(String label, FutureSupplier<T> f, long timeoutMs) {
        long ms = slice(timeoutMs);
        try {
            T result = f.get().get(ms, TimeUnit.MILLISECONDS);
            log(label + " -> " + render(result));
        } catch (Exception e) {
            log(label + " failed (timeout " + ms + " ms): " + describe(e));
        }
    }

    private static String render(Object result) {
        if (result instanceof Collection<?> c) {
            StringBuilder sb = new StringBuilder("[");
            for (Object o : c) {
                if (sb.length() > 1) sb.append(", ");
                sb.append(o instanceof GroupListing g ? g.toString() : String.valueOf(o));
            }
            return sb.append("]").toString();
        }
        if (result instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (sb.length() > 1) sb.append(", ");
                Object v = e.getValue();
                String vs = v instanceof ListOffsetsResult.ListOffsetsResultInfo i
                    ? "offset=" + i.offset() + " timestamp=" + i.timestamp() + " leaderEpoch=" + i.leaderEpoch()
                    : v instanceof ConsumerGroupDescription d ? d.toString() : String.valueOf(v);
                sb.append(e.getKey()).append('=').append(vs);
            }
            return sb.append("}").toString();
        }
        return String.valueOf(result);
    }

    private static void phase(String name, Action a) {
        log("=== " + name + " ===");
        try {
            a.run();
        } catch (Throwable t) {
            log(name + ": " + describe(t));
        }
    }

    private static void close(String name, Action a) {
        try {
            log(name + ": close");
            a.run();
            log(name + ": closed");
        } catch (Throwable t) {
            log(name + ": close failed: " + describe(t));
        }
    }

    /** min(wanted, what is left of the budget), but at least MIN_SLICE_MS. */
    private static long slice(long wantedMs) {
        long left = BUDGET_MS - elapsedMs();
        return Math.max(MIN_SLICE_MS, Math.min(wantedMs, left));
    }

    private static void sleepUntilAtMost(long deadlineNanos, long maxMs) {
        long ms = Math.min(maxMs, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
        if (ms <= 0) return;
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String safe(java.util.function.Supplier<?> s) {
        try {
            return String.valueOf(s.get());
        } catch (Exception e) {
            return "<" + describe(e) + ">";
        }
    }

    private static String describe(Throwable t) {
        if (t instanceof ExecutionException && t.getCause() != null) t = t.getCause();
        return t.getClass().getName() + ": " + t.getMessage();
    }

    private static long elapsedMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - START);
    }

    private static void log(String msg) {
        System.err.printf("[ClientTraffic %6d ms] %s%n", elapsedMs(), msg);
        System.err.flush();
    }
}
