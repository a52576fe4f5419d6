package brook.conformance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of a consumer group, with Apache Kafka's real {@link KafkaConsumer}: the classic
 * protocol with a client-side assignor, or the consumer protocol (KIP-848) with the broker's
 * assignor ({@code consumer} for the broker's default, {@code consumer-uniform}, {@code consumer-range}).
 *
 * <pre>java -cp brook-conformance.jar brook.conformance.GroupConsumer &lt;bootstrap&gt; &lt;topic&gt; &lt;group&gt;
 *     &lt;assignor: range|cooperative-sticky|roundrobin|sticky|consumer|consumer-uniform|consumer-range&gt; &lt;expectedTotal&gt; &lt;timeoutMs&gt;
 *     [&lt;stopFile&gt;]</pre>
 *
 * Subscribes to the topic ({@code enable.auto.commit=false}, {@code auto.offset.reset=earliest}),
 * and after every poll that returned records commits their offsets with {@code commitSync}; offsets
 * processed but not yet committed are also committed in {@code onPartitionsRevoked}, so no record
 * is read twice across a rebalance.
 *
 * <p>Stopping rule, the same for every member and independent of what the others read: the member
 * stops (and leaves the group with {@code close()}) once the end offsets of the topic's partitions
 * add up to at least {@code expectedTotal} and the group's committed offset of every partition equals
 * its end offset (checked every 250 ms), or after {@code timeoutMs}; or, given a {@code stopFile},
 * as soon as that file exists (a rolling restart takes the member out: {@code "stopped":true}).
 *
 * <p>Prints one JSON line: {@code {"clientId":..,"assignor":..,"timedOut":false,"ms":..,
 * "events":[{"t":<epoch ms>,"type":"assigned|revoked|lost|closed","gen":N,"member":.. (not on closing/closed),"partitions":[..],
 * "owned":[..]}],"records":[[partition,offset],...],"committed":{"0":N,..},"endOffsets":{"0":N,..},
 * "errors":[..]}}}. {@code records} are in the order consumed. Exit code 0 whenever the summary was
 * printed, 2 on bad arguments; a watchdog halts the JVM 15 s after {@code timeoutMs}.
 *
 * <p>With {@code -Dbrook.groupconsumer.states=true}, after every poll whose outcome changed what the
 * member says of itself, one line on stderr: {@code state {"gen":N,"member":..,"owned":[..]}}
 * ({@code groupMetadata()} and {@code assignment()}), so a test can read the member's view live.
 */
public final class GroupConsumer {
    private static final long CHECK_EVERY_MS = 250;
    private static final boolean PRINT_STATES = Boolean.getBoolean("brook.groupconsumer.states");
    private String lastState = "";

    private final ObjectMapper json = new ObjectMapper();
    private final ArrayNode events = json.createArrayNode();
    private final ArrayNode records = json.createArrayNode();
    private final List<String> errors = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    /** Offsets processed (next offset to read) and not yet known to be committed. */
    private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();

