/**
 * The run loop's offsets: per partition, the next offset handlers resolved (what may be
 * committed) and the last one committed; what is resolved and not committed is what a commit
 * sends (KafkaJS's uncommittedOffsets).
 */
import type { TopicPartition } from '../assignors/types.js';
import { byTopic, tpKey } from './consumer-batch.js';
import type { OffsetsByTopicPartition } from './consumer-types.js';

export interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
}

export class ResolvedOffsets {
  private readonly resolved = new Map<string, PartitionOffset>();
  private readonly committed = new Map<string, bigint>();

  /** Handlers got up to `offset` (exclusive); never moves back. */
  resolve(topic: string, partition: number, offset: bigint): void {
    const k = tpKey(topic, partition);
    const seen = this.resolved.get(k);
    if (!seen || offset > seen.offset) this.resolved.set(k, { topic, partition, offset });
  }

  /** A seek: the partition's next offset is `offset`, forwards or back. */
  set(topic: string, partition: number, offset: bigint): void {
    this.resolved.set(tpKey(topic, partition), { topic, partition, offset });
  }

  resolvedOffset(topic: string, partition: number): bigint | undefined {
    return this.resolved.get(tpKey(topic, partition))?.offset;
  }

  /** Resolved and not committed (of `only`, when given). */
  pending(only?: readonly TopicPartition[]): PartitionOffset[] {
    const wanted = only ? new Set(only.map((tp) => tpKey(tp.topic, tp.partition))) : null;
    return [...this.resolved].filter(([k, r]) => (wanted === null || wanted.has(k)) && this.committed.get(k) !== r.offset).map(([, r]) => r);
  }

  uncommitted(): OffsetsByTopicPartition {
    return byTopic(this.pending().map((r) => ({ topic: r.topic, partition: r.partition, offset: String(r.offset) })), true);
  }

  committedNow(offsets: readonly PartitionOffset[]): void {
    for (const o of offsets) this.committed.set(tpKey(o.topic, o.partition), o.offset);
  }

  /** Partitions given up: their offsets are no longer this member's to commit. */
  forget(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) {
      const k = tpKey(tp.topic, tp.partition);
      this.resolved.delete(k);
      this.committed.delete(k);
    }
  }

  clear(): void {
    this.resolved.clear();
    this.committed.clear();
  }
}
