/**
 * Brook has no authorizer, so every client may do everything. When a client asks for
 * its authorized operations (Metadata, DescribeCluster, DescribeGroups), the answer is
 * every operation Kafka defines for that resource type, as a bit set of AclOperation codes.
 */

const bits = (...ops: number[]): number => ops.reduce((acc, op) => acc | (1 << op), 0);

// Kafka's AclOperation codes.
const READ = 3, WRITE = 4, CREATE = 5, DELETE = 6, ALTER = 7, DESCRIBE = 8, CLUSTER_ACTION = 9;
const DESCRIBE_CONFIGS = 10, ALTER_CONFIGS = 11, IDEMPOTENT_WRITE = 12;

export const TOPIC_OPERATIONS = bits(READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS);
// Kafka's AclEntry.supportedOperations(CLUSTER): the token operations belong to USER and
// DELEGATION_TOKEN resources, not to the cluster.
export const CLUSTER_OPERATIONS = bits(CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE);
// Kafka 4.x's AclEntry.supportedOperations(GROUP): group configs (KIP-848) added the config operations.
export const GROUP_OPERATIONS = bits(READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS);

/** Kafka's value for "not requested". */
export const OPERATIONS_NOT_REQUESTED = -2147483648;