    private GroupConsumer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 6 && args.length != 7) {
            System.err.println("usage: GroupConsumer <bootstrap> <topic> <group> <range|cooperative-sticky|roundrobin|sticky> <expectedTotal> <timeoutMs> [<stopFile>]");
            System.exit(2);
        }
        String assignorClass = switch (args[3]) {
            // KIP-848: group.protocol=consumer, the broker's assignor named by group.remote.assignor.
            case "consumer" -> "";
            case "consumer-uniform", "consumer-range" -> args[3].substring("consumer-".length());
            case "range" -> RangeAssignor.class.getName();
            case "cooperative-sticky" -> CooperativeStickyAssignor.class.getName();
            case "roundrobin" -> RoundRobinAssignor.class.getName();
            case "sticky" -> StickyAssignor.class.getName();
            default -> null;
        };
        if (assignorClass == null) {
            System.err.println("GroupConsumer: unknown assignor " + args[3]);
            System.exit(2);
        }
        long timeoutMs = Long.parseLong(args[5]);
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(timeoutMs + 15_000);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("GroupConsumer: watchdog: still running, halting");
            Runtime.getRuntime().halt(3);
        });
        watchdog.setDaemon(true);
        watchdog.start();
        GroupConsumer run = new GroupConsumer();
        java.nio.file.Path stopFile = args.length == 7 ? java.nio.file.Path.of(args[6]) : null;
        ObjectNode summary = run.run(args[0], args[1], args[2], args[3], assignorClass, Long.parseLong(args[4]), timeoutMs, stopFile);
        System.out.println(run.json.writeValueAsString(summary));
        System.out.flush();
        System.exit(0);
    }

    private void error(String message) {
        if (errors.size() < 20) errors.add(message);
    }

    private static ArrayNode partitionsOf(ObjectMapper json, Collection<TopicPartition> tps) {
        ArrayNode out = json.createArrayNode();
        new TreeSet<>(tps.stream().map(TopicPartition::partition).toList()).forEach(out::add);
        return out;
    }

    private void event(KafkaConsumer<String, String> consumer, String type, Collection<TopicPartition> partitions) {
        ObjectNode e = events.addObject();
        e.put("t", System.currentTimeMillis());
        e.put("type", type);
        e.put("gen", consumer.groupMetadata().generationId());
        e.put("member", consumer.groupMetadata().memberId());
        e.set("partitions", partitionsOf(json, partitions));
        e.set("owned", partitionsOf(json, consumer.assignment()));
    }

    private void printState(KafkaConsumer<String, String> consumer) {
        ObjectNode state = json.createObjectNode();
        state.put("gen", consumer.groupMetadata().generationId());
        state.put("member", consumer.groupMetadata().memberId());
        state.set("owned", partitionsOf(json, consumer.assignment()));
        String line = state.toString();
        if (line.equals(lastState)) return;
        lastState = line;
        System.err.println("state " + line);
        System.err.flush();
    }

    /**
     * Commits the pending offsets of {@code only}. {@code revoking}: from the revocation callback,
     * where a stale member epoch is an error (the partitions go to another member). Otherwise a
     * commit refused for a stale member epoch (the commit raced
     * the heartbeat that gave the member a new epoch; Kafka 4.4 takes such a commit for the
     * partitions the member kept over OffsetCommit v10, Brook speaks v9 where Kafka refuses it
     * too) stays pending and is committed after the next poll, with the new epoch.
     */
    private void commitPending(KafkaConsumer<String, String> consumer, Collection<TopicPartition> only, boolean revoking) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : only) {
            OffsetAndMetadata o = pending.get(tp);
            if (o != null) offsets.put(tp, o);
        }
        if (offsets.isEmpty()) return;
        try {
            consumer.commitSync(offsets, Duration.ofSeconds(10));
            offsets.keySet().forEach(pending::remove);
        } catch (org.apache.kafka.common.errors.RebalanceInProgressException e) {
            // The client refuses to commit while it is itself rebalancing (a client-side check);
            // the offsets stay pending and are committed after the next poll.
            if (warnings.size() < 20) warnings.add("commitSync " + offsets + ": " + e.getMessage());
        } catch (org.apache.kafka.clients.consumer.CommitFailedException e) {
            boolean stale = e.getCause() instanceof org.apache.kafka.common.errors.StaleMemberEpochException
                || (e.getMessage() != null && e.getMessage().contains("stale member epoch"));
            if (stale && !revoking) {
                if (warnings.size() < 20) warnings.add("commitSync " + offsets + ": " + e.getMessage());
            } else {
                error("commitSync " + offsets + ": " + e);
            }
        } catch (RuntimeException e) {
            error("commitSync " + offsets + ": " + e);
        }
    }

    private ObjectNode run(String bootstrap, String topic, String group, String assignor, String assignorClass, long expectedTotal, long timeoutMs, java.nio.file.Path stopFile) {
        long start = System.currentTimeMillis();
        String clientId = "brook-group-consumer-" + ProcessHandle.current().pid();
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        if (assignor.startsWith("consumer")) {
            // The consumer protocol takes the session and heartbeat settings from the broker.
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            if (!assignorClass.isEmpty()) props.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignorClass);
        } else {
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignorClass);
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "300");
        }
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "20000");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "200");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());

        boolean timedOut = true;
        boolean stopped = false;
        Map<TopicPartition, OffsetAndMetadata> lastCommitted = Map.of();
        Map<TopicPartition, Long> lastEnds = Map.of();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    commitPending(consumer, partitions, true);
                    event(consumer, "revoked", partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    event(consumer, "assigned", partitions);
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    event(consumer, "lost", partitions);
                }
            });
            List<TopicPartition> all = new ArrayList<>();
            long nextCheck = 0;
            while (System.currentTimeMillis() - start < timeoutMs) {
                ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> r : batch) {
                    records.addArray().add(r.partition()).add(r.offset());
                    pending.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                if (!pending.isEmpty()) commitPending(consumer, new ArrayList<>(pending.keySet()), false);
                if (PRINT_STATES) printState(consumer);
                long now = System.currentTimeMillis();
                if (now < nextCheck) continue;
                nextCheck = now + CHECK_EVERY_MS;
                if (stopFile != null && java.nio.file.Files.exists(stopFile)) {
                    timedOut = false;
                    stopped = true;
                    break;
                }
                if (all.isEmpty()) {
                    List<PartitionInfo> infos = consumer.partitionsFor(topic);
                    if (infos == null || infos.isEmpty()) continue;
                    infos.forEach(i -> all.add(new TopicPartition(topic, i.partition())));
                }
                lastEnds = consumer.endOffsets(all);
                if (lastEnds.values().stream().mapToLong(Long::longValue).sum() < expectedTotal) continue;
                lastCommitted = consumer.committed(new java.util.HashSet<>(all));
                boolean done = true;
                for (TopicPartition tp : all) {
                    OffsetAndMetadata c = lastCommitted.get(tp);
                    if (c == null || c.offset() != lastEnds.get(tp)) done = false;
                }
                if (done) {
                    timedOut = false;
                    break;
                }
            }
            ObjectNode closed = events.addObject();
            closed.put("t", System.currentTimeMillis());
            closed.put("type", "closing");
            closed.put("gen", consumer.groupMetadata().generationId());
            closed.set("partitions", partitionsOf(json, consumer.assignment()));
            closed.set("owned", partitionsOf(json, consumer.assignment()));
            consumer.close(Duration.ofSeconds(10)); // leaves the group (onPartitionsRevoked first)
            ObjectNode gone = events.addObject();
            gone.put("t", System.currentTimeMillis());
            gone.put("type", "closed");
            gone.put("gen", -1);
            gone.set("partitions", json.createArrayNode());
            gone.set("owned", json.createArrayNode());
        } catch (RuntimeException e) {
            error("consumer: " + e);
        }

        ObjectNode summary = json.createObjectNode();
        summary.put("clientId", clientId);
        summary.put("assignor", assignor);
        summary.put("timedOut", timedOut);
        summary.put("stopped", stopped);
        summary.put("ms", System.currentTimeMillis() - start);
        summary.set("events", events);
        summary.set("records", records);
        ObjectNode committed = summary.putObject("committed");
        lastCommitted.forEach((tp, o) -> committed.put(String.valueOf(tp.partition()), o == null ? -1 : o.offset()));
        ObjectNode ends = summary.putObject("endOffsets");
        lastEnds.forEach((tp, o) -> ends.put(String.valueOf(tp.partition()), o));
        ArrayNode errs = summary.putArray("errors");
        errors.forEach(errs::add);
        ArrayNode warns = summary.putArray("warnings");
        warnings.forEach(warns::add);
        return summary;
    }
}
