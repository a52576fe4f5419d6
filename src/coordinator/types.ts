/**
 * The coordinator's contract with the broker runtime that drives it.
 *
 * The coordinator is a pure state machine: every call takes a decoded request (or a timer
 * key) and the current time, mutates its in-memory state and returns a CoordinatorResult.
 * It never reads a clock, never sets a timer and never writes a file; the runtime does all
 * three from the result.
 */
import { randomUUID } from 'node:crypto';
import type { GroupEvent } from './events.js';
import type { StreamsTaskAssignor } from './streams/assignor/types.js';
import { stickyTaskAssignor } from './streams/assignor/sticky.js';
import type { ConfiguredInternalTopic } from './streams/topology/types.js';

/** The broker's handle for a request the coordinator may answer later (a parked request). */
export type RequestId = number;

/**
 * Names a timer. Scheduling a key that is already scheduled replaces it (Kafka's timer has
 * the same rule), so a key is pending at most once.
 */
export type TimerKey = string;

/** One record for `__consumer_offsets`: framed key and value bytes, value null for a tombstone. */
export interface CoordinatorRecord {
  key: Buffer;
  value: Buffer | null;
  /**
   * Set on a record written inside a transaction (TxnOffsetCommit), which goes to the log
   * in a transactional batch of this producer; replay passes them for the records of
   * transactions still open at the end of the log.
   */
  producerId?: bigint;
  producerEpoch?: number;
}

export type TimerOp = { schedule: TimerKey; atMs: number } | { cancel: TimerKey };

/**
 * Names a result whose records (or an earlier result's) may still fail to become durable.
 * The runtime must settle every token it gets, in order: `committed(token)` once the
 * result's replies can go out, `revert(token, ...)` when they carry an append error.
 */
export type ResultToken = number;

export interface CoordinatorReply {
  requestId: RequestId;
  /** The generated *ResponseData for the request's API, valid at the request's apiVersion. */
  response: unknown;
}

export interface CoordinatorResult {
  /** Answers, to this request and possibly to requests parked earlier. */
  replies: CoordinatorReply[];
  /** Timer operations, to be applied in order. */
  timers: TimerOp[];
  /**
   * Records to append to `__consumer_offsets`. When there are any, the runtime releases the
   * replies of this result only once the records are durable.
   */
  records: CoordinatorRecord[];
  /**
   * What happened to groups (events.ts), for logs and metrics: they stand once the result's
   * replies go out as they are (never for a reverted result).
   */
  events: GroupEvent[];
  /**
   * Set when the coordinator keeps this result's changes in case its records, or those of an
   * earlier result still pending, fail: the runtime then calls `committed(token)` or
   * `revert(token, ...)`. Null when the result cannot fail (no records, nothing pending) or
   * changed nothing.
   */
  token: ResultToken | null;
  /**
   * Share partitions whose share state must be initialized before the share group may assign
   * them (Kafka's InitializeShareGroupStateParameters, which GroupCoordinatorService sends to
   * the share coordinator once the heartbeat's records are written). Only once the result
   * stands (its token committed, or no token): the runtime then has the share coordinator
   * initialize them and calls `initializeShareGroupState` (or `uninitializeShareGroupState`
   * when that failed). Absent when there are none.
   */
  shareInitializations?: ShareGroupStateInitialization[];
  /**
   * Internal topics (repartition, changelog) a streams group's topology needs and that do not
   * exist (Kafka's StreamsGroupHeartbeatResult.creatableTopics, which KafkaApis hands to its
   * AutoTopicCreationManager): the broker creates them once the result's replies go out; the
   * group notices them through `onMetadataChange`. Absent when there are none.
   */
  streamsInternalTopics?: StreamsInternalTopicsToCreate[];
}

export interface StreamsInternalTopicsToCreate {
  readonly groupId: string;
  readonly topics: readonly ConfiguredInternalTopic[];
}

/** A share partition's state to initialize: Kafka's PartitionStateData (InitializeShareGroupState). */
export interface SharePartitionInitialization {
  readonly partition: number;
  /** The state epoch: the group epoch that asked for it. */
  readonly stateEpoch: number;
  /**
   * -1: from where `share.auto.offset.reset` says (a topic new to the group); 0: from the
   * start (new partitions of a topic the group already had).
   */
  readonly startOffset: bigint;
}

