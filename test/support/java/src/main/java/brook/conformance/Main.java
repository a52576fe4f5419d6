package brook.conformance;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Conformance oracle for Brook: a line-oriented JSON server (stdin -> stdout, one JSON
 * object per line) that encodes and decodes Kafka protocol message bodies with Apache
 * Kafka's own generated message classes and JsonConverters. See README.md.
 */
public final class Main {
    private static final String CLIENT_PKG = "org.apache.kafka.common.message.";
    private static final String COORDINATOR_PKG = "org.apache.kafka.coordinator.group.generated.";
    private static final String TRANSACTION_PKG = "org.apache.kafka.coordinator.transaction.generated.";

    /** APIs whose XxxRequest / XxxResponse are served (classes XxxRequestData / XxxResponseData). */
    private static final String[] APIS = {
        "ApiVersions", "Metadata", "Produce", "Fetch", "ListOffsets", "FindCoordinator",
        "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit", "OffsetFetch",
        "DescribeGroups", "ListGroups", "DeleteGroups", "OffsetDelete", "CreateTopics",
        "DeleteTopics", "DescribeConfigs", "InitProducerId", "SaslHandshake", "SaslAuthenticate",
        "DescribeCluster", "ConsumerGroupHeartbeat", "ConsumerGroupDescribe",
        "DeleteRecords", "AlterConfigs", "DescribeLogDirs", "CreatePartitions",
        "IncrementalAlterConfigs", "DescribeProducers", "DescribeTopicPartitions",
        "DescribeAcls", "CreateAcls", "DeleteAcls", "DescribeClientQuotas", "AlterClientQuotas",
        "DescribeUserScramCredentials",
        "AlterUserScramCredentials", "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn",
        "WriteTxnMarkers", "TxnOffsetCommit", "DescribeTransactions", "ListTransactions",
        "ShareGroupHeartbeat", "ShareGroupDescribe", "ShareFetch", "ShareAcknowledge",
        "DescribeShareGroupOffsets", "AlterShareGroupOffsets", "DeleteShareGroupOffsets",
        "InitializeShareGroupState", "ReadShareGroupState", "WriteShareGroupState", "DeleteShareGroupState",
        "ReadShareGroupStateSummary",
        "StreamsGroupHeartbeat", "StreamsGroupDescribe", "StreamsGroupTopologyDescriptionUpdate",
        "AlterPartitionReassignments", "ListPartitionReassignments",
    };
    /** Non-API messages served under their own class name. */
    private static final String[] CLIENT_MESSAGES = {"ConsumerProtocolSubscription", "ConsumerProtocolAssignment"};
    /** `__transaction_state` records (kafka-transaction-coordinator). */
    private static final String[] TRANSACTION_RECORDS = {"TransactionLogKey", "TransactionLogValue"};
    private static final String SHARE_PKG = "org.apache.kafka.coordinator.share.generated.";
    /** `__share_group_state` records (kafka-share-coordinator). */
    private static final String[] SHARE_RECORDS = {"ShareSnapshotKey", "ShareSnapshotValue", "ShareUpdateKey", "ShareUpdateValue"};
    /** Every `__consumer_offsets` record (kafka-group-coordinator): classic, consumer, share and streams groups. */
    private static final String[] COORDINATOR_RECORDS = {
        "ConsumerGroupCurrentMemberAssignmentKey", "ConsumerGroupCurrentMemberAssignmentValue",
        "ConsumerGroupMemberMetadataKey", "ConsumerGroupMemberMetadataValue",
        "ConsumerGroupMetadataKey", "ConsumerGroupMetadataValue",
        "ConsumerGroupPartitionMetadataKey", "ConsumerGroupPartitionMetadataValue",
        "ConsumerGroupRegularExpressionKey", "ConsumerGroupRegularExpressionValue",
        "ConsumerGroupTargetAssignmentMemberKey", "ConsumerGroupTargetAssignmentMemberValue",
        "ConsumerGroupTargetAssignmentMetadataKey", "ConsumerGroupTargetAssignmentMetadataValue",
        "GroupMetadataKey", "GroupMetadataValue",
        "LegacyOffsetCommitKey", "LegacyOffsetCommitValue",
        "OffsetCommitKey", "OffsetCommitValue",
        "ShareGroupCurrentMemberAssignmentKey", "ShareGroupCurrentMemberAssignmentValue",
        "ShareGroupMemberMetadataKey", "ShareGroupMemberMetadataValue",
        "ShareGroupMetadataKey", "ShareGroupMetadataValue",
        "ShareGroupStatePartitionMetadataKey", "ShareGroupStatePartitionMetadataValue",
        "ShareGroupTargetAssignmentMemberKey", "ShareGroupTargetAssignmentMemberValue",
        "ShareGroupTargetAssignmentMetadataKey", "ShareGroupTargetAssignmentMetadataValue",
        "StreamsGroupCurrentMemberAssignmentKey", "StreamsGroupCurrentMemberAssignmentValue",
        "StreamsGroupMemberMetadataKey", "StreamsGroupMemberMetadataValue",
        "StreamsGroupMetadataKey", "StreamsGroupMetadataValue",
        "StreamsGroupTargetAssignmentMemberKey", "StreamsGroupTargetAssignmentMemberValue",
        "StreamsGroupTargetAssignmentMetadataKey", "StreamsGroupTargetAssignmentMetadataValue",
        "StreamsGroupTopologyKey", "StreamsGroupTopologyValue",
    };

