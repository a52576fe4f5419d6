/**
 * A consumer group (KIP-848), as Kafka's ConsumerGroup: the group epoch, the members, the
 * target assignment and its epoch, the subscription metadata, the resolved regular
 * expressions, and the indexes derived from them (subscribed topics, server assignors,
 * static members, who owns each partition at which epoch).
 *
 * Its hard state changes only by applying records (replay.ts), on the live path as at
 * start-up, as Kafka's group changes only by replaying the records it writes. It is timeline
 * state (../timeline-map.ts: maps and values), so every change records its undo in the
 * running operation's journal: per key, so a heartbeat costs what it changes, not the size
 * of the group.
 */
import type { Journal } from '../journal.js';
import { TimelineMap, TimelineValue } from '../timeline-map.js';
import { EMPTY_ASSIGNMENT, type Assignment } from './assignment.js';
import { hasRegex, MemberState, type ConsumerGroupMember } from './member.js';

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable';

export const CONSUMER_GROUP_STATES: readonly ConsumerGroupState[] = ['Empty', 'Assigning', 'Reconciling', 'Stable'];

export interface SubscriptionCount {
  readonly byName: number;
  readonly byRegex: number;
}

export interface ResolvedRegex {
  /** Matching topic names, in the order Kafka's HashSet of them iterates. */
  readonly topics: readonly string[];
  readonly version: number;
  readonly timestampMs: number;
}

/** A topic as the subscription metadata records it (ConsumerGroupPartitionMetadataValue). */
export interface SubscribedTopicMetadata {
  readonly topicId: string;
  readonly name: string;
  readonly numPartitions: number;
}

export type SubscriptionType = 'homogeneous' | 'heterogeneous';

function count(map: TimelineMap<string, number>, key: string, delta: number): void {
  const n = (map.get(key) ?? 0) + delta;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}

function countEpoch(map: TimelineMap<number, number>, epoch: number, delta: number): void {
  const n = (map.get(epoch) ?? 0) + delta;
  if (n <= 0) map.delete(epoch);
  else map.set(epoch, n);
}

/**
 * Kafka 4.4 starts a group at epoch 1 with an empty target assignment at epoch 1
 * (KAFKA-20268): epoch 0 is a joining member's, and a member of a new group must be able to
 * reconcile towards an epoch below the group's while the first real assignment is pending.
 * The first assignment a group computes is therefore at epoch 2.
 */
export const INITIAL_GROUP_EPOCH = 1;

export class ConsumerGroup {
  private readonly epoch: TimelineValue<number>;
  private readonly targetEpoch: TimelineValue<number>;
  /** When the target assignment was last computed (0: never, or unknown); KIP-1263. */
  private readonly targetTimestampMs: TimelineValue<number>;
  private readonly memberMap: TimelineMap<string, ConsumerGroupMember>;
  private readonly staticMemberMap: TimelineMap<string, string>;
  private readonly topicNames: TimelineMap<string, SubscriptionCount>;
  private readonly assignors: TimelineMap<string, number>;
  private readonly regexCounts: TimelineMap<string, number>;
  private readonly resolved: TimelineMap<string, ResolvedRegex>;
  private readonly target: TimelineMap<string, Assignment>;
  /** topic id → partition → member id: who the target assignment gives each partition. */
  private readonly inverted: TimelineMap<string, TimelineMap<number, string>>;
  /** topic id → partition → epoch of the member that holds it (assigned or pending revocation). */
  private readonly partitionEpochs: TimelineMap<string, TimelineMap<number, number>>;
  /**
   * Member epoch → how many members are STABLE at it: whether every member is reconciled to
   * the target (the state) is then one lookup, not a walk over the members on every write.
   */
  private readonly stableAtEpoch: TimelineMap<number, number>;
  private readonly subscription: TimelineValue<ReadonlyMap<string, SubscribedTopicMetadata>>;
  /**
   * When the subscription metadata must be computed again (Kafka's metadataRefreshDeadline):
   * not part of the undo, as in Kafka; the epoch makes a reverted group epoch count as expired.
   */
  metadataRefreshDeadline = { deadlineMs: 0, epoch: 0 };

  constructor(
    readonly groupId: string,
    private readonly journal: Journal,
  ) {
    this.epoch = new TimelineValue(journal, INITIAL_GROUP_EPOCH);
    this.targetEpoch = new TimelineValue(journal, INITIAL_GROUP_EPOCH);
    this.targetTimestampMs = new TimelineValue(journal, 0);
    this.subscription = new TimelineValue<ReadonlyMap<string, SubscribedTopicMetadata>>(journal, new Map());
    // Members are listed (describe) and walked (assignors) in join order: removals keep it.
    this.memberMap = new TimelineMap(journal, true);
    this.staticMemberMap = new TimelineMap(journal);
    this.topicNames = new TimelineMap(journal);
    this.assignors = new TimelineMap(journal);
    this.regexCounts = new TimelineMap(journal);
    this.resolved = new TimelineMap(journal);
    this.target = new TimelineMap(journal);
    this.inverted = new TimelineMap(journal);
    this.partitionEpochs = new TimelineMap(journal);
    this.stableAtEpoch = new TimelineMap(journal);
  }

