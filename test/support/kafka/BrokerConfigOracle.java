// Apache Kafka's own reading of broker settings, as an oracle for Brook's broker config table
// (test/interop/broker-config-kafka.test.ts). Run as a single-file program on the Kafka
// broker's classpath (test/support/kafka/build.sh):
//   java -cp CLASSPATH BrokerConfigOracle.java NAMES FILE...
// NAMES is a comma-separated list of config names. Each FILE holds broker properties; they
// are added to the settings of a broker-only KRaft node and read with KafkaConfig.fromProps
// (Kafka's parsing, validators and start-up checks). One JSON line per FILE:
//   {"values":{"name":"value as text"|null,...},"unknown":["name",...]} (the parsed value of each
//   of NAMES, a list joined with commas, a class by its name; "unknown": those of NAMES
//   KafkaConfig does not define) or {"error":"message"}.
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaConfig;

public class BrokerConfigOracle {
    private static String json(String s) {
        if (s == null) return "null";
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\' || c < 0x20 || c > 0x7e) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }

    private static String text(Object value) {
        if (value == null) return null;
        if (value instanceof List<?> list) {
            List<String> items = new ArrayList<>();
            for (Object item : list) items.add(text(item));
            return String.join(",", items);
        }
        if (value instanceof Class<?> c) return c.getName();
        return value.toString();
    }

    public static void main(String[] args) throws Exception {
        String[] names = args[0].split(",");
        for (int i = 1; i < args.length; i++) System.out.println(read(names, args[i]));
    }

    private static String read(String[] names, String file) throws Exception {
        Properties given = new Properties();
        try (InputStream in = new FileInputStream(file)) {
            given.load(in);
        }
        Properties props = new Properties();
        props.put("process.roles", "broker");
        props.put("node.id", "1");
        props.put("controller.quorum.bootstrap.servers", "localhost:9093");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.putAll(given);
        try {
            Map<String, ?> values = KafkaConfig.fromProps(props).values();
            List<String> out = new ArrayList<>();
            List<String> unknown = new ArrayList<>();
            for (String name : names) {
                out.add(json(name) + ":" + json(text(values.get(name))));
                if (!KafkaConfig.configDef().names().contains(name)) unknown.add(json(name));
            }
            return "{\"values\":{" + String.join(",", out) + "},\"unknown\":[" + String.join(",", unknown) + "]}";
        } catch (Throwable e) {
            return "{\"error\":" + json(e.getMessage()) + "}";
        }
    }
}
