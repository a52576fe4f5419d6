/**
 * A member of a consumer group, as Kafka's ConsumerGroupMember: an immutable value; every
 * change builds a new one (`{ ...member, field }`), which the records then persist.
 */
import { assignmentEquals, EMPTY_ASSIGNMENT, hasPartition, type Assignment } from './assignment.js';

/**
 * A member that uses the classic protocol inside a consumer group (Kafka's
 * ClassicMemberMetadata): its JoinGroup's session timeout and protocols (name and
 * subscription bytes), in the order it listed them.
 */
export interface ClassicMemberMetadata {
  readonly sessionTimeoutMs: number;
  readonly supportedProtocols: readonly { readonly name: string; readonly metadata: Buffer }[];
}

/** Kafka's MemberState values, as written in ConsumerGroupCurrentMemberAssignmentValue.State. */
export const MemberState = {
  /** The member has its target assignment at its epoch. */
  STABLE: 0,
  /** The member must give up partitions before it can move to the next epoch. */
  UNREVOKED_PARTITIONS: 1,
  /** The member waits for partitions other members still hold. */
  UNRELEASED_PARTITIONS: 2,
  /** A state this coordinator does not know (written by a newer one): the member is fenced. */
  UNKNOWN: 127,
} as const;
export type MemberState = (typeof MemberState)[keyof typeof MemberState];

/** Kafka's name of a member state (the flight recorder's reconciliation steps). */
export function memberStateName(state: number): string {
  switch (state) {
    case MemberState.STABLE: return 'STABLE';
    case MemberState.UNREVOKED_PARTITIONS: return 'UNREVOKED_PARTITIONS';
    case MemberState.UNRELEASED_PARTITIONS: return 'UNRELEASED_PARTITIONS';
    default: return 'UNKNOWN';
  }
}

export function memberStateFromValue(value: number): MemberState {
  return value === 0 || value === 1 || value === 2 ? value : MemberState.UNKNOWN;
}

