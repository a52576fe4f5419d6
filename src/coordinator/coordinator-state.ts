/**
 * Everything the coordinator knows: groups by id, committed offsets by group, topic and
 * partition, and the table of pending timers. The operation modules (join, sync, offsets,
 * ...) are functions over this state, as the parts of Kafka's `GroupMetadataManager` and
 * `OffsetMetadataManager` are methods over theirs.
 *
 * Every change goes through the journal (journal.ts), so that an operation whose records do
 * not become durable can be undone: the stores here record their own changes, and an
 * operation calls `changing(group)` before it first changes a group.
 */
import { ConsumerGroup } from './consumer/group.js';
import { MetadataImage } from './consumer/metadata.js';
import { ClassicGroup } from './classic/group.js';
import { Journal } from './journal.js';
import { Operation, TimerTable } from './operation.js';
import type { OffsetAndMetadata } from './records.js';
import type { GroupCoordinatorConfig } from './types.js';

/** group → topic → partition → offset, in insertion order (the order OffsetFetch lists them). */
export class OffsetStore {
  private readonly byGroup = new Map<string, Map<string, Map<number, OffsetAndMetadata>>>();

  constructor(private readonly journal: Journal) {}

  get(groupId: string, topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.byGroup.get(groupId)?.get(topic)?.get(partition);
  }

  put(groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): void {
    const previous = this.set(groupId, topic, partition, offset);
    if (!this.journal.recording) return;
    // Per key, the commit path's only cost: a new key is removed again (it came last, so
    // the order OffsetFetch lists in is what it was), a replaced value is put back in place.
    // By path, not by map: undoing a later removal may have put back copies of the maps.
    if (previous === undefined) this.journal.record(() => this.delete(groupId, topic, partition));
    else this.journal.record(() => this.set(groupId, topic, partition, previous));
  }

  remove(groupId: string, topic: string, partition: number): void {
    const topics = this.byGroup.get(groupId);
    if (topics?.get(topic)?.has(partition) !== true) return;
    // Removing then re-adding keys would reorder them: the undo puts back a copy of the
    // group's offsets as they were before the operation's first removal in the group.
    if (this.journal.once(topics)) {
      const copy = new Map([...topics].map(([t, partitions]) => [t, new Map(partitions)]));
      this.journal.record(() => this.byGroup.set(groupId, copy));
    }
    this.delete(groupId, topic, partition);
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

  /** Sets the offset (unrecorded); returns the one it replaces. */
  private set(groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): OffsetAndMetadata | undefined {
    let topics = this.byGroup.get(groupId);
    if (topics === undefined) this.byGroup.set(groupId, (topics = new Map()));
    let partitions = topics.get(topic);
    if (partitions === undefined) topics.set(topic, (partitions = new Map()));
    const previous = partitions.get(partition);
    partitions.set(partition, offset);
    return previous;
  }

  private delete(groupId: string, topic: string, partition: number): void {
    const topics = this.byGroup.get(groupId);
    const partitions = topics?.get(topic);
    if (topics === undefined || partitions === undefined) return;
    partitions.delete(partition);
    if (partitions.size === 0) topics.delete(topic);
    if (topics.size === 0) this.byGroup.delete(groupId);
  }
}

type PendingOffsets = Map<string, Map<string, Map<number, OffsetAndMetadata>>>;

/** Offsets of open transactions: producer id → group → topic → partition (txn-offsets.ts). */
export class PendingTxnOffsets {
  private readonly byProducer = new Map<bigint, PendingOffsets>();

  constructor(private readonly journal: Journal) {}

  put(producerId: bigint, groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): void {
    let groups = this.byProducer.get(producerId);
    if (groups === undefined) {
      const created: PendingOffsets = new Map();
      this.byProducer.set(producerId, (groups = created));
      if (this.journal.recording) this.journal.record(() => this.byProducer.delete(producerId));
    }
    let topics = groups.get(groupId);
    if (topics === undefined) groups.set(groupId, (topics = new Map()));
    let partitions = topics.get(topic);
    if (partitions === undefined) topics.set(topic, (partitions = new Map()));
    const previous = partitions.get(partition);
    partitions.set(partition, offset);
    if (!this.journal.recording) return;
    const target = partitions;
    this.journal.record(() => (previous === undefined ? target.delete(partition) : target.set(partition, previous)));
  }

  /** Removes and returns the producer's pending offsets. */
  take(producerId: bigint): PendingOffsets | undefined {
    const pending = this.byProducer.get(producerId);
    if (pending === undefined) return undefined;
    this.byProducer.delete(producerId);
    if (this.journal.recording) this.journal.record(() => this.byProducer.set(producerId, pending));
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
  readonly groups = new Map<string, ClassicGroup>();
  /** KIP-848 consumer groups. A group id is in at most one of `groups` and `consumerGroups`. */
  readonly consumerGroups = new Map<string, ConsumerGroup>();
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

  /** The running operation is about to change `group` (see journal.ts); returns it. */
  changing(group: ClassicGroup): ClassicGroup {
    this.journal.changing(group);
    return group;
  }

  /** Kafka's getOrMaybeCreateClassicGroup with createIfNotExists: a new group is Empty. */
  getOrCreateGroup(groupId: string, nowMs: number | null): ClassicGroup {
    let group = this.groups.get(groupId);
    if (group === undefined) {
      group = new ClassicGroup(groupId, 'Empty', nowMs);
      this.groups.set(groupId, group);
      if (this.journal.recording) {
        this.journal.created(group);
        this.journal.record(() => this.groups.delete(groupId));
      }
    }
    return group;
  }

  /** Puts a group read from a GroupMetadata record in place of any group of that id. */
  putGroup(group: ClassicGroup): void {
    const previous = this.groups.get(group.groupId);
    this.groups.set(group.groupId, group);
    if (!this.journal.recording) return;
    this.journal.created(group);
    this.journal.record(() => (previous === undefined ? this.groups.delete(group.groupId) : this.groups.set(group.groupId, previous)));
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
    if (this.journal.recording) this.journal.record(() => this.consumerGroups.delete(groupId));
    return group;
  }

  /** Drops a consumer group (its ConsumerGroupMetadata tombstone). Offsets stay. */
  removeConsumerGroup(groupId: string): void {
    if (!this.consumerGroups.has(groupId)) return;
    if (this.journal.once(this.consumerGroups)) {
      const entries = [...this.consumerGroups];
      this.journal.record(() => {
        this.consumerGroups.clear();
        for (const [id, g] of entries) this.consumerGroups.set(id, g);
      });
    }
    this.consumerGroups.delete(groupId);
  }

  /** Drops a group (its GroupMetadata tombstone was written or replayed). Offsets stay. */
  removeGroup(groupId: string, nowMs: number): void {
    const group = this.groups.get(groupId);
    if (group === undefined) return;
    this.changing(group);
    // Re-adding a group would put it last: the undo restores the map's order (once per
    // operation; removals are rare: DeleteGroups, expiration).
    if (this.journal.once(this.groups)) {
      const entries = [...this.groups];
      this.journal.record(() => {
        this.groups.clear();
        for (const [id, g] of entries) this.groups.set(id, g);
      });
    }
    // Anyone still holding the object (a timer about to fire) sees a Dead group.
    group.transitionTo('Dead', nowMs);
    this.groups.delete(groupId);
  }
}
