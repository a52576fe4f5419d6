// Java's own java.util.Properties as an oracle for Brook's .properties parser
// (test/interop/properties-java.test.ts). Run as a single-file program:
//   java PropertiesOracle.java FILE...
// Loads each FILE as Kafka loads server.properties (Properties.load(InputStream), ISO-8859-1)
// and prints one JSON line for it: {"entries":[[key,value],...]} sorted by key, or
// {"error":"message"}.
// Every character outside printable ASCII is written as a JSON unicode escape, so nothing is lost.
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.Properties;
import java.util.TreeMap;

public class PropertiesOracle {
    private static String json(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\' || c < 0x20 || c > 0x7e) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }

    public static void main(String[] args) throws Exception {
        for (String file : args) System.out.println(load(file));
    }

    private static String load(String file) throws Exception {
        Properties props = new Properties();
        try (InputStream in = new FileInputStream(file)) {
            props.load(in);
        } catch (IllegalArgumentException e) {
            return "{\"error\":" + json(String.valueOf(e.getMessage())) + "}";
        }
        TreeMap<String, String> sorted = new TreeMap<>();
        for (String key : props.stringPropertyNames()) sorted.put(key, props.getProperty(key));
        StringBuilder out = new StringBuilder("{\"entries\":[");
        boolean first = true;
        for (var e : sorted.entrySet()) {
            if (!first) out.append(',');
            first = false;
            out.append('[').append(json(e.getKey())).append(',').append(json(e.getValue())).append(']');
        }
        return out.append("]}").toString();
    }
}
