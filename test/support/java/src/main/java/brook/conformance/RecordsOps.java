package brook.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The records-encode / records-decode ops: magic v2 record batches built and read by
 * kafka-clients' own MemoryRecordsBuilder / MemoryRecords / DefaultRecordBatch, with every
 * compression codec. See README.md ("Record batches").
 */
final class RecordsOps {
    private RecordsOps() {}

    static {
        // Kafka's compression classes log through slf4j-api 1.7, which has no binding in this
        // jar and prints a three-line "defaulting to NOP logger" warning on first use. Initialize
        // it here with stderr muted, so the oracle's stderr stays quiet (logging stays off).
        PrintStream err = System.err;
        System.setErr(new PrintStream(OutputStream.nullOutputStream()));
        try {
            Class.forName("org.slf4j.LoggerFactory").getMethod("getILoggerFactory").invoke(null);
        } catch (ReflectiveOperationException e) {
            // slf4j-api is always in the jar (kafka-clients needs it); nothing to do without it
        } finally {
            System.setErr(err);
        }
    }

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final HexFormat HEX = HexFormat.of();
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder B64_DECODE = Base64.getDecoder();

    private static final Map<String, TimestampType> TIMESTAMP_TYPES = Map.of(
        "create", TimestampType.CREATE_TIME, "logAppend", TimestampType.LOG_APPEND_TIME);

