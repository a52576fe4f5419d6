/**
 * Everything the coordinator knows: groups by id, committed offsets by group, topic and
 * partition, and the table of pending timers. The operation modules (join, sync, offsets,
 * ...) are functions over this state, as the parts of Kafka's `GroupMetadataManager` and
 * `OffsetMetadataManager` are methods over theirs.
 *
 * All of it is timeline state (timeline-map.ts): maps, sets and values that record how to
 * undo their own changes in the journal (journal.ts), so that an operation whose records do
 * not become durable can be undone.
 */
import { ConsumerGroup } from './consumer/group.js';
import { MetadataImage } from './consumer/metadata.js';
import { ClassicGroup } from './classic/group.js';
import { ShareGroup } from './share/group.js';
import { StreamsGroup } from './streams/group.js';
import { Journal } from './journal.js';
import { TimelineMap } from './timeline-map.js';
import { Operation, TimerTable } from './operation.js';
import type { OffsetAndMetadata } from './records.js';
import type { GroupCoordinatorConfig } from './types.js';

type PartitionOffsets = TimelineMap<number, OffsetAndMetadata>;
type TopicOffsets = TimelineMap<string, PartitionOffsets>;

/**
 * group → topic → partition → offset. Topics and partitions keep insertion order (the order
 * OffsetFetch lists them); the undo of a removal puts it back.
 */
export class OffsetStore {
  private readonly byGroup: TimelineMap<string, TopicOffsets>;

  constructor(private readonly journal: Journal) {
    this.byGroup = new TimelineMap(journal);
  }

  get(groupId: string, topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.byGroup.get(groupId)?.get(topic)?.get(partition);
  }

  put(groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): void {
    let topics = this.byGroup.get(groupId);
    if (topics === undefined) this.byGroup.set(groupId, (topics = new TimelineMap(this.journal, true)));
    let partitions = topics.get(topic);
    if (partitions === undefined) topics.set(topic, (partitions = new TimelineMap(this.journal, true)));
    // The commit path's only cost: the key's previous value, or its removal, as the undo.
    partitions.set(partition, offset);
  }

  remove(groupId: string, topic: string, partition: number): void {
    const topics = this.byGroup.get(groupId);
    const partitions = topics?.get(topic);
    if (topics === undefined || partitions === undefined || !partitions.delete(partition)) return;
    if (partitions.size === 0) topics.delete(topic);
    if (topics.size === 0) this.byGroup.delete(groupId);
  }

  /** The group's offsets, topic by topic; undefined when it has none. */
  ofGroup(groupId: string): ReadonlyMap<string, ReadonlyMap<number, OffsetAndMetadata>> | undefined {
    return this.byGroup.get(groupId);
  }

  /** Every offset, group by group, in the order OffsetFetch lists them. */
  forEach(visit: (groupId: string, topic: string, partition: number, committedOffset: bigint) => void): void {
    for (const [groupId, topics] of this.byGroup) {
      for (const [topic, partitions] of topics) {
        for (const [partition, o] of partitions) visit(groupId, topic, partition, o.committedOffset);
      }
    }
  }

  /** Every (topic, partition) the group has an offset for. */
  partitionsOf(groupId: string): { topic: string; partition: number }[] {
    const out: { topic: string; partition: number }[] = [];
    for (const [topic, partitions] of this.byGroup.get(groupId) ?? []) {
      for (const partition of partitions.keys()) out.push({ topic, partition });
    }
    return out;
  }
}

type PendingOffsets = TimelineMap<string, TimelineMap<string, TimelineMap<number, OffsetAndMetadata>>>;

/** Offsets of open transactions: producer id → group → topic → partition (txn-offsets.ts). */
export class PendingTxnOffsets {
  private readonly byProducer: TimelineMap<bigint, PendingOffsets>;

  constructor(private readonly journal: Journal) {
    this.byProducer = new TimelineMap(journal);
  }

  put(producerId: bigint, groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): void {
    let groups = this.byProducer.get(producerId);
    if (groups === undefined) this.byProducer.set(producerId, (groups = new TimelineMap(this.journal)));
    let topics = groups.get(groupId);
    if (topics === undefined) groups.set(groupId, (topics = new TimelineMap(this.journal)));
    let partitions = topics.get(topic);
    if (partitions === undefined) topics.set(topic, (partitions = new TimelineMap(this.journal)));
    partitions.set(partition, offset);
  }

  /** Removes and returns the producer's pending offsets. */
  take(producerId: bigint): ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<number, OffsetAndMetadata>>> | undefined {
    const pending = this.byProducer.get(producerId);
    if (pending !== undefined) this.byProducer.delete(producerId);
    return pending;
  }

  /** Kafka's hasPendingTransactionalOffsets. */
  has(groupId: string, topic: string, partition: number): boolean {
    for (const groups of this.byProducer.values()) if (groups.get(groupId)?.get(topic)?.has(partition) === true) return true;
    return false;
  }
}

export class CoordinatorState {
  readonly journal = new Journal();
  /** Classic groups, in creation order (ListGroups lists them so; a removal's undo keeps it). */
  readonly groups = new TimelineMap<string, ClassicGroup>(this.journal, true);
  /** KIP-848 consumer groups. A group id is in at most one of `groups`, `consumerGroups` and `shareGroups`. */
  readonly consumerGroups = new TimelineMap<string, ConsumerGroup>(this.journal, true);
  /** KIP-932 share groups, in creation order. */
  readonly shareGroups = new TimelineMap<string, ShareGroup>(this.journal, true);
  /** KIP-1071 streams groups, in creation order. */
  readonly streamsGroups = new TimelineMap<string, StreamsGroup>(this.journal, true);
  readonly offsets = new OffsetStore(this.journal);
  readonly pendingTxnOffsets = new PendingTxnOffsets(this.journal);
  readonly timers = new TimerTable(this.journal);
  /** The topics, as the broker last reported them (onMetadataChange); not part of the undo. */
  readonly metadata = new MetadataImage();

