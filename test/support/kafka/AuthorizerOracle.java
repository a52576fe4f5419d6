// Apache Kafka's own StandardAuthorizer (kafka-metadata 4.4.0), as an oracle for Brook's
// (test/unit/authorizer-kafka.test.ts). Run as a single-file program on the Kafka broker's
// classpath (test/support/kafka/build.sh):
//   java -cp CLASSPATH AuthorizerOracle.java < cases.json
// stdin: a JSON array of scenarios, each
//   {"superUsers":"User:a;User:b","allowEveryoneIfNoAclFound":false,
//    "acls":[[resourceType,name,patternType,principal,host,operation,permissionType],...],
//    "authorize":[[principal,clientAddress,operation,resourceType,name],...],
//    "byResourceType":[[principal,clientAddress,operation,resourceType],...]}
// (codes as on the wire; clientAddress an IP literal, as Node's socket.remoteAddress gives it).
// The ACLs are loaded as the broker loads them from the metadata log (addAcl, then
// completeInitialLoad), a fresh authorizer per scenario. stdout: a JSON array, per scenario
//   {"authorize":[true,false,...],"byResourceType":[...]}.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.authorizer.AuthorizationResult;

public class AuthorizerOracle {
    static AuthorizableRequestContext context(String principal, String address) throws Exception {
        int colon = principal.indexOf(':');
        KafkaPrincipal p = new KafkaPrincipal(principal.substring(0, colon), principal.substring(colon + 1));
        InetAddress a = InetAddress.getByName(address);
        return new AuthorizableRequestContext() {
            public String listenerName() { return "PLAINTEXT"; }
            public SecurityProtocol securityProtocol() { return SecurityProtocol.PLAINTEXT; }
            public KafkaPrincipal principal() { return p; }
            public InetAddress clientAddress() { return a; }
            public int requestType() { return 3; }
            public int requestVersion() { return 12; }
            public String clientId() { return "oracle"; }
            public int correlationId() { return 1; }
        };
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode replies = mapper.createArrayNode();
        for (JsonNode in : mapper.readTree(System.in)) replies.add(run(mapper, in));
        System.out.println(mapper.writeValueAsString(replies));
    }

    static ObjectNode run(ObjectMapper mapper, JsonNode in) throws Exception {
        StandardAuthorizer authorizer = new StandardAuthorizer();
        Map<String, Object> configs = new HashMap<>();
        configs.put("node.id", "1");
        if (in.hasNonNull("superUsers")) configs.put(StandardAuthorizer.SUPER_USERS_CONFIG, in.get("superUsers").asText());
        configs.put(StandardAuthorizer.ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG, String.valueOf(in.path("allowEveryoneIfNoAclFound").asBoolean(false)));
        authorizer.configure(configs);
        // The broker hands every plugin its metrics before use; authorize() records into them.
        authorizer.withPluginMetrics(new PluginMetricsImpl(new Metrics(), Map.of()));
        for (JsonNode acl : in.path("acls")) {
            AclBinding binding = new AclBinding(
                new ResourcePattern(ResourceType.fromCode((byte) acl.get(0).asInt()), acl.get(1).asText(), PatternType.fromCode((byte) acl.get(2).asInt())),
                new AccessControlEntry(acl.get(3).asText(), acl.get(4).asText(), AclOperation.fromCode((byte) acl.get(5).asInt()), AclPermissionType.fromCode((byte) acl.get(6).asInt())));
            authorizer.addAcl(Uuid.randomUuid(), StandardAcl.fromAclBinding(binding));
        }
        authorizer.completeInitialLoad();
        ObjectNode out = mapper.createObjectNode();
        ArrayNode answers = out.putArray("authorize");
        for (JsonNode q : in.path("authorize")) {
            Action action = new Action(AclOperation.fromCode((byte) q.get(2).asInt()),
                new ResourcePattern(ResourceType.fromCode((byte) q.get(3).asInt()), q.get(4).asText(), PatternType.LITERAL), 1, true, true);
            List<AuthorizationResult> r = authorizer.authorize(context(q.get(0).asText(), q.get(1).asText()), List.of(action));
            answers.add(r.get(0) == AuthorizationResult.ALLOWED);
        }
        ArrayNode byType = out.putArray("byResourceType");
        for (JsonNode q : in.path("byResourceType")) {
            AuthorizationResult r = authorizer.authorizeByResourceType(context(q.get(0).asText(), q.get(1).asText()),
                AclOperation.fromCode((byte) q.get(2).asInt()), ResourceType.fromCode((byte) q.get(3).asInt()));
            byType.add(r == AuthorizationResult.ALLOWED);
        }
        return out;
    }
}
