/**
 * One log segment's in-memory state (Kafka's LogSegment): its indexes, next offset, largest
 * timestamp, and what the roll decision needs; plus the two ways to load one at open:
 * trusting its stored indexes (clean segments) or re-reading every batch with its CRC
 * (recovery), truncating at the first bad or partial batch.
 */
import {
  BASE_OFFSET_OFFSET,
  CorruptRecordError,
  HEADER_SIZE,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  MAX_TIMESTAMP_OFFSET,
  MIN_BATCH_LENGTH,
  validateBatch,
} from '../protocol/records/index.js';
import { OffsetIndex, TimeIndex } from './indexes.js';
import { TxnIndex } from './txn-index.js';
import type { LogBytes, SegmentFiles } from './segment-store.js';

const INT32_MAX = 0x7fffffff;
const EMPTY = Buffer.alloc(0);
/** Header bytes up to and including maxTimestamp: all a walk over headers needs. */
export const HEADER_PREFIX = MAX_TIMESTAMP_OFFSET + 8;

/**
 * Reads batch headers sequentially through a scratch buffer: one read serves every header
 * it holds, so walking an index interval costs one or two reads and no allocation.
 */
export class BatchWalker {
  view: Buffer = EMPTY;
  private start = 0;

  constructor(private readonly log: LogBytes, private readonly scratch: Buffer) {}

  /** Index in `view` of the `need` bytes at log `position`, or -1 when the log ends first. */
  ensure(position: number, need: number): number {
    const rel = position - this.start;
    if (rel >= 0 && rel + need <= this.view.length) return rel;
    if (position + need > this.log.size) return -1;
    const target = need > this.scratch.length ? Buffer.allocUnsafe(need) : this.scratch;
    this.view = this.log.peek(position, Math.max(need, target.length), target);
    this.start = position;
    return this.view.length >= need ? 0 : -1;
  }
}

export interface RollCheck {
  readonly batchSize: number;
  readonly lastOffset: bigint;
  readonly maxTimestamp: bigint;
  readonly nowMs: number;
  readonly segmentBytes: number;
  readonly segmentMs: number;
  readonly segmentIndexBytes: number;
}

export class Segment {
  readonly baseOffset: bigint;
  offsetIndex = new OffsetIndex();
  timeIndex = new TimeIndex();
  /** Transactions aborted by a marker in this segment (Kafka's `.txnindex`). */
  txnIndex = new TxnIndex();
  /** The offset after this segment's last batch (the base offset while empty). */
  nextOffset: bigint;
  /** The largest batch max timestamp so far (-1: none), and the last offset of its batch. */
  maxTimestamp = -1n;
  offsetOfMaxTimestamp = -1n;
  /** Kafka's rollingBasedTimestamp: the first batch's max timestamp. */
  firstBatchTimestamp: bigint | null = null;
  lastModifiedMs: number;
  private bytesSinceLastIndexEntry = 0;

  constructor(readonly files: SegmentFiles, readonly createdMs: number) {
    this.baseOffset = files.baseOffset;
    this.nextOffset = files.baseOffset;
    this.lastModifiedMs = files.lastModifiedMs >= 0 ? files.lastModifiedMs : createdMs;
  }

  get size(): number {
    return this.files.log.size;
  }

  get log(): LogBytes {
    return this.files.log;
  }

  relative(offset: bigint): number {
    return Number(offset - this.baseOffset);
  }

