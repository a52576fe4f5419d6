/**
 * The memory engine's byte storage: each segment's log is one growable buffer. Reads return
 * views of it (no copy); stored bytes are never rewritten (the memory engine has nothing to
 * recover, retention drops whole segments and the cleaner writes new ones), so a view stays
 * valid after later appends.
 */
import { RESOLVED } from './flush-scheduler.js';
import type { LogBytes, PartitionState, PartitionStore, SegmentFiles } from './segment-store.js';

const INITIAL_CAPACITY = 64 * 1024;

export class MemoryLog implements LogBytes {
  private buf = Buffer.allocUnsafe(0);
  private length = 0;

  get size(): number {
    return this.length;
  }

  append(data: Buffer): void {
    const needed = this.length + data.length;
    if (needed > this.buf.length) {
      // Old views keep the old buffer alive with the same bytes; only new reads see the new one.
      const bigger = Buffer.allocUnsafe(Math.max(needed, this.buf.length * 2, INITIAL_CAPACITY));
      this.buf.copy(bigger, 0, 0, this.length);
      this.buf = bigger;
    }
    data.copy(this.buf, this.length);
    this.length = needed;
  }

  read(position: number, length: number): Buffer {
    return this.buf.subarray(position, position + length);
  }

  peek(position: number, length: number): Buffer {
    return this.buf.subarray(position, Math.min(this.length, position + length));
  }

  truncate(size: number): void {
    if (size < this.length) this.length = size;
  }
}

class MemorySegmentFiles implements SegmentFiles {
  readonly log = new MemoryLog();

  constructor(readonly baseOffset: bigint, readonly lastModifiedMs = -1) {}

  loadOffsetIndex(): Buffer | null {
    return null;
  }

  loadTimeIndex(): Buffer | null {
    return null;
  }

  loadTxnIndex(): Buffer | null {
    return null;
  }
}

const EMPTY_STATE: PartitionState = { segments: [], cleanShutdown: true, recoveryPoint: 0n, logStartOffset: -1n, snapshots: [] };

/** Nothing persists: every durability promise is already settled, snapshots and checkpoints are dropped. */
export class MemoryPartitionStore implements PartitionStore {
  open(): PartitionState {
    return EMPTY_STATE;
  }

  /** Memory has no fsync to fail. */
  onDurabilityLost(): void {}

  recover(): PartitionState {
    throw new Error('a memory partition never loses durability');
  }

  syncAll(): Promise<void> {
    return RESOLVED;
  }

  createSegment(baseOffset: bigint): SegmentFiles {
    return new MemorySegmentFiles(baseOffset);
  }

  createCleanedSegment(baseOffset: bigint, lastModifiedMs: number): SegmentFiles {
    return new MemorySegmentFiles(baseOffset, lastModifiedMs);
  }

  finishCleanedSegment(): Promise<void> {
    return RESOLVED;
  }

  deleteSegment(): void {}
  sealSegment(): void {}
  replaceSegments(): void {}
  discardCleanedSegment(): void {}

  appended(): Promise<void> {
    return RESOLVED;
  }

  durableNow(): Promise<void> {
    return RESOLVED;
  }

  writeTxnIndex(): void {}
  writeProducerSnapshot(): void {}
  deleteProducerSnapshot(): void {}
  logStartOffsetChanged(): Promise<void> {
    return RESOLVED;
  }

  prepareClose(): void {}
  close(): void {}
  destroy(): void {}
}