const JAVA_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A member id the consumer-group coordinator generates (a version-0 heartbeat, a classic
 * member joining a consumer group): Kafka's `Uuid.randomUuid().toString()`, 16 random bytes
 * in URL-safe base64 without padding, never starting with '-'. Built from the configured
 * UUID source; an id that is not a UUID (a test's) is used as it is.
 */
export function newMemberId(generateUuid: () => string): string {
  for (;;) {
    const uuid = generateUuid();
    if (!JAVA_UUID.test(uuid)) return uuid;
    const id = Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** ConsumerGroupHeartbeat's member epochs with a meaning of their own. */
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface ConsumerGroupMember {
  readonly memberId: string;
  readonly memberEpoch: number;
  /** The epoch before the last bump: a member whose response was lost may come back with it. */
  readonly previousMemberEpoch: number;
  readonly state: MemberState;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly rebalanceTimeoutMs: number;
  readonly clientId: string;
  readonly clientHost: string;
  /** In the order Kafka's HashSet of them iterates (java-hash.ts). */
  readonly subscribedTopicNames: readonly string[];
  /** '' (Kafka's default) or null: no regular expression. */
  readonly subscribedTopicRegex: string | null;
  readonly serverAssignorName: string | null;
  /** Set for a member that joined with JoinGroup (the classic protocol); null otherwise. */
  readonly classicMemberMetadata: ClassicMemberMetadata | null;
  readonly assignedPartitions: Assignment;
  readonly partitionsPendingRevocation: Assignment;
  /**
   * Kafka 4.4's assignment epochs (KIP-1251): for every partition of assignedPartitions and
   * partitionsPendingRevocation, the member epoch at which it was assigned to the member. A
   * commit with an older member epoch is accepted for a partition assigned at or before it.
   */
  readonly assignmentEpochs: AssignmentEpochs;
}

/** topic id → partition → the epoch at which the member got it. */
export type AssignmentEpochs = ReadonlyMap<string, ReadonlyMap<number, number>>;

export const EMPTY_ASSIGNMENT_EPOCHS: AssignmentEpochs = new Map();

/** The same epoch for every partition of `assignments` (Kafka's default for a record without epochs). */
export function uniformAssignmentEpochs(epoch: number, ...assignments: Assignment[]): AssignmentEpochs {
  const out = new Map<string, Map<number, number>>();
  for (const a of assignments) {
    for (const [topicId, partitions] of a) {
      const byPartition = out.get(topicId) ?? new Map<number, number>();
      for (const p of partitions) byPartition.set(p, epoch);
      out.set(topicId, byPartition);
    }
  }
  return out;
}

/** The epoch at which the member got the partition, whether assigned or pending revocation; undefined if it has neither. */
export function assignmentEpochOf(m: ConsumerGroupMember, topicId: string, partition: number): number | undefined {
  if (!hasPartition(m.assignedPartitions, topicId, partition) && !hasPartition(m.partitionsPendingRevocation, topicId, partition)) return undefined;
  return m.assignmentEpochs.get(topicId)?.get(partition) ?? Math.max(m.memberEpoch, 0);
}

/** Kafka's ConsumerGroupMember.Builder defaults: what a member is before its first record. */
export function newMember(memberId: string): ConsumerGroupMember {
  return {
    memberId,
    memberEpoch: 0,
    previousMemberEpoch: -1,
    state: MemberState.STABLE,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: [],
    subscribedTopicRegex: '',
    serverAssignorName: null,
    classicMemberMetadata: null,
    assignedPartitions: EMPTY_ASSIGNMENT,
    partitionsPendingRevocation: EMPTY_ASSIGNMENT,
    assignmentEpochs: EMPTY_ASSIGNMENT_EPOCHS,
  };
}

export function hasRegex(regex: string | null): regex is string {
  return regex !== null && regex !== '';
}

export function isReconciledTo(m: ConsumerGroupMember, targetAssignmentEpoch: number): boolean {
  return m.state === MemberState.STABLE && m.memberEpoch === targetAssignmentEpoch;
}

/** Kafka's `updateMemberEpoch`: the current epoch becomes the previous one. */
export function withMemberEpoch(m: ConsumerGroupMember, memberEpoch: number): ConsumerGroupMember {
  return { ...m, previousMemberEpoch: m.memberEpoch, memberEpoch };
}

export function sameTopicNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((t) => set.has(t));
}

function sameClassicMetadata(a: ClassicMemberMetadata | null, b: ClassicMemberMetadata | null): boolean {
  if (a === null || b === null) return a === b;
  return a.sessionTimeoutMs === b.sessionTimeoutMs
    && a.supportedProtocols.length === b.supportedProtocols.length
    && a.supportedProtocols.every((p, i) => p.name === b.supportedProtocols[i]!.name && p.metadata.equals(b.supportedProtocols[i]!.metadata));
}

/** Whether the member joined with the classic protocol (Kafka's useClassicProtocol). */
export function usesClassicProtocol(m: ConsumerGroupMember): boolean {
  return m.classicMemberMetadata !== null;
}

/** The fields the member metadata record carries. */
export function sameMetadata(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return a.instanceId === b.instanceId
    && a.rackId === b.rackId
    && a.rebalanceTimeoutMs === b.rebalanceTimeoutMs
    && a.clientId === b.clientId
    && a.clientHost === b.clientHost
    && sameTopicNames(a.subscribedTopicNames, b.subscribedTopicNames)
    && a.subscribedTopicRegex === b.subscribedTopicRegex
    && a.serverAssignorName === b.serverAssignorName
    && sameClassicMetadata(a.classicMemberMetadata, b.classicMemberMetadata);
}

/** The fields the current assignment record carries. */
export function sameAssignmentState(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return a.memberEpoch === b.memberEpoch
    && a.previousMemberEpoch === b.previousMemberEpoch
    && a.state === b.state
    && assignmentEquals(a.assignedPartitions, b.assignedPartitions)
    && assignmentEquals(a.partitionsPendingRevocation, b.partitionsPendingRevocation)
    && sameAssignmentEpochs(a.assignmentEpochs, b.assignmentEpochs);
}

function sameAssignmentEpochs(a: AssignmentEpochs, b: AssignmentEpochs): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [topicId, epochs] of a) {
    const other = b.get(topicId);
    if (other === undefined || other.size !== epochs.size) return false;
    for (const [p, e] of epochs) if (other.get(p) !== e) return false;
  }
  return true;
}

/** Kafka's ConsumerGroupMember.equals. */
export function memberEquals(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return a === b || a.memberId === b.memberId && sameMetadata(a, b) && sameAssignmentState(a, b);
}