export interface ShareGroupStateInitialization {
  readonly groupId: string;
  readonly topics: readonly { readonly topicId: string; readonly partitions: readonly SharePartitionInitialization[] }[];
}

export interface RequestContext {
  requestId: RequestId;
  apiVersion: number;
  clientId: string;
  /** As Kafka reports it in DescribeGroups, e.g. "/127.0.0.1". */
  clientHost: string;
  nowMs: number;
  /**
   * Whether the requesting principal may DESCRIBE a topic, when the broker has an authorizer:
   * the topics a member's regex resolves to are those it may describe (Kafka 4's
   * refreshRegularExpressions, which resolves with the context of the heartbeat that asked).
   */
  mayDescribeTopic?: (topic: string) => boolean;
}

/**
 * Kafka's `group.consumer.migration.policy`: which online conversions between classic and
 * consumer groups with members are allowed (KIP-848's upgrade path). An Empty group gives
 * way to the other kind whatever the policy.
 */
export type ConsumerGroupMigrationPolicy = 'bidirectional' | 'upgrade' | 'downgrade' | 'disabled';

export function isUpgradeEnabled(policy: ConsumerGroupMigrationPolicy): boolean {
  return policy === 'bidirectional' || policy === 'upgrade';
}

export function isDowngradeEnabled(policy: ConsumerGroupMigrationPolicy): boolean {
  return policy === 'bidirectional' || policy === 'downgrade';
}

/**
 * A group's own settings (Kafka's GroupConfig: consumer.session.timeout.ms, ...), each in
 * place of the broker's when set.
 */
export interface GroupOverrides {
  readonly consumerSessionTimeoutMs?: number | undefined;
  readonly consumerHeartbeatIntervalMs?: number | undefined;
  readonly shareSessionTimeoutMs?: number | undefined;
  readonly shareHeartbeatIntervalMs?: number | undefined;
  readonly streamsSessionTimeoutMs?: number | undefined;
  readonly streamsHeartbeatIntervalMs?: number | undefined;
  readonly streamsNumStandbyReplicas?: number | undefined;
  readonly streamsAssignmentIntervalMs?: number | undefined;
  readonly streamsRackAwareAssignmentTags?: readonly string[] | undefined;
}

const NO_OVERRIDES: GroupOverrides = {};