  get groupEpoch(): number {
    return this.epoch.get();
  }

  setGroupEpoch(epoch: number): void {
    this.epoch.set(epoch);
  }

  /** The target assignment epoch; -1 once its record was deleted. */
  get assignmentEpoch(): number {
    return this.targetEpoch.get();
  }

  /** When the target assignment was computed (Kafka's assignmentTimestamp), 0 when unknown. */
  get assignmentTimestampMs(): number {
    return this.targetTimestampMs.get();
  }

  setAssignmentMetadata(epoch: number, timestampMs: number): void {
    this.targetEpoch.set(epoch);
    this.targetTimestampMs.set(timestampMs);
  }

  get subscriptionMetadata(): ReadonlyMap<string, SubscribedTopicMetadata> {
    return this.subscription.get();
  }

  setSubscriptionMetadata(metadata: ReadonlyMap<string, SubscribedTopicMetadata>): void {
    this.subscription.set(metadata);
  }

  /** Kafka's state, derived from the epochs and the members (it is never stored). */
  get state(): ConsumerGroupState {
    if (this.memberMap.size === 0) return 'Empty';
    const targetEpoch = this.targetEpoch.get();
    if (this.epoch.get() > targetEpoch) return 'Assigning';
    // A member is reconciled when STABLE at the target epoch (isReconciledTo).
    return (this.stableAtEpoch.get(targetEpoch) ?? 0) === this.memberMap.size ? 'Stable' : 'Reconciling';
  }

  get members(): ReadonlyMap<string, ConsumerGroupMember> {
    return this.memberMap;
  }

  get numMembers(): number {
    return this.memberMap.size;
  }

  member(memberId: string): ConsumerGroupMember | undefined {
    return this.memberMap.get(memberId);
  }

  staticMemberId(instanceId: string | null): string | undefined {
    return instanceId === null ? undefined : this.staticMemberMap.get(instanceId);
  }

  staticMember(instanceId: string | null): ConsumerGroupMember | undefined {
    const id = this.staticMemberId(instanceId);
    return id === undefined ? undefined : this.memberMap.get(id);
  }

  get staticMembers(): ReadonlyMap<string, string> {
    return this.staticMemberMap;
  }

  /** Topic name → how many members subscribe to it by name and through a regex. */
  get subscribedTopicNames(): ReadonlyMap<string, SubscriptionCount> {
    return this.topicNames;
  }

  isSubscribedToTopic(topic: string): boolean {
    return this.topicNames.has(topic);
  }

  /** Server assignor name → how many members ask for it. */
  get serverAssignors(): ReadonlyMap<string, number> {
    return this.assignors;
  }

  get subscribedRegularExpressions(): ReadonlyMap<string, number> {
    return this.regexCounts;
  }

  numSubscribedMembers(regex: string): number {
    return this.regexCounts.get(regex) ?? 0;
  }

  get resolvedRegularExpressions(): ReadonlyMap<string, ResolvedRegex> {
    return this.resolved;
  }

  /** Kafka takes the first resolution's: they are refreshed together. */
  lastRegexRefreshTimeMs(): number {
    const first = this.resolved.values().next();
    return first.done ? Number.MIN_SAFE_INTEGER : first.value.timestampMs;
  }

  lastRegexVersion(): number {
    const first = this.resolved.values().next();
    return first.done ? 0 : first.value.version;
  }

  get targetAssignment(): ReadonlyMap<string, Assignment> {
    return this.target;
  }

  targetAssignmentOf(memberId: string): Assignment {
    return this.target.get(memberId) ?? EMPTY_ASSIGNMENT;
  }

  /** A static member's target is its instance's, whatever its member id. */
  targetAssignmentFor(memberId: string, instanceId: string | null): Assignment {
    if (instanceId === null) return this.targetAssignmentOf(memberId);
    const previous = this.staticMemberId(instanceId);
    return previous === undefined ? EMPTY_ASSIGNMENT : this.targetAssignmentOf(previous);
  }

  isPartitionAssigned(topicId: string, partition: number): boolean {
    return this.inverted.get(topicId)?.has(partition) ?? false;
  }

