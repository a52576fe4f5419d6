package brook.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Many members of one consumer group in ONE JVM (bench/, scenarios 4 and 5): one thread per
 * {@link KafkaConsumer}, classic or consumer (KIP-848) protocol.
 *
 * <pre>java -cp brook-conformance.jar brook.conformance.BenchGroup &lt;bootstrap&gt; &lt;topic&gt;
 *     &lt;group&gt; &lt;members&gt; &lt;assignor&gt; &lt;heartbeat.interval.ms&gt; [classic|consumer]</pre>
 *
 * Classic (the default): the assignor is the client's ({@code range} or
 * {@code cooperative-sticky}), with session.timeout.ms 45000 and the given heartbeat interval.
 * Consumer: the assignor is the broker's ({@code group.remote.assignor}: {@code uniform} or
 * {@code range}); the heartbeat interval and session timeout are the broker's
 * (group.consumer.heartbeat.interval.ms, group.consumer.session.timeout.ms), so the
 * heartbeat argument is ignored (kafka-clients refuses the settings with this protocol).
 *
 * All consumers are constructed first; then every thread subscribes at once (a latch), after
 * a {@code {"ev":"start","t":us}} line. Each change of a member's owned partitions (from the
 * rebalance listener, so as the member itself learns it) prints
 * {@code {"ev":"owned","t":us,"m":i,"p":[...]}}. Commands on stdin: {@code leave i} (member i
 * closes: prints "leave", then "left" once close() returned), {@code join} (a new member;
 * prints "join"), {@code quit}. Times are wall-clock epoch microseconds.
 */
public final class BenchGroup {
    private final String bootstrap;
    private final String topic;
    private final String group;
    private final String assignorClass;
    private final String heartbeatIntervalMs;
    private final boolean consumerProtocol;
    private final Map<Integer, Member> members = new ConcurrentHashMap<>();

    private BenchGroup(String bootstrap, String topic, String group, String assignorClass, String heartbeatIntervalMs, boolean consumerProtocol) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.group = group;
        this.assignorClass = assignorClass;
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.consumerProtocol = consumerProtocol;
    }

    static synchronized void emit(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private final class Member implements Runnable, ConsumerRebalanceListener {
        final int index;
        final KafkaConsumer<byte[], byte[]> consumer;
        final CountDownLatch go;
        volatile boolean leaving;
        final Thread thread;

        Member(int index, CountDownLatch go) {
            this.index = index;
            this.go = go;
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, "brook-bench-group-" + index);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            if (consumerProtocol) {
                props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
                props.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignorClass);
            } else {
                props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
                props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignorClass);
                props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "45000");
                // Members learn of a rebalance from a heartbeat response: the bench's interval
                // (100 ms unless told) instead of 3 s shows the broker more than the client's timer.
                props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, heartbeatIntervalMs);
            }
            props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            consumer = new KafkaConsumer<>(props);
            thread = new Thread(this, "member-" + index);
            thread.setDaemon(true);
        }

        private void owned() {
            owned(List.of());
        }

        /** Reports the assignment without {@code revoked}: inside onPartitionsRevoked the consumer still holds them. */
        private void owned(Collection<TopicPartition> revoked) {
            StringBuilder b = new StringBuilder();
            for (int p : new TreeSet<>(consumer.assignment().stream().filter(tp -> !revoked.contains(tp)).map(TopicPartition::partition).toList())) {
                if (b.length() > 0) b.append(',');
                b.append(p);
            }
            emit("{\"ev\":\"owned\",\"t\":" + BenchJson.nowMicros() + ",\"m\":" + index + ",\"p\":[" + b + "]}");
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty() && !leaving) owned(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            owned();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            if (!leaving) owned(partitions);
        }

        @Override
        public void run() {
            try {
                go.await();
                consumer.subscribe(List.of(topic), this);
                while (!leaving) {
                    try {
                        consumer.poll(Duration.ofMillis(50));
                    } catch (WakeupException e) {
                        // leave was asked for: the loop ends
                    }
                }
                consumer.close(Duration.ofSeconds(10));
                emit("{\"ev\":\"left\",\"t\":" + BenchJson.nowMicros() + ",\"m\":" + index + "}");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                emit("{\"ev\":\"error\",\"t\":" + BenchJson.nowMicros() + ",\"m\":" + index + ",\"message\":" + BenchJson.quote(e.toString()) + "}");
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6 && args.length != 7) {
            System.err.println("usage: BenchGroup <bootstrap> <topic> <group> <members> <assignor> <heartbeat.interval.ms> [classic|consumer]");
            System.exit(2);
        }
        String protocol = args.length == 7 ? args[6] : "classic";
        if (!protocol.equals("classic") && !protocol.equals("consumer")) {
            System.err.println("BenchGroup: unknown group protocol " + protocol);
            System.exit(2);
        }
        boolean consumerProtocol = protocol.equals("consumer");
        // Consumer protocol: the broker's assignor, by name; classic: the client's, by class.
        String assignorClass = consumerProtocol
            ? (args[4].equals("uniform") || args[4].equals("range") ? args[4] : null)
            : switch (args[4]) {
                case "range" -> RangeAssignor.class.getName();
                case "cooperative-sticky" -> CooperativeStickyAssignor.class.getName();
                default -> null;
            };
        if (assignorClass == null) {
            System.err.println("BenchGroup: unknown assignor " + args[4]);
            System.exit(2);
        }
        BenchGroup run = new BenchGroup(args[0], args[1], args[2], assignorClass, String.valueOf(Integer.parseInt(args[5])), consumerProtocol);
        int count = Integer.parseInt(args[3]);
        CountDownLatch go = new CountDownLatch(1);
        List<Member> initial = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Member m = run.new Member(i, go);
            run.members.put(i, m);
            initial.add(m);
        }
        for (Member m : initial) m.thread.start();
        emit("{\"ev\":\"start\",\"t\":" + BenchJson.nowMicros() + "}");
        go.countDown();
        int next = count;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] cmd = line.trim().split("\\s+");
            if (cmd[0].equals("quit")) break;
            if (cmd[0].equals("leave") && cmd.length == 2) {
                Member m = run.members.remove(Integer.parseInt(cmd[1]));
                if (m != null) {
                    emit("{\"ev\":\"leave\",\"t\":" + BenchJson.nowMicros() + ",\"m\":" + m.index + "}");
                    m.leaving = true;
                    m.consumer.wakeup();
                }
            } else if (cmd[0].equals("join")) {
                Member m = run.new Member(next++, new CountDownLatch(0));
                run.members.put(m.index, m);
                emit("{\"ev\":\"join\",\"t\":" + BenchJson.nowMicros() + ",\"m\":" + m.index + "}");
                m.thread.start();
            }
        }
        System.exit(0);
    }
}
