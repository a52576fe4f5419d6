package brook.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KeyValueMapper;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Kafka Streams' word count (kafka-streams 4.4.0): INPUT lines → words (flatMapValues) →
 * groupBy word (a repartition topic) → count (a state store with its changelog topic) →
 * OUTPUT, key the word, value its count as a decimal string.
 * <pre>
 *   StreamsWordCount BOOTSTRAP APPLICATION_ID INPUT OUTPUT GUARANTEE STATE_DIR STORE [COMMIT_INTERVAL_MS [KEY=VALUE...] [--leave-group-on-close]]
 *     GUARANTEE  exactly_once_v2 | at_least_once
 *     STORE      rocksdb | memory
 *     KEY=VALUE  further Streams configuration (e.g. group.protocol=streams)
 *     --leave-group-on-close  close with CloseOptions LEAVE_GROUP instead of the default (with
 *                the classic protocol Kafka Streams does not leave the group by default, so its
 *                tasks move only once its session times out)
 * </pre>
 * The record cache is off, so every count update reaches OUTPUT (a double-counted word shows
 * as a count above its true count). stdout gets one line per state change
 * ({@code state RUNNING}, ...) and per error the uncaught-exception handler sees
 * ({@code error CLASS: MESSAGE}; the stream thread is then replaced, as an application that
 * survives broker restarts does; after 5 errors the application shuts down instead, reaching
 * {@code state ERROR}, then closes and exits with code 1). When stdin closes (or on SIGTERM)
 * the application closes and prints {@code closed}; exit code 0. Whenever the set of active
 * tasks the instance runs changes, it prints {@code tasks T...} (task ids such as {@code 0_3},
 * sorted, blank-separated; just {@code tasks} when it holds none), seen by sampling the stream
 * threads' metadata every 10 ms: benchmarks time assignments and takeovers with it.
 */
public final class StreamsWordCount {
    private static final int MAX_THREAD_REPLACEMENTS = 5;

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** Prints {@code tasks ...} each time the instance's active tasks change, until {@code stop} opens. */
    private static void printTaskChanges(KafkaStreams streams, CountDownLatch stop) {
        String last = null;
        try {
            while (stop.getCount() > 0) {
                TreeSet<String> ids = new TreeSet<>();
                try {
                    for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
                        for (TaskMetadata task : thread.activeTasks()) ids.add(task.taskId().toString());
                    }
                } catch (RuntimeException notYet) {
                    // not started yet, or closing: nothing to report this round
                    ids = null;
                }
                if (ids != null) {
                    String line = ids.isEmpty() ? "tasks" : "tasks " + String.join(" ", ids);
                    if (!line.equals(last)) {
                        say(line);
                        last = line;
                    }
                }
                Thread.sleep(10);
            }
        } catch (InterruptedException ignored) {
            // the JVM is exiting
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 7) {
            System.err.println("usage: StreamsWordCount BOOTSTRAP APPLICATION_ID INPUT OUTPUT GUARANTEE STATE_DIR STORE [COMMIT_INTERVAL_MS [KEY=VALUE...] [--leave-group-on-close]]");
            System.exit(2);
        }
        String bootstrap = args[0], applicationId = args[1], input = args[2], output = args[3];
        String guarantee = args[4], stateDir = args[5], store = args[6];
        String commitIntervalMs = args.length > 7 ? args[7] : "100";

        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitIntervalMs);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
        // Fail over quickly when the broker goes away and comes back (the kill -9 tests).
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "6000");
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), "1000");
        props.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), "10000");
        props.put(StreamsConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        boolean leaveGroupOnClose = false;
        for (int i = 8; i < args.length; i++) {
            if (args[i].equals("--leave-group-on-close")) {
                leaveGroupOnClose = true;
                continue;
            }
            int eq = args[i].indexOf('=');
            props.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }

        StreamsBuilder builder = new StreamsBuilder();
        KeyValueMapper<String, String, String> byWord = (key, word) -> word;
        Materialized<String, Long, KeyValueStore<Bytes, byte[]>> counts = store.equals("memory")
            ? Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("counts"))
            : Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts");
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
            .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
            .filter((key, word) -> !word.isEmpty())
            .groupBy(byWord, Grouped.with("words", Serdes.String(), Serdes.String()))
            .count(counts.withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
            .toStream()
            .mapValues(count -> Long.toString(count))
            .to(output, Produced.with(Serdes.String(), Serdes.String()));

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        CountDownLatch stop = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            say("state " + now);
            if (now == KafkaStreams.State.ERROR) stop.countDown();
        });
        AtomicInteger errors = new AtomicInteger();
        streams.setUncaughtExceptionHandler(e -> {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            say("error " + e.getClass().getSimpleName() + " / " + cause.getClass().getSimpleName() + ": " + cause.getMessage());
            // A fatal error (e.g. a group protocol the broker lacks) would kill every new thread too.
            return errors.incrementAndGet() <= MAX_THREAD_REPLACEMENTS
                ? StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD
                : StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });

        CloseOptions closeOptions = CloseOptions.timeout(Duration.ofSeconds(20)).withGroupMembershipOperation(
            leaveGroupOnClose ? CloseOptions.GroupMembershipOperation.LEAVE_GROUP : CloseOptions.GroupMembershipOperation.DEFAULT);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            streams.close(closeOptions);
        }));
        Thread stdin = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                while (in.readLine() != null) {
                    // any line is ignored: only the end of stdin stops the application
                }
            } catch (Exception ignored) {
                // a broken stdin is an end of stdin
            }
            stop.countDown();
        }, "stdin-watch");
        stdin.setDaemon(true);
        stdin.start();

        Thread tasks = new Thread(() -> printTaskChanges(streams, stop), "tasks-watch");
        tasks.setDaemon(true);
        tasks.start();

        streams.start();
        stop.await();
        boolean failed = streams.state() == KafkaStreams.State.ERROR;
        boolean closed = streams.close(closeOptions);
        say(closed ? "closed" : "close timed out");
        System.exit(closed && !failed ? 0 : 1);
    }
}
