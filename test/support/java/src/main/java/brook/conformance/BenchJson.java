package brook.conformance;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Tiny JSON helpers for the benchmark programs (one line per event, no library in the hot path). */
final class BenchJson {
    private BenchJson() {}

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }

    /** Wall-clock microseconds since the epoch: comparable across the processes of one machine. */
    static long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }
}