    /** `{"op":"records-encode",...}`: one batch from MemoryRecords.builder; reply `hex`. */
    static ObjectNode encode(JsonNode request) {
        String codec = text(request, "compression", "none");
        CompressionType type = CompressionType.forName(codec); // IllegalArgumentException if unknown
        Compression.Builder<? extends Compression> builder = Compression.of(type);
        JsonNode level = request.get("compressionLevel");
        if (level != null && !level.isNull()) {
            int l = intOf(level, "compressionLevel");
            builder = switch (type) {
                case GZIP -> Compression.gzip().level(l);
                case LZ4 -> Compression.lz4().level(l);
                case ZSTD -> Compression.zstd().level(l);
                default -> throw new IllegalArgumentException("compression " + codec + " takes no level");
            };
        }
        Compression compression = builder.build();

        String tsName = text(request, "timestampType", "create");
        TimestampType timestampType = TIMESTAMP_TYPES.get(tsName);
        if (timestampType == null) throw new IllegalArgumentException("'timestampType' must be create or logAppend, not '" + tsName + "'");
        long logAppendTime = RecordBatch.NO_TIMESTAMP;
        if (timestampType == TimestampType.LOG_APPEND_TIME) {
            JsonNode lat = request.get("logAppendTime");
            if (lat == null) throw new IllegalArgumentException("'logAppendTime' is required with timestampType logAppend");
            logAppendTime = longOf(lat, "logAppendTime");
        }

        long baseOffset = longField(request, "baseOffset", 0L);
        long producerId = longField(request, "producerId", RecordBatch.NO_PRODUCER_ID);
        long producerEpoch = longField(request, "producerEpoch", RecordBatch.NO_PRODUCER_EPOCH);
        if (producerEpoch < Short.MIN_VALUE || producerEpoch > Short.MAX_VALUE) throw new IllegalArgumentException("'producerEpoch' must be an int16");
        int baseSequence = (int) intRange(longField(request, "baseSequence", RecordBatch.NO_SEQUENCE), "baseSequence");
        int partitionLeaderEpoch = (int) intRange(longField(request, "partitionLeaderEpoch", RecordBatch.NO_PARTITION_LEADER_EPOCH), "partitionLeaderEpoch");
        boolean isTransactional = request.path("isTransactional").asBoolean(false);

        JsonNode records = request.get("records");
        if (records == null || !records.isArray()) throw new IllegalArgumentException("'records' must be an array");

        MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2, compression,
            timestampType, baseOffset, logAppendTime, producerId, (short) producerEpoch, baseSequence, isTransactional,
            false, partitionLeaderEpoch);
        int index = 0;
        for (JsonNode r : records) {
            if (!r.isObject()) throw new IllegalArgumentException("records[" + index + "] is not an object");
            JsonNode ts = r.get("timestamp");
            if (ts == null) throw new IllegalArgumentException("records[" + index + "].timestamp is required");
            long timestamp = longOf(ts, "timestamp");
            long offsetDelta = r.has("offsetDelta") ? longOf(r.get("offsetDelta"), "offsetDelta") : index;
            byte[] key = bytes(r.get("key"));
            byte[] value = bytes(r.get("value"));
            JsonNode hs = r.get("headers");
            Header[] headers = new Header[hs == null || hs.isNull() ? 0 : hs.size()];
            for (int i = 0; i < headers.length; i++) {
                JsonNode h = hs.get(i);
                JsonNode hk = h.get("key");
                if (hk == null || !hk.isTextual()) throw new IllegalArgumentException("header key must be a string");
                headers[i] = new RecordHeader(hk.asText(), bytes(h.get("value")));
            }
            b.appendWithOffset(baseOffset + offsetDelta, timestamp, key, value, headers);
            index++;
        }
        MemoryRecords built = b.build();
        ByteBuffer buf = built.buffer().duplicate();
        byte[] out = new byte[buf.remaining()];
        buf.get(out);
        ObjectNode result = NODES.objectNode();
        result.put("hex", HEX.formatHex(out));
        return result;
    }

    /** `{"op":"records-decode","hex":...}`: every batch, ensureValid() (CRC), then every record. */
    static ObjectNode decode(JsonNode request) {
        JsonNode hex = request.get("hex");
        if (hex == null || !hex.isTextual()) throw new IllegalArgumentException("'hex' must be a string");
        byte[] bytes = HEX.parseHex(hex.asText());
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(bytes));
        ObjectNode result = NODES.objectNode();
        ArrayNode batches = result.putArray("batches");
        long consumed = 0;
        for (MutableRecordBatch batch : records.batches()) {
            batch.ensureValid();
            ObjectNode o = batches.addObject();
            o.put("baseOffset", batch.baseOffset());
            o.put("lastOffset", batch.lastOffset());
            o.put("sizeInBytes", batch.sizeInBytes());
            o.put("magic", batch.magic());
            o.put("crc", batch.checksum());
            o.put("compression", batch.compressionType().name);
            o.put("timestampType", switch (batch.timestampType()) {
                case CREATE_TIME -> "create";
                case LOG_APPEND_TIME -> "logAppend";
                default -> "none";
            });
            o.put("isTransactional", batch.isTransactional());
            o.put("isControl", batch.isControlBatch());
            o.put("partitionLeaderEpoch", batch.partitionLeaderEpoch());
            o.put("producerId", batch.producerId());
            o.put("producerEpoch", batch.producerEpoch());
            o.put("baseSequence", batch.baseSequence());
            o.put("lastSequence", batch.lastSequence());
            if (batch instanceof DefaultRecordBatch v2) {
                o.put("baseTimestamp", v2.baseTimestamp());
                if (v2.deleteHorizonMs().isPresent()) o.put("deleteHorizonMs", v2.deleteHorizonMs().getAsLong());
            }
            o.put("maxTimestamp", batch.maxTimestamp());
            Integer count = batch.countOrNull();
            if (count != null) o.put("count", count);
            ArrayNode out = o.putArray("records");
            Iterator<Record> it = batch.iterator();
            while (it.hasNext()) {
                Record r = it.next();
                ObjectNode ro = out.addObject();
                ro.put("offset", r.offset());
                ro.put("timestamp", r.timestamp());
                putBytes(ro, "key", r.hasKey() ? r.key() : null);
                putBytes(ro, "value", r.hasValue() ? r.value() : null);
                ArrayNode hs = ro.putArray("headers");
                for (Header h : r.headers()) {
                    ObjectNode ho = hs.addObject();
                    ho.put("key", h.key());
                    if (h.value() == null) ho.putNull("value");
                    else ho.put("value", B64.encodeToString(h.value()));
                }
            }
            consumed += batch.sizeInBytes();
        }
        // readableRecords stops silently at a partial trailing batch; say how much was left.
        result.put("trailingBytes", bytes.length - consumed);
        return result;
    }

    private static void putBytes(ObjectNode o, String name, ByteBuffer b) {
        if (b == null) {
            o.putNull(name);
            return;
        }
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        o.put(name, B64.encodeToString(out));
    }

    private static byte[] bytes(JsonNode n) {
        if (n == null || n.isNull()) return null;
        if (!n.isTextual()) throw new IllegalArgumentException("bytes must be a base64 string or null");
        return B64_DECODE.decode(n.asText());
    }

    private static String text(JsonNode request, String name, String dflt) {
        JsonNode n = request.get(name);
        if (n == null) return dflt;
        if (!n.isTextual()) throw new IllegalArgumentException("'" + name + "' must be a string");
        return n.asText();
    }

    private static long longOf(JsonNode n, String name) {
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong()) {
            throw new IllegalArgumentException("'" + name + "' must be an int64 JSON integer");
        }
        return n.longValue();
    }

    private static long longField(JsonNode request, String name, long dflt) {
        JsonNode n = request.get(name);
        return n == null ? dflt : longOf(n, name);
    }

    private static long intRange(long v, String name) {
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) throw new IllegalArgumentException("'" + name + "' must be an int32");
        return v;
    }

    private static int intOf(JsonNode n, String name) {
        return (int) intRange(longOf(n, name), name);
    }
}