/** Settings, named after Kafka's broker configs (in the comments), with Kafka's defaults. */
export interface GroupCoordinatorConfig {
  /** `group.initial.rebalance.delay.ms` */
  initialRebalanceDelayMs: number;
  /** `group.min.session.timeout.ms` */
  minSessionTimeoutMs: number;
  /** `group.max.session.timeout.ms` */
  maxSessionTimeoutMs: number;
  /** `group.max.size` */
  maxGroupSize: number;
  /** `offsets.retention.minutes`, in milliseconds */
  offsetsRetentionMs: number;
  /** `offsets.retention.check.interval.ms` */
  offsetsRetentionCheckIntervalMs: number;
  /** `offset.metadata.max.bytes` (compared, as Kafka does, with the string's length) */
  offsetMetadataMaxBytes: number;
  /**
   * How long a new member's JoinGroup may stay parked (Kafka's internal
   * `classicGroupNewMemberJoinTimeoutMs`, 5 minutes).
   */
  newMemberJoinTimeoutMs: number;
  /** AclOperation bit set reported by DescribeGroups v3+ when asked (Brook has no authorizer). */
  groupAuthorizedOperations: number;
  /** `group.consumer.session.timeout.ms` */
  consumerGroupSessionTimeoutMs: number;
  /** `group.consumer.heartbeat.interval.ms` */
  consumerGroupHeartbeatIntervalMs: number;
  /** `group.consumer.max.size` */
  consumerGroupMaxSize: number;
  /** `group.consumer.assignors`: the server assignors clients may select; the first is the default. */
  consumerGroupAssignors: readonly string[];
  /** `group.consumer.regex.refresh.interval.ms` (a Kafka internal config) */
  consumerGroupRegexRefreshIntervalMs: number;
  /**
   * `group.consumer.assignment.interval.ms` (KIP-1263, Kafka 4.4): a consumer group computes
   * a new target assignment at most this often; 0 computes one at every change.
   */
  consumerGroupAssignmentIntervalMs: number;
  /** `group.consumer.migration.policy` */
  consumerGroupMigrationPolicy: ConsumerGroupMigrationPolicy;
  /** `group.share.session.timeout.ms` */
  shareGroupSessionTimeoutMs: number;
  /** `group.share.heartbeat.interval.ms` */
  shareGroupHeartbeatIntervalMs: number;
  /** `group.share.max.size` */
  shareGroupMaxSize: number;
  /** `group.share.assignors`: Kafka uses the first (its only one is `simple`). */
  shareGroupAssignors: readonly string[];
  /** `group.share.assignment.interval.ms` (KIP-1263): a new target assignment at most this often; 0 at every change. */
  shareGroupAssignmentIntervalMs: number;
  /**
   * `group.share.initialize.retry.interval.ms`: share partitions still initializing after this
   * long are asked for again (Kafka takes at least `offsets.commit.timeout.ms`, 5 s).
   */
  shareGroupInitializeRetryIntervalMs: number;
  /** `group.streams.session.timeout.ms` */
  streamsGroupSessionTimeoutMs: number;
  /** `group.streams.heartbeat.interval.ms` */
  streamsGroupHeartbeatIntervalMs: number;
  /** `group.streams.max.size` */
  streamsGroupMaxSize: number;
  /** `group.streams.num.standby.replicas` */
  streamsGroupNumStandbyReplicas: number;
  /**
   * `group.streams.initial.rebalance.delay.ms`: a streams group's first target assignment
   * waits this long after its first member joined, so that the others can join first.
   */
  streamsGroupInitialRebalanceDelayMs: number;
  /**
   * `group.streams.assignment.interval.ms`: a streams group's next target assignment waits
   * this long after its last one (ASSIGNMENT_DELAYED meanwhile).
   */
  streamsGroupAssignmentIntervalMs: number;
  /**
   * `group.streams.rack.aware.assignment.tags`: client tags every member should have (Kafka
   * 4.4's assignor does not use them yet; a change rebalances, a member without them is told).
   */
  streamsGroupRackAwareAssignmentTags: readonly string[];
  /** `group.streams.task.offset.interval.ms`: how often members report their task offsets. */
  streamsGroupTaskOffsetIntervalMs: number;
  /** `group.streams.acceptable.recovery.lag` */
  streamsGroupAcceptableRecoveryLag: bigint;
  /** The task assignor (Kafka's `group.streams.assignors`' first, `sticky`); tests inject their own. */
  streamsGroupAssignor: StreamsTaskAssignor;
  /**
   * A group's own settings, looked up whenever one is used (a session scheduled, a heartbeat
   * answered): a change takes effect at the group's next heartbeat, as in Kafka. Must be a
   * pure lookup (the broker's in-memory group configs): the coordinator does no I/O.
   */
  groupOverrides: (groupId: string) => GroupOverrides;
  /**
   * Source of the UUID part of member ids (and of consumer-group member ids a version-0
   * ConsumerGroupHeartbeat leaves to the coordinator); tests inject a deterministic one.
   */
  generateUuid: () => string;
}

// What a group supports in Kafka 4.x (AclEntry.supportedOperations(GROUP)), as AclOperation
// codes: READ (3), DELETE (6), DESCRIBE (8), DESCRIBE_CONFIGS (10), ALTER_CONFIGS (11); the
// last two came with group configs (KIP-848).
const GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);

