/**
 * A share group (KIP-932), as Kafka's ShareGroup: the group epoch and its metadata hash, the
 * members, the target assignment and its epoch, the topics the members subscribe to, and the
 * share-partition state metadata (ShareGroupStatePartitionMetadata: which partitions' share
 * state is initializing, initialized or being deleted; Kafka keeps it in
 * GroupMetadataManager by group id, Brook in the group, which every such record creates).
 *
 * Its hard state changes only by applying records (replay.ts), on the live path as at
 * start-up; it is timeline state, so a failed append undoes it (../timeline-map.ts).
 */
import type { Journal } from '../journal.js';
import { TimelineMap, TimelineValue } from '../timeline-map.js';
import { EMPTY_ASSIGNMENT, type Assignment } from '../consumer/assignment.js';
import { INITIAL_GROUP_EPOCH, type SubscriptionType } from '../consumer/group.js';
import type { ShareGroupMember } from './member.js';

/** Kafka's ShareGroupState names (DescribeGroups, ListGroups, ShareGroupDescribe). */
export type ShareGroupState = 'Empty' | 'Stable';

/** Kafka's InitMapValue: a topic's partitions, with when they were asked for (initializing) or recorded. */
export interface InitMapValue {
  readonly name: string;
  readonly partitions: readonly number[];
  readonly timestampMs: number;
}

/** Kafka's ShareGroupStatePartitionMetadataInfo, by topic id. */
export interface SharePartitionMetadata {
  readonly initializingTopics: ReadonlyMap<string, InitMapValue>;
  readonly initializedTopics: ReadonlyMap<string, InitMapValue>;
  readonly deletingTopics: ReadonlySet<string>;
}

export const NO_PARTITION_METADATA: SharePartitionMetadata = { initializingTopics: new Map(), initializedTopics: new Map(), deletingTopics: new Set() };

export class ShareGroup {
  private readonly epoch: TimelineValue<number>;
  private readonly hash: TimelineValue<bigint>;
  private readonly targetEpoch: TimelineValue<number>;
  private readonly targetTimestampMs: TimelineValue<number>;
  private readonly memberMap: TimelineMap<string, ShareGroupMember>;
  /** Topic name → how many members subscribe to it. */
  private readonly topicNames: TimelineMap<string, number>;
  private readonly target: TimelineMap<string, Assignment>;
  /** topic id → partition → member ids the target gives it to (a share partition may go to several). */
  private readonly inverted: TimelineMap<string, TimelineMap<number, number>>;
  private readonly partitionMetadata: TimelineValue<SharePartitionMetadata | null>;
  /**
   * When the metadata hash must be computed again (Kafka's metadataRefreshDeadline; share
   * groups refresh only on a change or when the topics changed): not part of the undo.
   */
  metadataRefreshDeadline = { deadlineMs: 0, epoch: 0 };

  constructor(
    readonly groupId: string,
    private readonly journal: Journal,
  ) {
    // As consumer groups in Kafka 4.4 (ModernGroup): epoch 1, target assignment at epoch 1.
    this.epoch = new TimelineValue(journal, INITIAL_GROUP_EPOCH);
    this.hash = new TimelineValue(journal, 0n);
    this.targetEpoch = new TimelineValue(journal, INITIAL_GROUP_EPOCH);
    this.targetTimestampMs = new TimelineValue(journal, 0);
    this.memberMap = new TimelineMap(journal, true);
    this.topicNames = new TimelineMap(journal);
    this.target = new TimelineMap(journal);
    this.inverted = new TimelineMap(journal);
    this.partitionMetadata = new TimelineValue<SharePartitionMetadata | null>(journal, null);
  }

  get groupEpoch(): number {
    return this.epoch.get();
  }

  get metadataHash(): bigint {
    return this.hash.get();
  }

  setGroupEpoch(epoch: number, metadataHash: bigint): void {
    this.epoch.set(epoch);
    this.hash.set(metadataHash);
  }

  get assignmentEpoch(): number {
    return this.targetEpoch.get();
  }

  get assignmentTimestampMs(): number {
    return this.targetTimestampMs.get();
  }