  /** Bookkeeping for a batch now stored at `position` (Kafka's LogSegment.append). */
  onAppended(position: number, size: number, lastOffset: bigint, maxTimestamp: bigint, indexIntervalBytes: number): void {
    if (position === 0) this.firstBatchTimestamp = maxTimestamp;
    if (maxTimestamp > this.maxTimestamp) {
      this.maxTimestamp = maxTimestamp;
      this.offsetOfMaxTimestamp = lastOffset;
    }
    if (this.bytesSinceLastIndexEntry > indexIntervalBytes) {
      this.offsetIndex.append(this.relative(lastOffset), position);
      this.timeIndex.maybeAppend(this.maxTimestamp, this.relative(this.offsetOfMaxTimestamp));
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += size;
    this.nextOffset = lastOffset + 1n;
  }

  /**
   * Kafka's LogSegment.shouldRoll: the batch would overflow segment.bytes; segment.ms has
   * passed (measured from the first batch's timestamp to the new batch's when both exist,
   * else since the segment was created); an index is full; or an offset would not fit the
   * indexes' int32 relative offsets.
   */
  shouldRoll(c: RollCheck): boolean {
    const size = this.size;
    if (size > c.segmentBytes - c.batchSize) return true;
    if (size > 0) {
      const first = this.firstBatchTimestamp ?? -1n;
      const waited = first >= 0n ? Number(c.maxTimestamp - first) : c.nowMs - this.createdMs;
      if (waited > c.segmentMs) return true;
    }
    if (this.offsetIndex.entries >= Math.floor(c.segmentIndexBytes / 8)) return true;
    if (this.timeIndex.entries >= Math.floor(c.segmentIndexBytes / 12)) return true;
    const rel = c.lastOffset - this.baseOffset;
    return rel < 0n || rel > BigInt(INT32_MAX);
  }

  /** The time retention uses: the largest timestamp, or the last write when there is none (Kafka's largestTimestamp). */
  largestTimestamp(): number {
    return this.maxTimestamp > 0n ? Number(this.maxTimestamp) : this.lastModifiedMs;
  }

  /** Before persisting: the last time entry must carry the segment's largest timestamp, as Kafka's onBecomeInactiveSegment. */
  finalizeTimeIndex(): void {
    if (this.maxTimestamp >= 0n) this.timeIndex.maybeAppend(this.maxTimestamp, this.relative(this.offsetOfMaxTimestamp));
  }

  /**
   * Loads a segment that needs no recovery from its stored indexes, checking them and
   * walking the headers after the last index entry to the end. False when anything is
   * inconsistent: the caller then recovers the segment instead.
   */
  loadTrusted(scratch: Buffer): boolean {
    const offsetIndex = OffsetIndex.load(this.files.loadOffsetIndex(), this.size);
    const storedTime = this.files.loadTimeIndex();
    if (!offsetIndex || !storedTime) return false;
    const from = offsetIndex.entries > 0 ? offsetIndex.positionAt(offsetIndex.entries - 1) : 0;
    const walker = new BatchWalker(this.log, scratch);
    let position = from;
    let lastOffset = this.baseOffset - 1n;
    let maxTimestamp = -1n;
    let offsetOfMax = -1n;
    while (position < this.size) {
      const at = walker.ensure(position, HEADER_PREFIX);
      if (at < 0) return false;
      const v = walker.view;
      const length = v.readInt32BE(at + LENGTH_OFFSET);
      if (length < MIN_BATCH_LENGTH || v.readInt8(at + MAGIC_OFFSET) !== MAGIC_V2 || position + LOG_OVERHEAD + length > this.size) return false;
      const base = v.readBigInt64BE(at + BASE_OFFSET_OFFSET);
      if (base <= lastOffset) return false;
      lastOffset = base + BigInt(v.readInt32BE(at + LAST_OFFSET_DELTA_OFFSET));
      const ts = v.readBigInt64BE(at + MAX_TIMESTAMP_OFFSET);
      if (ts > maxTimestamp) {
        maxTimestamp = ts;
        offsetOfMax = lastOffset;
      }
      position += LOG_OVERHEAD + length;
    }
    if (lastOffset - this.baseOffset > BigInt(INT32_MAX)) return false;
    const timeIndex = TimeIndex.load(storedTime, Math.max(0, this.relative(lastOffset)));
    if (!timeIndex) return false;
    // No file: no transaction was aborted in the segment (the file is written before the segment counts as sealed).
    const storedTxn = this.files.loadTxnIndex();
    const txnIndex = storedTxn ? TxnIndex.load(storedTxn) : new TxnIndex();
    if (!txnIndex) return false;
    this.txnIndex = txnIndex;
    this.offsetIndex = offsetIndex;
    this.timeIndex = timeIndex;
    this.nextOffset = lastOffset + 1n;
    const last = timeIndex.last();
    this.maxTimestamp = last ? last.timestamp : -1n;
    this.offsetOfMaxTimestamp = last ? this.baseOffset + BigInt(last.relativeOffset) : -1n;
    if (maxTimestamp > this.maxTimestamp) {
      this.maxTimestamp = maxTimestamp;
      this.offsetOfMaxTimestamp = offsetOfMax;
    }
    this.bytesSinceLastIndexEntry = this.size - from;
    if (this.size > 0) {
      const at = walker.ensure(0, HEADER_PREFIX);
      this.firstBatchTimestamp = at < 0 ? null : walker.view.readBigInt64BE(at + MAX_TIMESTAMP_OFFSET);
    }
    return true;
  }

  /**
   * Kafka's LogSegment.recover: re-reads every batch, checking structure, CRC and offset
   * order, rebuilds the indexes, and truncates the log at the first bad or partial batch.
   * Returns the number of bytes cut off.
   */
  recover(scratch: Buffer, indexIntervalBytes: number): number {
    this.offsetIndex = new OffsetIndex();
    this.timeIndex = new TimeIndex();
    // Rebuilt by the producer-state replay (log-loader.ts), which reads the markers again.
    this.txnIndex = new TxnIndex();
    this.nextOffset = this.baseOffset;
    this.maxTimestamp = -1n;
    this.offsetOfMaxTimestamp = -1n;
    this.firstBatchTimestamp = null;
    this.bytesSinceLastIndexEntry = 0;
    const walker = new BatchWalker(this.log, scratch);
    const size = this.size;
    let position = 0;
    while (position < size) {
      let at = walker.ensure(position, HEADER_SIZE);
      if (at < 0) break;
      const length = walker.view.readInt32BE(at + LENGTH_OFFSET);
      if (length < MIN_BATCH_LENGTH || walker.view.readInt8(at + MAGIC_OFFSET) !== MAGIC_V2) break;
      const batchSize = LOG_OVERHEAD + length;
      at = walker.ensure(position, batchSize);
      if (at < 0) break;
      let header;
      try {
        header = validateBatch(walker.view, at);
      } catch (err) {
        if (err instanceof CorruptRecordError) break;
        throw err;
      }
      if (header.baseOffset < this.nextOffset || header.lastOffsetDelta < 0) break;
      if (header.lastOffset - this.baseOffset > BigInt(INT32_MAX)) break;
      this.onAppended(position, batchSize, header.lastOffset, header.maxTimestamp, indexIntervalBytes);
      position += batchSize;
    }
    if (position < size) this.log.truncate(position);
    return size - position;
  }
}
