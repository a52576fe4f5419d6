/**
 * Choosing a partition, as Java's producer does by default (BuiltInPartitioner):
 * - an explicit `partition` on the record wins;
 * - a custom partitioner function, when configured, decides every other record;
 * - a record with a key (even an empty one) goes to murmur2(key) & 0x7fffffff % partitions,
 *   the same partition Java picks for the same key bytes;
 * - a record without a key goes to a "sticky" partition (KIP-480/KIP-794): the producer
 *   keeps adding to one partition until `batchSize` bytes went there, then switches to
 *   another partition that has a leader, chosen at random.
 *
 * Difference from Java: KIP-794's adaptive weighting (preferring partitions whose
 * leaders have shorter queues) is not implemented; the next sticky partition is uniform
 * among partitions with a leader. Which unkeyed partition a record lands on is not part
 * of Kafka's contract.
 */
import { partitionForKey } from './murmur2.js';
import { writeString } from './record-writer.js';

export interface PartitionerInput {
  readonly topic: string;
  /** The key's bytes (null when the record has no key). */
  readonly key: Buffer | null;
  readonly value: Buffer | string | null;
  readonly partitionCount: number;
}

/** A custom partitioner: returns a partition in [0, partitionCount). */
export type PartitionerFunction = (input: PartitionerInput) => number;

interface StickyState {
  partition: number;
  bytes: number;
}

/** Scratch space so string keys hash without a Buffer per record. */
let scratch = Buffer.allocUnsafe(256);

export function partitionForKeyInput(key: Buffer | string, partitionCount: number): number {
  if (typeof key !== 'string') return partitionForKey(key, partitionCount);
  // Short ASCII keys (the usual ids) are copied in JS: Buffer's native calls cost more than the bytes.
  if (key.length <= 24) {
    let i = 0;
    for (; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c >= 0x80) break;
      scratch[i] = c;
    }
    if (i === key.length) return partitionForKey(scratch, partitionCount, 0, i);
  }
  const length = Buffer.byteLength(key, 'utf8');
  if (length > scratch.length) scratch = Buffer.allocUnsafe(Math.max(length, scratch.length * 2));
  writeString(scratch, 0, key, length);
  return partitionForKey(scratch, partitionCount, 0, length);
}

export class StickyPartitioner {
  private readonly sticky = new Map<string, StickyState>();

  constructor(private readonly batchSize: number, private readonly random: () => number = Math.random) {}

  /** The sticky partition while it takes more records, else -1 (then call `partition`). */
  current(topic: string, partitionCount: number): number {
    const state = this.sticky.get(topic);
    return state && state.bytes < this.batchSize && state.partition < partitionCount ? state.partition : -1;
  }

  /** The partition for an unkeyed record; `available` lists partitions with a leader. */
  partition(topic: string, partitionCount: number, available: (p: number) => boolean): number {
    const state = this.sticky.get(topic);
    if (state && state.bytes < this.batchSize && state.partition < partitionCount) return state.partition;
    const next = this.choose(partitionCount, available, state?.partition ?? -1);
    if (state) {
      state.partition = next;
      state.bytes = 0;
    } else {
      this.sticky.set(topic, { partition: next, bytes: 0 });
    }
    return next;
  }

  /** Counts bytes appended to the sticky partition; past `batchSize` the next record switches. */
  onAppend(topic: string, partition: number, bytes: number): void {
    const state = this.sticky.get(topic);
    if (state && state.partition === partition) state.bytes += bytes;
  }

  private choose(partitionCount: number, available: (p: number) => boolean, previous: number): number {
    const candidates: number[] = [];
    for (let p = 0; p < partitionCount; p++) if (available(p) && p !== previous) candidates.push(p);
    if (candidates.length === 0) {
      if (previous >= 0 && previous < partitionCount && available(previous)) return previous;
      return Math.floor(this.random() * partitionCount);
    }
    return candidates[Math.floor(this.random() * candidates.length)]!;
  }
}
