/**
 * Kafka 4.4's ShareCoordinatorOffsetsManager, for one `__share_group_state` partition: the
 * log offset of each share-partition's latest ShareSnapshot, and from them the offset before
 * which every record is redundant (the lowest of those offsets). A share-partition's state
 * is its last snapshot plus the updates after it, so no live state needs a record before
 * that offset: the share coordinator's prune job deletes the records before it.
 *
 * Kafka keeps these in timeline structures updated at replay, before the records are
 * written; Brook's shard tells this manager only offsets that are durable (the runtime
 * reports them once their append settled), so a failed append never moves the prune point
 * and nothing here needs reverting.
 */
export class ShareCoordinatorOffsetsManager {
  /** The offset of each live share-partition's latest snapshot, by coordinator key. */
  private readonly offsets = new Map<string, bigint>();
  /** Kafka's lastRedundantOffset: Long.MAX_VALUE until a snapshot was seen. */
  private lastRedundant: bigint | null = null;

  /**
   * Kafka's updateState: a snapshot of `key` (a tombstone when `isDelete`) is at `offset`.
   * As Kafka, a tombstone counts once (the offset cannot pass it now) and then drops out:
   * a deleted share-partition pins nothing afterwards.
   */
  updateState(key: string, offset: bigint, isDelete: boolean): void {
    if (this.lastRedundant === null || offset < this.lastRedundant) this.lastRedundant = offset;
    this.offsets.set(key, offset);
    const redundant = this.findRedundantOffset();
    if (redundant !== null) this.lastRedundant = redundant;
    if (isDelete) this.offsets.delete(key);
  }

  /** Kafka's lastRedundantOffset: none until it is above 0 (nothing to delete before offset 0). */
  lastRedundantOffset(): bigint | undefined {
    return this.lastRedundant !== null && this.lastRedundant > 0n ? this.lastRedundant : undefined;
  }

  /** Share-partitions tracked (tests, logs). */
  get size(): number {
    return this.offsets.size;
  }

  /**
   * The lowest snapshot offset over the live share-partitions. Offsets only grow, so no
   * value is below the last answer: meeting it ends the search early (as Kafka).
   */
  private findRedundantOffset(): bigint | null {
    let min: bigint | null = null;
    for (const offset of this.offsets.values()) {
      if (min === null || offset < min) min = offset;
      if (min === this.lastRedundant) return min;
    }
    return min;
  }
}
