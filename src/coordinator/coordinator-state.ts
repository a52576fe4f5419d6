/**
 * Everything the coordinator knows: groups by id, committed offsets by group, topic and
 * partition, and the table of pending timers. The operation modules (join, sync, offsets,
 * ...) are functions over this state, as the parts of Kafka's `GroupMetadataManager` and
 * `OffsetMetadataManager` are methods over theirs.
 */
import { ClassicGroup } from './group.js';
import { Operation, TimerTable } from './operation.js';
import type { OffsetAndMetadata } from './records.js';
import type { GroupCoordinatorConfig } from './types.js';

/** group → topic → partition → offset, in insertion order (the order OffsetFetch lists them). */
export class OffsetStore {
  private readonly byGroup = new Map<string, Map<string, Map<number, OffsetAndMetadata>>>();

  get(groupId: string, topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.byGroup.get(groupId)?.get(topic)?.get(partition);
  }

  put(groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): void {
    let topics = this.byGroup.get(groupId);
    if (topics === undefined) this.byGroup.set(groupId, (topics = new Map()));
    let partitions = topics.get(topic);
    if (partitions === undefined) topics.set(topic, (partitions = new Map()));
    partitions.set(partition, offset);
  }

  remove(groupId: string, topic: string, partition: number): void {
    const topics = this.byGroup.get(groupId);
    const partitions = topics?.get(topic);
    if (topics === undefined || partitions === undefined) return;
    partitions.delete(partition);
    if (partitions.size === 0) topics.delete(topic);
    if (topics.size === 0) this.byGroup.delete(groupId);
  }

  /** The group's offsets, topic by topic; undefined when it has none. */
  ofGroup(groupId: string): ReadonlyMap<string, ReadonlyMap<number, OffsetAndMetadata>> | undefined {
    return this.byGroup.get(groupId);
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

export class CoordinatorState {
  readonly groups = new Map<string, ClassicGroup>();
  readonly offsets = new OffsetStore();
  readonly timers = new TimerTable();

  constructor(readonly config: GroupCoordinatorConfig) {}

  operation(nowMs: number): Operation {
    return new Operation(nowMs, this.timers);
  }

  /** Kafka's getOrMaybeCreateClassicGroup with createIfNotExists: a new group is Empty. */
  getOrCreateGroup(groupId: string, nowMs: number | null): ClassicGroup {
    let group = this.groups.get(groupId);
    if (group === undefined) {
      group = new ClassicGroup(groupId, 'Empty', nowMs);
      this.groups.set(groupId, group);
    }
    return group;
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