  constructor(readonly config: GroupCoordinatorConfig) {}

  operation(nowMs: number): Operation {
    return new Operation(nowMs, this.timers);
  }

  /**
   * Runs `body`; when it throws, what it changed in the state and added to the operation is
   * undone before the error goes on (a request that fails its checks after starting to
   * change things, e.g. after converting a group, leaves nothing behind).
   */
  attempt<T>(op: Operation, body: () => T): T {
    const sp = this.journal.savepoint();
    const mark = op.mark();
    try {
      return body();
    } catch (err) {
      this.journal.rollbackTo(sp);
      op.truncate(mark);
      throw err;
    }
  }

  /** Kafka's getOrMaybeCreateClassicGroup with createIfNotExists: a new group is Empty. */
  getOrCreateGroup(groupId: string, nowMs: number | null): ClassicGroup {
    let group = this.groups.get(groupId);
    if (group === undefined) {
      group = new ClassicGroup(groupId, 'Empty', nowMs, this.journal);
      this.groups.set(groupId, group);
    }
    return group;
  }

  /** Puts a group read from a GroupMetadata record in place of any group of that id. */
  putGroup(group: ClassicGroup): void {
    this.groups.set(group.groupId, group);
  }

  /**
   * The consumer group of that id, created (Empty, epoch 0) when missing: by the replay of
   * its first record, as Kafka's getOrMaybeCreatePersistedConsumerGroup. An Empty classic
   * group of that id (a simple group holding offsets) gives way, as in Kafka; any other
   * classic group means the log is inconsistent.
   */
  getOrCreateConsumerGroup(groupId: string, nowMs: number | null): ConsumerGroup {
    let group = this.consumerGroups.get(groupId);
    if (group !== undefined) return group;
    const classic = this.groups.get(groupId);
    if (classic !== undefined) {
      if (!classic.is('Empty')) throw new Error(`group ${groupId} is a classic group in state ${classic.state}, not a consumer group`);
      this.removeGroup(groupId, nowMs ?? 0);
    }
    group = new ConsumerGroup(groupId, this.journal);
    this.consumerGroups.set(groupId, group);
    return group;
  }

  /** Drops a consumer group (its ConsumerGroupMetadata tombstone). Offsets stay. */
  removeConsumerGroup(groupId: string): void {
    this.consumerGroups.delete(groupId);
  }

  /**
   * The share group of that id, created (Empty, epoch 1) when missing: by the replay of its
   * first record, as Kafka's getOrMaybeCreatePersistedShareGroup. An Empty classic group of
   * that id (a simple group holding offsets) gives way, as for consumer groups.
   */
  getOrCreateShareGroup(groupId: string, nowMs: number | null): ShareGroup {
    let group = this.shareGroups.get(groupId);
    if (group !== undefined) return group;
    const classic = this.groups.get(groupId);
    if (classic !== undefined) {
      if (!classic.is('Empty')) throw new Error(`group ${groupId} is a classic group in state ${classic.state}, not a share group`);
      this.removeGroup(groupId, nowMs ?? 0);
    }
    if (this.consumerGroups.has(groupId)) throw new Error(`group ${groupId} is a consumer group, not a share group`);
    group = new ShareGroup(groupId, this.journal);
    this.shareGroups.set(groupId, group);
    return group;
  }

  /**
   * The streams group of that id, created (Empty, epoch 1) when missing: by the replay of its
   * first record, as Kafka's getOrMaybeCreatePersistedStreamsGroup. An Empty classic group of
   * that id gives way, as for consumer groups.
   */
  getOrCreateStreamsGroup(groupId: string, nowMs: number | null): StreamsGroup {
    let group = this.streamsGroups.get(groupId);
    if (group !== undefined) return group;
    const classic = this.groups.get(groupId);
    if (classic !== undefined) {
      if (!classic.is('Empty')) throw new Error(`group ${groupId} is a classic group in state ${classic.state}, not a streams group`);
      this.removeGroup(groupId, nowMs ?? 0);
    }
    if (this.consumerGroups.has(groupId) || this.shareGroups.has(groupId)) throw new Error(`group ${groupId} is not a streams group`);
    group = new StreamsGroup(groupId, this.journal);
    this.streamsGroups.set(groupId, group);
    return group;
  }

  /** Drops a streams group (its StreamsGroupMetadata tombstone). */
  removeStreamsGroup(groupId: string): void {
    this.streamsGroups.delete(groupId);
  }

  /** Drops a share group (its ShareGroupMetadata tombstone). */
  removeShareGroup(groupId: string): void {
    this.shareGroups.delete(groupId);
  }

  /** Drops a group (its GroupMetadata tombstone was written or replayed). Offsets stay. */
  removeGroup(groupId: string, nowMs: number): void {
    const group = this.groups.get(groupId);
    if (group === undefined) return;
    // Anyone still holding the object (a timer about to fire) sees a Dead group.
    group.transitionTo('Dead', nowMs);
    this.groups.delete(groupId);
  }
}
