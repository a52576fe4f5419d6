/**
 * Kafka protocol error codes, and Brook's base error classes.
 *
 * The table below lists every error code a Kafka broker can put on the wire, as
 * of Apache Kafka 4.4 (`org.apache.kafka.common.protocol.Errors`): the number,
 * the canonical NAME, and whether Kafka's Java client treats it as retriable
 * (its exception class is a subclass of `RetriableException`, directly or via
 * `InvalidMetadataException` / `RefreshRetriableException`). Numbers, names and
 * retriability are protocol facts and must match Kafka exactly; the messages are
 * Brook's own short descriptions. test/interop/java-conformance.test.ts checks the table
 * against Kafka's own.
 *
 * Codes are never reused or renumbered by Kafka, so new ones are only appended.
 */

/** One row of the error table. `[code, NAME, retriable, message]`. */
type ErrorRow = readonly [code: number, name: string, retriable: boolean, message: string];

// Kept as one literal tuple list so that `ErrorCode` (with literal key and value
// types) and the runtime lookup are both derived from a single source of truth.
const ERROR_TABLE = [
  [-1, 'UNKNOWN_SERVER_ERROR', false, 'The broker hit an unexpected error while handling the request'],
  [0, 'NONE', false, 'No error'],
  [1, 'OFFSET_OUT_OF_RANGE', false, 'The offset is outside the range held by the broker for this partition'],
  [2, 'CORRUPT_MESSAGE', true, 'A record failed its CRC check, is oversized, or is otherwise malformed'],
  [3, 'UNKNOWN_TOPIC_OR_PARTITION', true, 'The broker does not host this topic or partition'],
  [4, 'INVALID_FETCH_SIZE', false, 'The fetch size is not valid'],
  [5, 'LEADER_NOT_AVAILABLE', true, 'The partition has no leader right now (an election is in progress)'],
  [6, 'NOT_LEADER_OR_FOLLOWER', true, 'The broker is not the leader (or not a replica) of this partition'],
  [7, 'REQUEST_TIMED_OUT', true, 'The request timed out'],
  [8, 'BROKER_NOT_AVAILABLE', false, 'The broker is not available'],
  [9, 'REPLICA_NOT_AVAILABLE', true, 'The replica for this partition is not available'],
  [10, 'MESSAGE_TOO_LARGE', false, 'A message exceeds the largest size the broker accepts'],
  [11, 'STALE_CONTROLLER_EPOCH', false, 'The controller has moved to another broker'],
  [12, 'OFFSET_METADATA_TOO_LARGE', false, 'The committed offset metadata string is too long'],
  [13, 'NETWORK_EXCEPTION', true, 'The connection closed before a response arrived'],
  [14, 'COORDINATOR_LOAD_IN_PROGRESS', true, 'The coordinator is still loading its state'],
  [15, 'COORDINATOR_NOT_AVAILABLE', true, 'The coordinator is not available'],
  [16, 'NOT_COORDINATOR', true, 'This broker is not the coordinator for the group or transaction'],
  [17, 'INVALID_TOPIC_EXCEPTION', false, 'The topic is not valid for this operation'],
  [18, 'RECORD_LIST_TOO_LARGE', false, 'A record batch is larger than the log segment size'],
  [19, 'NOT_ENOUGH_REPLICAS', true, 'Too few in-sync replicas to accept the write'],
  [20, 'NOT_ENOUGH_REPLICAS_AFTER_APPEND', true, 'The write was appended but reached too few in-sync replicas'],
  [21, 'INVALID_REQUIRED_ACKS', false, 'The acks value of the produce request is not valid'],
  [22, 'ILLEGAL_GENERATION', false, 'The group generation id is not current'],
  [23, 'INCONSISTENT_GROUP_PROTOCOL', false, 'The member\'s protocols do not match the group\'s, or none were given'],
  [24, 'INVALID_GROUP_ID', false, 'The group id is not valid'],
  [25, 'UNKNOWN_MEMBER_ID', false, 'The coordinator does not know this member id'],
  [26, 'INVALID_SESSION_TIMEOUT', false, 'The session timeout is outside the range the broker allows'],
  [27, 'REBALANCE_IN_PROGRESS', false, 'The group is rebalancing; the member must rejoin'],
  [28, 'INVALID_COMMIT_OFFSET_SIZE', false, 'The size of the offset commit data is not valid'],
  [29, 'TOPIC_AUTHORIZATION_FAILED', false, 'Not authorized to access the topic'],
  [30, 'GROUP_AUTHORIZATION_FAILED', false, 'Not authorized to access the group'],
  [31, 'CLUSTER_AUTHORIZATION_FAILED', false, 'Not authorized to perform this cluster operation'],
  [32, 'INVALID_TIMESTAMP', false, 'A record timestamp is outside the accepted range'],
  [33, 'UNSUPPORTED_SASL_MECHANISM', false, 'The broker does not support this SASL mechanism'],
  [34, 'ILLEGAL_SASL_STATE', false, 'The request is not allowed in the current SASL state'],
  [35, 'UNSUPPORTED_VERSION', false, 'The broker does not support this API version'],
  [36, 'TOPIC_ALREADY_EXISTS', false, 'A topic with this name already exists'],
  [37, 'INVALID_PARTITIONS', false, 'The partition count is not valid'],
  [38, 'INVALID_REPLICATION_FACTOR', false, 'The replication factor is not valid for this cluster'],
  [39, 'INVALID_REPLICA_ASSIGNMENT', false, 'The replica assignment is not valid'],
  [40, 'INVALID_CONFIG', false, 'The configuration is not valid'],
  [41, 'NOT_CONTROLLER', true, 'This broker is not the active controller'],
  [42, 'INVALID_REQUEST', false, 'The request is malformed or not valid for this broker'],
  [43, 'UNSUPPORTED_FOR_MESSAGE_FORMAT', false, 'The message format on the broker does not support this request'],
  [44, 'POLICY_VIOLATION', false, 'The request violates a configured policy'],
  [45, 'OUT_OF_ORDER_SEQUENCE_NUMBER', false, 'The producer sequence number is out of order'],
  [46, 'DUPLICATE_SEQUENCE_NUMBER', false, 'The producer sequence number is a duplicate'],
  [47, 'INVALID_PRODUCER_EPOCH', false, 'The producer epoch is stale'],
  [48, 'INVALID_TXN_STATE', false, 'The transactional operation is not valid in the current state'],
  [49, 'INVALID_PRODUCER_ID_MAPPING', false, 'The producer id is not assigned to this transactional id'],
  [50, 'INVALID_TRANSACTION_TIMEOUT', false, 'The transaction timeout exceeds the broker maximum'],
  [51, 'CONCURRENT_TRANSACTIONS', true, 'Another operation on this transaction is still in progress'],
  [52, 'TRANSACTION_COORDINATOR_FENCED', false, 'The transaction coordinator sending the marker is no longer current'],
  [53, 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', false, 'Not authorized to use the transactional id'],
  [54, 'SECURITY_DISABLED', false, 'Security features are disabled on the broker'],
  [55, 'OPERATION_NOT_ATTEMPTED', false, 'The broker skipped this operation because another in the batch failed'],
  [56, 'KAFKA_STORAGE_ERROR', true, 'A disk error occurred while accessing the log'],
  [57, 'LOG_DIR_NOT_FOUND', false, 'The log directory is not configured on the broker'],
  [58, 'SASL_AUTHENTICATION_FAILED', false, 'SASL authentication failed'],
  [59, 'UNKNOWN_PRODUCER_ID', false, 'The broker has no state for this producer id'],
  [60, 'REASSIGNMENT_IN_PROGRESS', false, 'A partition reassignment is in progress'],
  [61, 'DELEGATION_TOKEN_AUTH_DISABLED', false, 'Delegation tokens are not enabled'],
  [62, 'DELEGATION_TOKEN_NOT_FOUND', false, 'The delegation token does not exist'],
  [63, 'DELEGATION_TOKEN_OWNER_MISMATCH', false, 'The principal is not the owner or renewer of the token'],
  [64, 'DELEGATION_TOKEN_REQUEST_NOT_ALLOWED', false, 'Delegation token requests are not allowed on this channel'],
  [65, 'DELEGATION_TOKEN_AUTHORIZATION_FAILED', false, 'Not authorized for this delegation token operation'],
  [66, 'DELEGATION_TOKEN_EXPIRED', false, 'The delegation token has expired'],
  [67, 'INVALID_PRINCIPAL_TYPE', false, 'The principal type is not supported'],
  [68, 'NON_EMPTY_GROUP', false, 'The group still has members'],
  [69, 'GROUP_ID_NOT_FOUND', false, 'The group does not exist'],
  [70, 'FETCH_SESSION_ID_NOT_FOUND', true, 'The fetch session id is unknown'],
  [71, 'INVALID_FETCH_SESSION_EPOCH', true, 'The fetch session epoch is not valid'],
  [72, 'LISTENER_NOT_FOUND', true, 'The leader has no listener matching the one the request came in on'],
  [73, 'TOPIC_DELETION_DISABLED', false, 'Topic deletion is disabled'],
  [74, 'FENCED_LEADER_EPOCH', true, 'The leader epoch in the request is older than the broker\'s'],
  [75, 'UNKNOWN_LEADER_EPOCH', true, 'The leader epoch in the request is newer than the broker\'s'],
  [76, 'UNSUPPORTED_COMPRESSION_TYPE', false, 'The client does not support the partition\'s compression type'],
  [77, 'STALE_BROKER_EPOCH', false, 'The broker epoch is stale'],
  [78, 'OFFSET_NOT_AVAILABLE', true, 'The new leader\'s high watermark has not caught up yet'],
  [79, 'MEMBER_ID_REQUIRED', false, 'The member must rejoin using the member id the coordinator assigned'],
  [80, 'PREFERRED_LEADER_NOT_AVAILABLE', true, 'The preferred leader is not available'],
  [81, 'GROUP_MAX_SIZE_REACHED', false, 'The group is already at its maximum size'],
  [82, 'FENCED_INSTANCE_ID', false, 'Another member with the same group.instance.id has replaced this one'],
  [83, 'ELIGIBLE_LEADERS_NOT_AVAILABLE', true, 'No eligible leader is available for the partition'],
  [84, 'ELECTION_NOT_NEEDED', true, 'The partition does not need a leader election'],
  [85, 'NO_REASSIGNMENT_IN_PROGRESS', false, 'No partition reassignment is in progress'],
  [86, 'GROUP_SUBSCRIBED_TO_TOPIC', false, 'Cannot delete offsets of a topic the group is subscribed to'],
  [87, 'INVALID_RECORD', false, 'The broker rejected a record that failed validation'],
  [88, 'UNSTABLE_OFFSET_COMMIT', true, 'Pending transactional offsets must settle before offsets can be fetched'],
  [89, 'THROTTLING_QUOTA_EXCEEDED', true, 'The throttling quota was exceeded'],
  [90, 'PRODUCER_FENCED', false, 'A newer producer with the same transactional id has fenced this one'],
  [91, 'RESOURCE_NOT_FOUND', false, 'The referenced resource does not exist'],
  [92, 'DUPLICATE_RESOURCE', false, 'The same resource was referenced more than once'],
  [93, 'UNACCEPTABLE_CREDENTIAL', false, 'The credential does not meet the acceptance criteria'],
  [94, 'INCONSISTENT_VOTER_SET', false, 'The sender or receiver is not one of the expected voters'],
  [95, 'INVALID_UPDATE_VERSION', false, 'The update version is not valid'],
  [96, 'FEATURE_UPDATE_FAILED', false, 'The finalized feature update failed on the server'],
  [97, 'PRINCIPAL_DESERIALIZATION_FAILURE', false, 'The forwarded request principal could not be deserialized'],
  [98, 'SNAPSHOT_NOT_FOUND', false, 'The snapshot does not exist'],
  [99, 'POSITION_OUT_OF_RANGE', false, 'The position is outside the bounds of the snapshot'],
  [100, 'UNKNOWN_TOPIC_ID', true, 'The broker does not host this topic id'],
  [101, 'DUPLICATE_BROKER_REGISTRATION', false, 'The broker id is already registered'],
  [102, 'BROKER_ID_NOT_REGISTERED', false, 'The broker id is not registered'],
  [103, 'INCONSISTENT_TOPIC_ID', true, 'The topic id in the request does not match the log\'s topic id'],
  [104, 'INCONSISTENT_CLUSTER_ID', false, 'The cluster id in the request does not match the server\'s'],
  [105, 'TRANSACTIONAL_ID_NOT_FOUND', false, 'The transactional id does not exist'],
  [106, 'FETCH_SESSION_TOPIC_ID_ERROR', true, 'The fetch session used topic ids inconsistently'],
  [107, 'INELIGIBLE_REPLICA', false, 'The proposed ISR contains an ineligible replica'],
  [108, 'NEW_LEADER_ELECTED', false, 'The partition state was updated but the leader has since changed'],
  [109, 'OFFSET_MOVED_TO_TIERED_STORAGE', false, 'The offset now lives in tiered storage'],
  [110, 'FENCED_MEMBER_EPOCH', false, 'The member epoch is fenced; drop all partitions and rejoin'],
  [111, 'UNRELEASED_INSTANCE_ID', false, 'The instance id is still held by another member'],
  [112, 'UNSUPPORTED_ASSIGNOR', false, 'The group does not support this assignor or version range'],
  [113, 'STALE_MEMBER_EPOCH', false, 'The member epoch is stale; retry with the epoch from the latest heartbeat'],
  [114, 'MISMATCHED_ENDPOINT_TYPE', false, 'The request reached an endpoint of the wrong type'],
  [115, 'UNSUPPORTED_ENDPOINT_TYPE', false, 'This endpoint type is not supported'],
  [116, 'UNKNOWN_CONTROLLER_ID', false, 'The controller id is unknown'],
  [117, 'UNKNOWN_SUBSCRIPTION_ID', false, 'The telemetry subscription id is unknown or outdated'],
  [118, 'TELEMETRY_TOO_LARGE', false, 'The telemetry payload exceeds the broker limit'],
  [119, 'INVALID_REGISTRATION', false, 'The controller considers the broker registration invalid'],
  [120, 'TRANSACTION_ABORTABLE', false, 'The transaction hit an error; abort it to keep using the transactional id'],
  [121, 'INVALID_RECORD_STATE', false, 'The record is in a state that does not allow this acknowledgement'],
  [122, 'SHARE_SESSION_NOT_FOUND', true, 'The share session does not exist'],
  [123, 'INVALID_SHARE_SESSION_EPOCH', true, 'The share session epoch is not valid'],
  [124, 'FENCED_STATE_EPOCH', false, 'The share-group state epoch does not match the share coordinator\'s'],
  [125, 'INVALID_VOTER_KEY', false, 'The voter key does not match the receiving replica'],
  [126, 'DUPLICATE_VOTER', false, 'The voter is already in the voter set'],
  [127, 'VOTER_NOT_FOUND', false, 'The voter is not in the voter set'],
  [128, 'INVALID_REGULAR_EXPRESSION', false, 'The regular expression is not valid'],
  [129, 'REBOOTSTRAP_REQUIRED', false, 'Client metadata is stale; the client must rebootstrap'],
  [130, 'STREAMS_INVALID_TOPOLOGY', false, 'The streams topology is not valid'],
  [131, 'STREAMS_INVALID_TOPOLOGY_EPOCH', false, 'The streams topology epoch is not valid'],
  [132, 'STREAMS_TOPOLOGY_FENCED', false, 'The streams topology epoch is out of date'],
  [133, 'SHARE_SESSION_LIMIT_REACHED', true, 'The broker has reached its share session limit'],
  // Added in Kafka 4.4.
  [134, 'GROUP_DELETION_FAILED', false, 'The group could not be deleted; the per-group error message says why'],
  [135, 'STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED', false, 'The broker could not update the streams topology description'],
  [136, 'CONTROLLER_ID_NOT_REGISTERED', false, 'The controller id is not registered'],
] as const satisfies readonly ErrorRow[];

type Row = (typeof ERROR_TABLE)[number];

export interface KafkaErrorInfo {
  readonly code: number;
  readonly name: string;
  readonly retriable: boolean;
  readonly message: string;
}

/** Every Kafka error code by name, e.g. `ErrorCode.NOT_COORDINATOR === 16`. */
export const ErrorCode = Object.freeze(
  Object.fromEntries(ERROR_TABLE.map(([code, name]) => [name, code])),
) as { readonly [R in Row as R[1]]: R[0] };

export type ErrorCodeName = keyof typeof ErrorCode;

const MIN_CODE = -1;

/** All known errors, ordered by code. */
export const KAFKA_ERRORS: readonly KafkaErrorInfo[] = Object.freeze(
  ERROR_TABLE.map(([code, name, retriable, message]) =>
    Object.freeze<KafkaErrorInfo>({ code, name, retriable, message }),
  ),
);

// Dense array indexed by `code - MIN_CODE`: errorInfo() sits on response-decoding
// hot paths, so it must be an O(1) lookup that hands back shared frozen objects.
const BY_INDEX: readonly (KafkaErrorInfo | undefined)[] = (() => {
  const max = KAFKA_ERRORS.reduce((m, e) => Math.max(m, e.code), MIN_CODE);
  const arr = new Array<KafkaErrorInfo | undefined>(max - MIN_CODE + 1).fill(undefined);
  for (const e of KAFKA_ERRORS) {
    if (arr[e.code - MIN_CODE] !== undefined) throw new Error(`duplicate Kafka error code ${e.code}`);
    arr[e.code - MIN_CODE] = e;
  }
  return arr;
})();

function lookup(code: number): KafkaErrorInfo | undefined {
  // Non-integers index to `undefined` (e.g. arr[2.5]), so they fall through as unknown.
  return BY_INDEX[code - MIN_CODE];
}

/**
 * Describe an error code. Codes this table does not know (e.g. from a newer broker)
 * are reported as non-retriable, which is also what Kafka's own client does.
 */
export function errorInfo(code: number): KafkaErrorInfo {
  return (
    lookup(code) ?? {
      code,
      name: `UNKNOWN_ERROR_CODE_${code}`,
      retriable: false,
      message: 'Error code not known to this version of Brook',
    }
  );
}

export function isRetriable(code: number): boolean {
  return lookup(code)?.retriable ?? false;
}

/** Base class of every Brook error: carries a literal string `code` (e.g. 'ERR_KAFKA', 'ERR_PROTOCOL_DECODE'). */
export abstract class BrookError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    // So stack traces and util.inspect show the concrete subclass without each one setting it.
    this.name = new.target.name;
  }
}

/** An error code returned by a Kafka broker (or to be returned by ours). */
export class KafkaProtocolError extends BrookError {
  override readonly code = 'ERR_KAFKA' as const;
  readonly errorCode: number;
  readonly errorName: string;
  readonly retriable: boolean;
  /** Extra context supplied by the caller or the broker's error message, if any. */
  readonly detail: string | undefined;

  constructor(errorCode: number, detail?: string) {
    const info = errorInfo(errorCode);
    super(`${info.name} (${errorCode}): ${info.message}${detail ? `: ${detail}` : ''}`);
    this.name = 'KafkaProtocolError';
    this.errorCode = errorCode;
    this.errorName = info.name;
    this.retriable = info.retriable;
    this.detail = detail;
  }
}

/** Throws a KafkaProtocolError unless `errorCode` is NONE (0). */
export function throwIfError(errorCode: number, detail?: string): void {
  if (errorCode !== 0) throw new KafkaProtocolError(errorCode, detail);
}