  setAssignmentMetadata(epoch: number, timestampMs: number): void {
    this.targetEpoch.set(epoch);
    this.targetTimestampMs.set(timestampMs);
  }

  /** Kafka's maybeUpdateGroupState: Empty without members, else Stable. */
  get state(): ShareGroupState {
    return this.memberMap.size === 0 ? 'Empty' : 'Stable';
  }

  get members(): ReadonlyMap<string, ShareGroupMember> {
    return this.memberMap;
  }

  get numMembers(): number {
    return this.memberMap.size;
  }

  member(memberId: string): ShareGroupMember | undefined {
    return this.memberMap.get(memberId);
  }

  get subscribedTopicNames(): ReadonlyMap<string, number> {
    return this.topicNames;
  }

  /** Kafka's ModernGroup.subscriptionType: homogeneous when every member subscribes to every topic. */
  subscriptionType(counts: ReadonlyMap<string, number> = this.topicNames, numMembers = this.memberMap.size): SubscriptionType {
    for (const n of counts.values()) if (n !== numMembers) return 'heterogeneous';
    return 'homogeneous';
  }

  get targetAssignment(): ReadonlyMap<string, Assignment> {
    return this.target;
  }

  targetAssignmentOf(memberId: string): Assignment {
    return this.target.get(memberId) ?? EMPTY_ASSIGNMENT;
  }

  isPartitionAssigned(topicId: string, partition: number): boolean {
    return this.inverted.get(topicId)?.has(partition) ?? false;
  }

  get statePartitionMetadata(): SharePartitionMetadata | null {
    return this.partitionMetadata.get();
  }

  setStatePartitionMetadata(metadata: SharePartitionMetadata | null): void {
    this.partitionMetadata.set(metadata);
  }

  /** Kafka's isPartitionAssignable: only partitions whose share state is initialized. */
  isPartitionInitialized(topicId: string, partition: number): boolean {
    return this.partitionMetadata.get()?.initializedTopics.get(topicId)?.partitions.includes(partition) ?? false;
  }

  requestMetadataRefresh(): void {
    this.metadataRefreshDeadline = { deadlineMs: 0, epoch: 0 };
  }

  hasMetadataExpired(nowMs: number): boolean {
    return nowMs >= this.metadataRefreshDeadline.deadlineMs || this.epoch.get() < this.metadataRefreshDeadline.epoch;
  }

  // Record application (replay.ts).

  updateMember(member: ShareGroupMember): void {
    const old = this.memberMap.get(member.memberId);
    this.memberMap.set(member.memberId, member);
    for (const t of old?.subscribedTopicNames ?? []) this.count(t, -1);
    for (const t of member.subscribedTopicNames) this.count(t, +1);
  }

  removeMember(memberId: string): void {
    const old = this.memberMap.get(memberId);
    if (old === undefined) return;
    this.memberMap.delete(memberId);
    for (const t of old.subscribedTopicNames) this.count(t, -1);
  }

  updateTargetAssignment(memberId: string, assignment: Assignment): void {
    this.invert(this.targetAssignmentOf(memberId), -1);
    this.target.set(memberId, assignment);
    this.invert(assignment, +1);
  }

  removeTargetAssignment(memberId: string): void {
    this.invert(this.targetAssignmentOf(memberId), -1);
    this.target.delete(memberId);
  }

  private count(topic: string, delta: number): void {
    const n = (this.topicNames.get(topic) ?? 0) + delta;
    if (n <= 0) this.topicNames.delete(topic);
    else this.topicNames.set(topic, n);
  }

  /** Counts, per partition, the members whose target has it. */
  private invert(a: Assignment, delta: number): void {
    for (const [topicId, partitions] of a) {
      let owners = this.inverted.get(topicId);
      if (owners === undefined) {
        if (delta < 0) continue;
        owners = new TimelineMap(this.journal);
        this.inverted.set(topicId, owners);
      }
      for (const p of partitions) {
        const n = (owners.get(p) ?? 0) + delta;
        if (n <= 0) owners.delete(p);
        else owners.set(p, n);
      }
      if (owners.size === 0) this.inverted.delete(topicId);
    }
  }
}
