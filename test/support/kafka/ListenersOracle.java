// Apache Kafka's own reading of the listener settings, as an oracle for Brook's
// (test/interop/broker-listeners-kafka.test.ts). Run as a single-file program on the Kafka
// broker's classpath (test/support/kafka/build.sh):
//   java -cp CLASSPATH ListenersOracle.java FILE...
// Each FILE holds broker properties (listeners, advertised.listeners,
// listener.security.protocol.map, inter.broker.listener.name). They are added to the settings
// of a broker-only KRaft node, read with KafkaConfig.fromProps (Kafka's parsing and start-up
// checks), and the advertised endpoints resolved as BrokerServer resolves them
// (ListenerInfo.withWildcardHostnamesResolved). One JSON line per FILE:
//   {"listeners":[[name,protocol,host,port],...],"advertised":[[name,protocol,host,port],...]}
// (host null for an empty one) or {"error":"message"}.
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import kafka.server.KafkaConfig;
import org.apache.kafka.common.Endpoint;
import org.apache.kafka.metadata.ListenerInfo;
import scala.jdk.javaapi.CollectionConverters;

public class ListenersOracle {
    private static String json(String s) {
        if (s == null) return "null";
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\' || c < 0x20 || c > 0x7e) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }

    private static String endpoints(Iterable<Endpoint> list) {
        List<String> items = new ArrayList<>();
        for (Endpoint e : list) {
            items.add("[" + json(e.listener()) + "," + json(e.securityProtocol().name) + "," + json(e.host()) + "," + e.port() + "]");
        }
        return "[" + String.join(",", items) + "]";
    }

    public static void main(String[] args) throws Exception {
        for (String file : args) System.out.println(read(file));
    }

    private static String read(String file) throws Exception {
        Properties given = new Properties();
        try (InputStream in = new FileInputStream(file)) {
            given.load(in);
        }
        Properties props = new Properties();
        props.put("process.roles", "broker");
        props.put("node.id", "1");
        props.put("controller.quorum.bootstrap.servers", "localhost:9093");
        props.put("controller.listener.names", "CONTROLLER");
        props.putAll(given);
        // The controller listener needs an entry in the map when one is given or a listener is not
        // PLAINTEXT: added to the given map, or to Kafka's default one (each protocol's own name).
        String map = given.getProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL");
        props.put("listener.security.protocol.map", map + ",CONTROLLER:PLAINTEXT");
        try {
            KafkaConfig config = KafkaConfig.fromProps(props);
            List<Endpoint> listeners = CollectionConverters.asJava(config.listeners());
            List<Endpoint> advertised = CollectionConverters.asJava(config.effectiveAdvertisedBrokerListeners());
            ListenerInfo resolved = ListenerInfo.create(advertised).withWildcardHostnamesResolved();
            return "{\"listeners\":" + endpoints(listeners) + ",\"advertised\":" + endpoints(resolved.listeners().values()) + "}";
        } catch (Throwable e) {
            return "{\"error\":" + json(e.getMessage()) + "}";
        }
    }
}