export const DEFAULT_GROUP_COORDINATOR_CONFIG: GroupCoordinatorConfig = {
  initialRebalanceDelayMs: 3000,
  minSessionTimeoutMs: 6000,
  maxSessionTimeoutMs: 1_800_000,
  maxGroupSize: 2_147_483_647,
  offsetsRetentionMs: 7 * 24 * 60 * 60 * 1000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetMetadataMaxBytes: 4096,
  newMemberJoinTimeoutMs: 5 * 60 * 1000,
  groupAuthorizedOperations: GROUP_OPERATIONS,
  consumerGroupSessionTimeoutMs: 45_000,
  consumerGroupHeartbeatIntervalMs: 5000,
  consumerGroupMaxSize: 2_147_483_647,
  consumerGroupAssignors: ['uniform', 'range'],
  consumerGroupRegexRefreshIntervalMs: 10 * 60 * 1000,
  consumerGroupAssignmentIntervalMs: 1000,
  consumerGroupMigrationPolicy: 'bidirectional',
  shareGroupSessionTimeoutMs: 45_000,
  shareGroupHeartbeatIntervalMs: 5000,
  shareGroupMaxSize: 200,
  shareGroupAssignors: ['simple'],
  shareGroupAssignmentIntervalMs: 1000,
  shareGroupInitializeRetryIntervalMs: 30_000,
  streamsGroupSessionTimeoutMs: 45_000,
  streamsGroupHeartbeatIntervalMs: 5000,
  streamsGroupMaxSize: 2_147_483_647,
  streamsGroupNumStandbyReplicas: 0,
  streamsGroupInitialRebalanceDelayMs: 3000,
  streamsGroupAssignmentIntervalMs: 1000,
  streamsGroupRackAwareAssignmentTags: [],
  streamsGroupTaskOffsetIntervalMs: 60_000,
  streamsGroupAcceptableRecoveryLag: 10_000n,
  streamsGroupAssignor: stickyTaskAssignor,
  groupOverrides: () => NO_OVERRIDES,
  generateUuid: () => randomUUID(),
};

export function groupCoordinatorConfig(overrides: Partial<GroupCoordinatorConfig> = {}): GroupCoordinatorConfig {
  return { ...DEFAULT_GROUP_COORDINATOR_CONFIG, ...overrides };
}

/** The group's consumer-protocol session timeout: its own, else the broker's. */
export function consumerSessionTimeoutMs(config: GroupCoordinatorConfig, groupId: string): number {
  return config.groupOverrides(groupId).consumerSessionTimeoutMs ?? config.consumerGroupSessionTimeoutMs;
}

export function consumerHeartbeatIntervalMs(config: GroupCoordinatorConfig, groupId: string): number {
  return config.groupOverrides(groupId).consumerHeartbeatIntervalMs ?? config.consumerGroupHeartbeatIntervalMs;
}

export function shareSessionTimeoutMs(config: GroupCoordinatorConfig, groupId: string): number {
  return config.groupOverrides(groupId).shareSessionTimeoutMs ?? config.shareGroupSessionTimeoutMs;
}

export function shareHeartbeatIntervalMs(config: GroupCoordinatorConfig, groupId: string): number {
  return config.groupOverrides(groupId).shareHeartbeatIntervalMs ?? config.shareGroupHeartbeatIntervalMs;
}

export function streamsSessionTimeoutMs(config: GroupCoordinatorConfig, groupId: string): number {
  return config.groupOverrides(groupId).streamsSessionTimeoutMs ?? config.streamsGroupSessionTimeoutMs;
}

export function streamsHeartbeatIntervalMs(config: GroupCoordinatorConfig, groupId: string): number {
  return config.groupOverrides(groupId).streamsHeartbeatIntervalMs ?? config.streamsGroupHeartbeatIntervalMs;
}

export function streamsAssignmentIntervalMs(config: GroupCoordinatorConfig, groupId: string): number {
  return config.groupOverrides(groupId).streamsAssignmentIntervalMs ?? config.streamsGroupAssignmentIntervalMs;
}

export function streamsRackAwareAssignmentTags(config: GroupCoordinatorConfig, groupId: string): readonly string[] {
  return config.groupOverrides(groupId).streamsRackAwareAssignmentTags ?? config.streamsGroupRackAwareAssignmentTags;
}

export function streamsNumStandbyReplicas(config: GroupCoordinatorConfig, groupId: string): number {
  return config.groupOverrides(groupId).streamsNumStandbyReplicas ?? config.streamsGroupNumStandbyReplicas;
}

/** For exhaustive switches: a compile error when a case is missing, a throw if reached. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${String(value)}`);
}
