/**
 * Which records in hand the run loop may still hand to handlers. poll() moves the fetch
 * position past every record it returns; a partition revoked, lost or sought since the poll
 * began has records in hand that belong to an old position, so they are dropped (and a batch
 * cut short puts the position back to the first record not handled).
 *
 * Seeks are numbered: a poll that began before a seek may return records of the old position
 * or of the new one, so its records of that partition are dropped and the seek is made again;
 * records of a poll that began after it are the seek's.
 */
import type { Consumer as BrookConsumer } from '../client/consumer/index.js';
import type { TopicPartition } from '../assignors/types.js';
import { tpKey } from './consumer-batch.js';

export class Positions {
  /** Partitions whose position changed (revoke, loss) since the records in hand were polled. */
  private readonly stale = new Set<string>();
  private readonly seeks = new Map<string, { seq: number; apply: () => void }>();
  private seekSeq = 0;
  private pollSeq = 0;
  /** Seeks to partitions not assigned yet: made when they are. */
  private readonly pendingSeeks = new Map<string, { topic: string; partition: number; offset: bigint }>();

  constructor(private readonly consumer: BrookConsumer) {}

  /** A poll begins: what was stale or sought before it no longer concerns its records. */
  beginPoll(): void {
    this.stale.clear();
    this.pollSeq = this.seekSeq;
  }

  /** The partitions went elsewhere (revoked or lost). */
  forget(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.stale.add(tpKey(tp.topic, tp.partition));
  }

  /**
   * The partitions are assigned: an eager rebalance revokes everything, then assigns, so a
   * partition given back starts again from its committed offset and this poll's records of it
   * are to be handled.
   */
  assigned(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.stale.delete(tpKey(tp.topic, tp.partition));
  }

  /** Seeks waiting for these partitions are made now. */
  applyPendingSeeks(partitions: readonly TopicPartition[]): void {
    for (const [k, s] of this.pendingSeeks) {
      if (partitions.some((tp) => tpKey(tp.topic, tp.partition) === k)) {
        this.consumer.seek(s, s.offset);
        this.pendingSeeks.delete(k);
      }
    }
  }

  hasPendingSeek(topic: string, partition: number): boolean {
    return this.pendingSeeks.has(tpKey(topic, partition));
  }

  /** Whether the records in hand of this partition are no longer to be handled. */
  isStale(topic: string, partition: number): boolean {
    const k = tpKey(topic, partition);
    return this.stale.has(k) || this.soughtSincePoll(k, false);
  }

  /**
   * At a batch's start: whether the partition is stale. A seek made since the poll began is
   * made again (the poll may have fetched from the old position) and forgotten; an older one is
   * forgotten.
   */
  settle(topic: string, partition: number): boolean {
    const k = tpKey(topic, partition);
    return this.stale.has(k) || this.soughtSincePoll(k, true);
  }

  private soughtSincePoll(k: string, settle: boolean): boolean {
    const seek = this.seeks.get(k);
    if (!seek) return false;
    const since = seek.seq > this.pollSeq;
    if (settle) {
      this.seeks.delete(k);
      if (since) seek.apply();
    }
    return since;
  }

  isAssigned(topic: string, partition: number): boolean {
    return this.consumer.assignment().some((tp) => tp.topic === topic && tp.partition === partition);
  }

  /**
   * KafkaJS's seek: -2 the partition's start, -1 its end, else the offset. Returns whether the
   * partition is assigned (otherwise a seek to an offset waits for the assignment).
   */
  seek(topic: string, partition: number, target: bigint): boolean {
    const k = tpKey(topic, partition);
    if (!this.isAssigned(topic, partition)) {
      if (target >= 0n) this.pendingSeeks.set(k, { topic, partition, offset: target });
      return false;
    }
    const apply = (): void => {
      if (!this.isAssigned(topic, partition)) return;
      if (target === -2n) this.consumer.seekToBeginning([{ topic, partition }]);
      else if (target === -1n) this.consumer.seekToEnd([{ topic, partition }]);
      else this.consumer.seek({ topic, partition }, target);
    };
    apply();
    this.seeks.set(k, { seq: ++this.seekSeq, apply });
    return true;
  }

  /** Puts the fetch position back to `offset` unless the partition moved meanwhile (seek, revoke). */
  rewind(topic: string, partition: number, offset: bigint): void {
    if (this.isStale(topic, partition) || !this.isAssigned(topic, partition)) return;
    this.consumer.seek({ topic, partition }, offset);
  }
}