    /** One served message: Kafka's generated class plus its JsonConverter. */
    private record Codec(Constructor<?> reader, Method fromJson, Method toJson, short lowest, short highest) {
        static Codec load(String className) throws ReflectiveOperationException {
            Class<?> cls = Class.forName(className);
            Class<?> conv = Class.forName(className + "JsonConverter");
            Message proto = (Message) cls.getConstructor().newInstance();
            return new Codec(
                cls.getConstructor(Readable.class, short.class),
                conv.getMethod("read", JsonNode.class, short.class),
                conv.getMethod("write", cls, short.class),
                proto.lowestSupportedVersion(),
                proto.highestSupportedVersion());
        }

        Message fromJson(JsonNode data, short version) throws Throwable {
            return (Message) invoke(() -> fromJson.invoke(null, data, version));
        }

        JsonNode toJson(Message message, short version) throws Throwable {
            return (JsonNode) invoke(() -> toJson.invoke(null, message, version));
        }

        Message read(ByteBuffer buf, short version) throws Throwable {
            return (Message) invoke(() -> reader.newInstance(new ByteBufferAccessor(buf), version));
        }
    }

    private interface ReflectiveCall {
        Object call() throws ReflectiveOperationException;
    }

    /** Runs a reflective call, rethrowing whatever Kafka's code threw (not the reflection wrapper). */
    private static Object invoke(ReflectiveCall call) throws Throwable {
        try {
            return call.call();
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static final Map<String, Codec> CODECS = new LinkedHashMap<>();
    private static final HexFormat HEX = HexFormat.of();
    private static final ObjectMapper JSON;

    static {
        JsonFactory factory = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
            .build();
        JSON = new ObjectMapper(factory);
        try {
            for (String api : APIS) {
                for (String kind : new String[] {"Request", "Response"}) {
                    CODECS.put(api + kind, Codec.load(CLIENT_PKG + api + kind + "Data"));
                }
            }
            for (String name : CLIENT_MESSAGES) CODECS.put(name, Codec.load(CLIENT_PKG + name));
            for (String name : COORDINATOR_RECORDS) CODECS.put(name, Codec.load(COORDINATOR_PKG + name));
            for (String name : TRANSACTION_RECORDS) CODECS.put(name, Codec.load(TRANSACTION_PKG + name));
            for (String name : SHARE_RECORDS) CODECS.put(name, Codec.load(SHARE_PKG + name));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            out.write(JSON.writeValueAsString(handle(line)));
            out.write('\n');
            out.flush();
        }
    }

    static ObjectNode handle(String line) {
        ObjectNode reply = JSON.createObjectNode();
        JsonNode request = null;
        try {
            request = JSON.readTree(line);
            if (request == null || !request.isObject()) throw new IllegalArgumentException("request is not a JSON object");
            reply.set("id", request.path("id").isMissingNode() ? NullNode.instance : request.get("id"));
            ObjectNode result = dispatch(request);
            reply.put("ok", true);
            reply.setAll(result);
        } catch (Throwable t) {
            reply.removeAll();
            reply.set("id", request != null && request.has("id") ? request.get("id") : NullNode.instance);
            reply.put("ok", false);
            reply.put("error", t.getClass().getName() + ": " + t.getMessage());
        }
        return reply;
    }

    private static ObjectNode dispatch(JsonNode request) throws Throwable {
        String op = request.path("op").asText("");
        ObjectNode result = JSON.createObjectNode();
        switch (op) {
            case "versions" -> {
                ObjectNode messages = result.putObject("messages");
                CODECS.forEach((name, codec) -> messages.putObject(name)
                    .put("lowest", codec.lowest()).put("highest", codec.highest()));
            }
            case "encode" -> {
                Codec codec = codec(request);
                short version = version(request, codec);
                JsonNode data = request.get("data");
                if (data == null || !data.isObject()) throw new IllegalArgumentException("'data' must be a JSON object");
                result.put("hex", HEX.formatHex(serialize(codec.fromJson(data, version), version)));
            }
            case "decode" -> {
                Codec codec = codec(request);
                short version = version(request, codec);
                JsonNode hex = request.get("hex");
                if (hex == null || !hex.isTextual()) throw new IllegalArgumentException("'hex' must be a string");
                ByteBuffer buf = ByteBuffer.wrap(HEX.parseHex(hex.asText()));
                Message message = codec.read(buf, version);
                if (buf.hasRemaining()) {
                    throw new IllegalStateException(buf.remaining() + " trailing byte(s) not consumed at offset "
                        + buf.position() + " of " + buf.limit());
                }
                JsonNode data = codec.toJson(message, version);
                patchRecords(message, data);
                result.set("data", data);
                result.put("reencodedHex", HEX.formatHex(serialize(message, version)));
            }
            case "records-encode" -> result = RecordsOps.encode(request);
            case "records-decode" -> result = RecordsOps.decode(request);
            case "errors" -> result = ErrorCodes.list();
            default -> throw new IllegalArgumentException("unknown op '" + op
                + "' (expected versions, encode, decode, records-encode, records-decode or errors)");
        }
        return result;
    }

    private static Codec codec(JsonNode request) {
        String name = request.path("message").asText("");
        Codec codec = CODECS.get(name);
        if (codec == null) throw new IllegalArgumentException("unknown message '" + name + "'");
        return codec;
    }

    /** The request's version; must lie in the class's supported range unless "unchecked":true is given. */
    private static short version(JsonNode request, Codec codec) {
        JsonNode v = request.get("version");
        if (v == null || !v.canConvertToInt() || !v.isIntegralNumber()
            || v.intValue() < Short.MIN_VALUE || v.intValue() > Short.MAX_VALUE) {
            throw new IllegalArgumentException("'version' must be a 16-bit integer");
        }
        short version = (short) v.intValue();
        if (!request.path("unchecked").asBoolean(false) && (version < codec.lowest() || version > codec.highest())) {
            throw new org.apache.kafka.common.errors.UnsupportedVersionException("version " + version
                + " is outside the supported range " + codec.lowest() + "-" + codec.highest());
        }
        return version;
    }

    /** The message body exactly as Kafka writes it (no size prefix, no header, no version prefix). */
    private static byte[] serialize(Message message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = message.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(size);
        message.write(new ByteBufferAccessor(buf), cache, version);
        if (buf.hasRemaining()) {
            throw new IllegalStateException("Kafka wrote " + buf.position() + " bytes but computed size " + size);
        }
        return buf.array();
    }

    /**
     * Kafka's JsonConverters write every non-null `records` field as "" (an empty base64 string),
     * dropping the bytes. Walk the decoded message and its JSON in parallel and put the real
     * record bytes (base64) back, so decode output is lossless.
     */
    private static void patchRecords(Object message, JsonNode node) throws IllegalAccessException {
        if (!(node instanceof ObjectNode object)) return;
        for (Field field : CONTAINER_FIELDS.get(message.getClass())) {
            JsonNode child = object.get(field.getName());
            Object value = field.get(message);
            if (child == null || child.isNull() || value == null) continue;
            if (value instanceof BaseRecords records) {
                if (!(records instanceof MemoryRecords memory)) {
                    throw new IllegalStateException("unexpected records type " + records.getClass().getName());
                }
                ByteBuffer buf = memory.buffer().duplicate();
                byte[] bytes = new byte[buf.remaining()];
                buf.get(bytes);
                object.set(field.getName(), new BinaryNode(bytes));
            } else if (value instanceof Message) {
                patchRecords(value, child);
            } else if (value instanceof Collection<?> elements && child.isArray()) {
                Iterator<JsonNode> jsonElements = child.elements();
                for (Object element : elements) {
                    if (!jsonElements.hasNext()) break;
                    JsonNode jsonElement = jsonElements.next();
                    if (element instanceof Message) patchRecords(element, jsonElement);
                }
            }
        }
    }

    /** Per generated class: the instance fields that may hold records, sub-structs or arrays. */
    private static final ClassValue<List<Field>> CONTAINER_FIELDS = new ClassValue<>() {
        @Override
        protected List<Field> computeValue(Class<?> cls) {
            List<Field> fields = new ArrayList<>();
            for (Field f : cls.getDeclaredFields()) {
                Class<?> type = f.getType();
                if (Modifier.isStatic(f.getModifiers()) || type.isPrimitive() || type.isArray()
                    || type == String.class || f.getName().startsWith("_")) continue;
                if (BaseRecords.class.isAssignableFrom(type) || Message.class.isAssignableFrom(type)
                    || Collection.class.isAssignableFrom(type)) {
                    f.setAccessible(true);
                    fields.add(f);
                }
            }
            return fields;
        }
    };
}
