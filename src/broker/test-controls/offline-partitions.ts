/**
 * Partitions a test took offline: as a partition whose only replica's broker is gone, it has
 * no leader. Metadata (and DescribeTopicPartitions) describe it with leader -1,
 * LEADER_NOT_AVAILABLE and the replica offline; Produce, Fetch and ListOffsets answer it
 * NOT_LEADER_OR_FOLLOWER, as a Kafka broker that does not lead the partition does. Its log is
 * kept as it was: back online, the partition serves the same records.
 */
import type { Storage } from '../../storage/types.js';

export class OfflinePartitions {
  private readonly offline = new Map<string, Set<number>>();

  constructor(private readonly storage: Storage) {}

  /** Whether any partition is offline: the request path's only check when none is. */
  get any(): boolean {
    return this.offline.size > 0;
  }

  has(topic: string, partition: number): boolean {
    return this.offline.size > 0 && this.offline.get(topic)?.has(partition) === true;
  }

  setOffline(topic: string, partition: number): void {
    this.check(topic, partition);
    let partitions = this.offline.get(topic);
    if (partitions === undefined) this.offline.set(topic, (partitions = new Set()));
    partitions.add(partition);
  }

  setOnline(topic: string, partition: number): void {
    this.check(topic, partition);
    const partitions = this.offline.get(topic);
    partitions?.delete(partition);
    if (partitions?.size === 0) this.offline.delete(topic);
  }

  private check(topic: string, partition: number): void {
    const meta = this.storage.topic(topic);
    if (meta === undefined) throw new Error(`no topic ${JSON.stringify(topic)}`);
    if (!(Number.isInteger(partition) && partition >= 0 && partition < meta.partitions)) throw new RangeError(`topic ${JSON.stringify(topic)} has no partition ${partition} (it has ${meta.partitions})`);
  }
}
