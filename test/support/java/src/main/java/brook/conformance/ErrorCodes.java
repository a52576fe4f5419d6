package brook.conformance;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The "errors" op: every code of Kafka's own error table (org.apache.kafka.common.protocol.Errors),
 * with its name and whether the Java client treats it as retriable (its exception is a
 * RetriableException), so Brook's table (src/protocol/errors.ts) can be checked against it.
 */
final class ErrorCodes {
    private ErrorCodes() {}

    static ObjectNode list() throws ClassNotFoundException {
        // Errors creates an slf4j logger when initialized; RecordsOps' initializer sets slf4j up
        // with stderr muted first (see there), so the oracle's stderr stays quiet.
        Class.forName("brook.conformance.RecordsOps");
        ObjectNode result = JsonNodeFactory.instance.objectNode();
        ArrayNode errors = result.putArray("errors");
        for (Errors e : Errors.values()) {
            errors.addObject()
                .put("code", e.code())
                .put("name", e.name())
                .put("retriable", e.exception() instanceof RetriableException);
        }
        return result;
    }
}