  /** The epoch of the member holding the partition, or -1 when it is free. */
  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.get(topicId)?.get(partition) ?? -1;
  }

  // Record application (replay.ts): every change to the hard state goes through these.

  updateMember(member: ConsumerGroupMember): void {
    const old = this.memberMap.get(member.memberId);
    this.memberMap.set(member.memberId, member);
    this.index(old, member);
  }

  removeMember(memberId: string): void {
    const old = this.memberMap.get(memberId);
    if (old === undefined) return;
    this.memberMap.delete(memberId);
    this.index(old, undefined);
  }

  updateTargetAssignment(memberId: string, assignment: Assignment): void {
    this.invert(memberId, this.targetAssignmentOf(memberId), assignment);
    this.target.set(memberId, assignment);
  }

  removeTargetAssignment(memberId: string): void {
    this.invert(memberId, this.targetAssignmentOf(memberId), EMPTY_ASSIGNMENT);
    this.target.delete(memberId);
  }

  updateResolvedRegex(regex: string, resolved: ResolvedRegex | null): void {
    const old = this.resolved.get(regex);
    for (const t of old?.topics ?? []) this.countTopic(t, 0, -1);
    if (resolved === null) this.resolved.delete(regex);
    else this.resolved.set(regex, resolved);
    for (const t of resolved?.topics ?? []) this.countTopic(t, 0, +1);
  }

  /** Requests a new computation of the subscription metadata at the next heartbeat. */
  requestMetadataRefresh(): void {
    this.metadataRefreshDeadline = { deadlineMs: 0, epoch: 0 };
  }

  hasMetadataExpired(nowMs: number): boolean {
    return nowMs >= this.metadataRefreshDeadline.deadlineMs || this.epoch.get() < this.metadataRefreshDeadline.epoch;
  }

  /** Updates the derived indexes for a member replaced (or added, or removed). */
  private index(old: ConsumerGroupMember | undefined, next: ConsumerGroupMember | undefined): void {
    for (const t of old?.subscribedTopicNames ?? []) this.countTopic(t, -1, 0);
    for (const t of next?.subscribedTopicNames ?? []) this.countTopic(t, +1, 0);
    if (old?.serverAssignorName) count(this.assignors, old.serverAssignorName, -1);
    if (next?.serverAssignorName) count(this.assignors, next.serverAssignorName, +1);
    if (old !== undefined && hasRegex(old.subscribedTopicRegex)) count(this.regexCounts, old.subscribedTopicRegex, -1);
    if (next !== undefined && hasRegex(next.subscribedTopicRegex)) count(this.regexCounts, next.subscribedTopicRegex, +1);
    if (old !== undefined && old.state === MemberState.STABLE) countEpoch(this.stableAtEpoch, old.memberEpoch, -1);
    if (next !== undefined && next.state === MemberState.STABLE) countEpoch(this.stableAtEpoch, next.memberEpoch, +1);
    if (old !== undefined) {
      this.epochs(old.assignedPartitions, null);
      this.epochs(old.partitionsPendingRevocation, null);
      if (old.instanceId !== null && this.staticMemberMap.get(old.instanceId) === old.memberId && next?.instanceId !== old.instanceId) {
        this.staticMemberMap.delete(old.instanceId);
      }
    }
    if (next !== undefined) {
      this.epochs(next.assignedPartitions, next.memberEpoch);
      this.epochs(next.partitionsPendingRevocation, next.memberEpoch);
      if (next.instanceId !== null) this.staticMemberMap.set(next.instanceId, next.memberId);
    }
  }

  private countTopic(topic: string, byName: number, byRegex: number): void {
    const c = this.topicNames.get(topic) ?? { byName: 0, byRegex: 0 };
    const next = { byName: c.byName + byName, byRegex: c.byRegex + byRegex };
    if (next.byName <= 0 && next.byRegex <= 0) this.topicNames.delete(topic);
    else this.topicNames.set(topic, next);
  }

  /** Marks the partitions held at `epoch`, or free (null). */
  private epochs(assignment: Assignment, epoch: number | null): void {
    for (const [topicId, partitions] of assignment) {
      let byPartition = this.partitionEpochs.get(topicId);
      if (byPartition === undefined) {
        if (epoch === null) continue;
        byPartition = new TimelineMap(this.journal);
        this.partitionEpochs.set(topicId, byPartition);
      }
      for (const p of partitions) {
        if (epoch === null) byPartition.delete(p);
        else byPartition.set(p, epoch);
      }
      if (byPartition.size === 0) this.partitionEpochs.delete(topicId);
    }
  }

  /**
   * Kafka's inverted target assignment: a partition leaves a member's entry only while that
   * member still holds it there (when it moved, the new owner may have been written first).
   */
  private invert(memberId: string, old: Assignment, next: Assignment): void {
    const topics = new Set([...old.keys(), ...next.keys()]);
    for (const topicId of topics) {
      const before = new Set(old.get(topicId) ?? []);
      const after = new Set(next.get(topicId) ?? []);
      let owners = this.inverted.get(topicId);
      if (owners === undefined) {
        owners = new TimelineMap(this.journal);
        this.inverted.set(topicId, owners);
      }
      for (const p of before) if (!after.has(p) && owners.get(p) === memberId) owners.delete(p);
      for (const p of after) if (!before.has(p)) owners.set(p, memberId);
      if (owners.size === 0) this.inverted.delete(topicId);
    }
  }
}
