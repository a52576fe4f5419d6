/**
 * The one implementation of PartitionLog: Kafka's UnifiedLog/LocalLog logic over a
 * PartitionStore (files or memory). Appends are validated (header, CRC, record timestamps),
 * get their offsets and true max timestamp by rewriting the header in place, and are
 * otherwise written as received; reads find whole batches through the sparse offset index
 * and return the stored bytes.
 */
import { ErrorCode } from '../protocol/errors.js';
import {
  CorruptRecordError,
  PARTITION_LEADER_EPOCH_OFFSET,
  BASE_OFFSET_OFFSET,
  setLogAppendTime,
  setMaxTimestamp,
  TimestampType,
  type RecordBatchHeader,
} from '../protocol/records/index.js';
import type { Logger } from '../util/log.js';
import { diskErrorOf, type IoFaults } from './io-faults.js';
import { validateAppend } from './append-validation.js';
import { ioError, StorageError } from './errors.js';
import type { CleanerView } from './log-cleaner.js';
import { loadLog } from './log-loader.js';
import { lastSequence, type ProducerStateManager } from './producer-state.js';
import { Segment } from './segment.js';
import { findTimestamp, readBatches } from './segment-reads.js';
import type { PartitionStore } from './segment-store.js';
import type { LogConfig } from './topic-configs.js';
import { readTxnMarker, type AbortedTxn, type TxnMarker } from './txn-index.js';
import type {
  ActiveProducer, AppendOptions, AppendResult, DeleteRecordsResult, OffsetAndTimestamp, PartitionLog, ReadOptions, ReadResult, SegmentInfo,
} from './types.js';
import { RESOLVED } from './flush-scheduler.js';

/** Brook is the only replica and never changes leader: every batch is stamped with epoch 0. */
export const LEADER_EPOCH = 0;
const NO_RECORDS: Buffer[] = [];
/** Recovery re-reads whole batches; the storage's own scratch is sized for header walks. */
const RECOVERY_SCRATCH_BYTES = 1024 * 1024;

/** The transaction marker of a control batch being appended; INVALID_RECORD when it holds something else. */
function markerOf(batch: Buffer): TxnMarker | null {
  try {
    return readTxnMarker(batch);
  } catch (err) {
    if (err instanceof CorruptRecordError) throw new StorageError(ErrorCode.INVALID_RECORD, `invalid transaction marker: ${err.message}`);
    throw err;
  }
}

export interface PartitionLogDeps {
  readonly store: PartitionStore;
  readonly config: LogConfig;
  /** Scratch shared by every log of the storage for header walks (all reads are synchronous). */
  readonly scratch: Buffer;
  readonly producerIdExpirationMs: number;
  readonly log?: Logger;
  /** Where going offline and recovering are logged and counted. */
  readonly faults: IoFaults;
  /** Wall clock for recovery (producer expiry); default Date.now. */
  readonly clock?: () => number;
}

/** Recovery retries after a failure of its own: 1 s, doubling, at most this long apart. */
const MAX_RECOVERY_BACKOFF_MS = 30_000;

export class PartitionLogImpl implements PartitionLog {
  private config: LogConfig;
  /** 'offline': an fsync failed; appends and reads are refused until recover() reloaded the log from disk. */
  private state: 'open' | 'offline' | 'closed' | 'deleted' = 'open';
  private offlineBecause: string | null = null;
  private recoveryTimer: NodeJS.Timeout | null = null;

  private constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly deps: PartitionLogDeps,
    private segmentList: Segment[],
    private lso: bigint,
    private producers: ProducerStateManager,
    private snapshotOffsets: bigint[],
  ) {
    this.config = deps.config;
    deps.store.onDurabilityLost((path, err, what) => this.takeOffline(path, err, what));
  }

  /** Opens (and if needed recovers) the partition's log; `recoveryScratch` is a large reusable buffer. */
  static open(topic: string, partition: number, deps: PartitionLogDeps, nowMs: number, recoveryScratch: Buffer): PartitionLogImpl {
    const loaded = loadLog(deps.store, {
      name: `${topic}-${partition}`, config: deps.config, nowMs, producerIdExpirationMs: deps.producerIdExpirationMs,
      scratch: recoveryScratch, log: deps.log,
    });
    void deps.store.logStartOffsetChanged(loaded.logStartOffset);
    return new PartitionLogImpl(topic, partition, deps, loaded.segments, loaded.logStartOffset, loaded.producers, loaded.snapshotOffsets);
  }

  get logStartOffset(): bigint {
    return this.lso;
  }

  get logEndOffset(): bigint {
    return this.active.nextOffset;
  }

  get highWatermark(): bigint {
    return this.active.nextOffset;
  }

  get lastStableOffset(): bigint {
    const hw = this.active.nextOffset;
    const first = this.producers.firstUnstableOffset;
    if (first === null || first >= hw) return hw;
    // DeleteRecords may have moved the log start past an open transaction's first batch.
    return first < this.lso ? this.lso : first;
  }

  get sizeInBytes(): number {
    let total = 0;
    for (const s of this.segmentList) total += s.size;
    return total;
  }

  private get active(): Segment {
    return this.segmentList[this.segmentList.length - 1]!;
  }

  updateConfig(config: LogConfig): void {
    this.config = config;
  }

  segments(): SegmentInfo[] {
    return this.segmentList.map((s) => ({ baseOffset: s.baseOffset, sizeInBytes: s.size }));
  }

  append(records: Buffer, options: AppendOptions): AppendResult {
    this.ensureOpen();
    const origin = options.origin ?? 'client';
    const nowMs = options.nowMs;
    const config = this.config;
    const validated = validateAppend(records, config, origin, nowMs);
    const header = validated.header;
    const logAppendTime = config.timestampType === TimestampType.LogAppendTime;
    const hasProducer = header.producerId >= 0n;
    const lastSeq = hasProducer ? lastSequence(header.baseSequence, header.lastOffsetDelta) : -1;
    // A transaction marker (from the transaction coordinator) completes the producer's open transaction.
    const marker = hasProducer && header.isControl ? markerOf(records.subarray(0, header.sizeInBytes)) : null;
    if (marker) {
      this.producers.checkMarker(header.producerId, header.producerEpoch, marker.coordinatorEpoch, origin, options.transactionVersion ?? 0);
    } else if (hasProducer) {
      const dup = this.producers.check(
        header.producerId, header.producerEpoch, header.baseSequence, lastSeq, header.isControl, origin, header.isTransactional);
      if (dup) {
        // As Kafka (UnifiedLog.append), a duplicate answers with the original batch's timestamp
        // as its append time, whatever the topic's timestamp type.
        return {
          baseOffset: dup.firstOffset, lastOffset: dup.lastOffset, logAppendTimeMs: dup.timestamp,
          logStartOffset: this.lso, duplicate: true, durable: this.deps.store.durableNow(this.active.files),
        };
      }
    }
    const baseOffset = this.active.nextOffset;
    const lastOffset = baseOffset + BigInt(header.lastOffsetDelta);
    const maxTimestamp = logAppendTime ? BigInt(nowMs) : validated.maxTimestamp;
    const size = header.sizeInBytes;
    if (this.active.shouldRoll({
      batchSize: size, lastOffset, maxTimestamp, nowMs,
      segmentBytes: config.segmentBytes, segmentMs: config.segmentMs, segmentIndexBytes: config.segmentIndexBytes,
    })) {
      this.roll(nowMs);
    }
    const batch = size === records.length ? records : records.subarray(0, size);
    this.stamp(batch, header, baseOffset, logAppendTime, maxTimestamp);
    const segment = this.active;
    const position = segment.size;
    segment.log.append(batch);
    segment.lastModifiedMs = nowMs;
    segment.onAppended(position, size, lastOffset, maxTimestamp, config.indexIntervalBytes);
    if (marker) {
      const completed = this.producers.completeTxn(header.producerId, header.producerEpoch, marker.isAbort, marker.coordinatorEpoch, baseOffset, maxTimestamp);
      // Kafka's LogSegment.updateTxnIndex: only aborted transactions are indexed.
      if (completed?.isAborted) segment.txnIndex.append(completed);
    } else if (hasProducer) {
      const meta = header.isControl ? null : { firstSeq: header.baseSequence, lastSeq, firstOffset: baseOffset, lastOffset, timestamp: maxTimestamp };
      this.producers.update(header.producerId, header.producerEpoch, meta, maxTimestamp, header.isTransactional);
    }
    return {
      baseOffset, lastOffset, logAppendTimeMs: logAppendTime ? maxTimestamp : -1n, logStartOffset: this.lso,
      duplicate: false, durable: this.deps.store.appended(segment.files),
    };
  }

  /**
   * The broker's edits before storing (LogValidator's in-place path). Offset and leader epoch
   * sit outside the CRC and are written directly: the batch was validated, so the helpers'
   * re-parsing of the header would be wasted. Timestamp changes go through the helpers,
   * which recompute the CRC.
   */
  private stamp(batch: Buffer, header: RecordBatchHeader, baseOffset: bigint, logAppendTime: boolean, maxTimestamp: bigint): void {
    batch.writeBigInt64BE(baseOffset, BASE_OFFSET_OFFSET);
    batch.writeInt32BE(LEADER_EPOCH, PARTITION_LEADER_EPOCH_OFFSET);
    if (logAppendTime) setLogAppendTime(batch, 0, maxTimestamp);
    // On a CreateTime topic Kafka (DefaultRecordBatch.setMaxTimestamp) rewrites the batch as
    // CreateTime whatever the producer set, with the records' max timestamp: the header's
    // may be wrong. A batch already right is left byte for byte.
    else if (header.timestampType === TimestampType.LogAppendTime || header.maxTimestamp !== maxTimestamp) {
      setMaxTimestamp(batch, 0, TimestampType.CreateTime, maxTimestamp);
    }
  }

  /** Kafka's roll: a new active segment at the log end; the old one is sealed (indexes persisted, fsynced). */
  private roll(nowMs: number): void {
    const old = this.active;
    const base = old.nextOffset;
    let created: Segment | null = null;
    try {
      old.finalizeTimeIndex();
      created = new Segment(this.deps.store.createSegment(base), nowMs);
      this.writeSnapshot(base);
      this.deps.store.writeTxnIndex(old.files, old.txnIndex.bytes());
      this.deps.store.sealSegment(old.files, old.offsetIndex.bytes(), old.timeIndex.bytes(), base);
      this.segmentList.push(created);
    } catch (err) {
      // All or nothing (a full disk fails this half way): the old segment stays active.
      if (created) {
        try {
          this.deps.store.deleteSegment(created.files);
        } catch {
          // An empty segment left behind is recovered (or removed) at the next start.
        }
        if (this.snapshotOffsets.at(-1) === base) {
          this.snapshotOffsets.pop();
          try {
            this.deps.store.deleteProducerSnapshot(base);
          } catch {
            // A snapshot at the log end is harmless.
          }
        }
      }
      throw err instanceof StorageError ? err : ioError(`rolling ${this.topic}-${this.partition} at offset ${base} failed`, err);
    }
  }

  private writeSnapshot(offset: bigint): void {
    this.deps.store.writeProducerSnapshot(offset, this.producers.snapshot());
    if (this.snapshotOffsets.at(-1) !== offset) this.snapshotOffsets.push(offset);
  }

  read(fetchOffset: bigint, maxBytes: number, options: ReadOptions): ReadResult {
    this.ensureOpen();
    const leo = this.logEndOffset;
    if (fetchOffset < this.lso || fetchOffset > leo) {
      throw new StorageError(ErrorCode.OFFSET_OUT_OF_RANGE,
        `offset ${fetchOffset} of ${this.topic}-${this.partition} is outside [${this.lso}, ${leo}]`);
    }
    const lastStable = this.lastStableOffset;
    const readCommitted = options.readCommitted === true;
    // Kafka's read_committed reads stop at the last stable offset, a batch boundary.
    const maxOffset = readCommitted ? lastStable : leo;
    let records = NO_RECORDS;
    let aborted: AbortedTxn[] | null = readCommitted ? [] : null;
    if (fetchOffset < maxOffset) {
      const target = Number(fetchOffset);
      for (let i = this.segmentIndexFor(fetchOffset); i < this.segmentList.length; i++) {
        const segment = this.segmentList[i]!;
        const found = readBatches(segment, this.deps.scratch, target, maxBytes, options, maxOffset);
        if (found) {
          records = found.bytes.length > 0 ? [found.bytes] : NO_RECORDS;
          if (readCommitted && found.bytes.length > 0) aborted = this.collectAbortedTxns(fetchOffset, i, found.start, found.bytes.length);
          break;
        }
      }
    }
    const bytes = records.length > 0 ? records[0]!.length : 0;
    return { records, bytes, highWatermark: leo, logStartOffset: this.lso, lastStableOffset: lastStable, abortedTransactions: aborted };
  }

  /**
   * Kafka's LocalLog.addAbortedTransactions: the aborted transactions that may cover the
   * `size` bytes read at `position` of segment `index`, up to the offset the offset index
   * gives for the end of the read (else the next segment's base, else the log end), from
   * that segment's and later segments' indexes until an entry's LSO reaches that bound.
   */
  private collectAbortedTxns(fetchOffset: bigint, index: number, position: number, size: number): AbortedTxn[] {
    const segment = this.segmentList[index]!;
    const rel = segment.offsetIndex.upperBoundOffset(position + size);
    const upperBound = rel >= 0 ? segment.baseOffset + BigInt(rel) : (this.segmentList[index + 1]?.baseOffset ?? this.logEndOffset);
    const out: AbortedTxn[] = [];
    for (let i = index; i < this.segmentList.length; i++) {
      const found = this.segmentList[i]!.txnIndex.collect(fetchOffset, upperBound);
      for (const txn of found.aborted) out.push(txn);
      if (found.complete) break;
    }
    return out;
  }

  /** The segment holding `offset` (the last one whose base offset is <= it). */
  private segmentIndexFor(offset: bigint): number {
    let lo = 0;
    let hi = this.segmentList.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.segmentList[mid]!.baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  offsetForTimestamp(timestampMs: bigint): OffsetAndTimestamp | null {
    this.ensureOpen();
    for (const segment of this.segmentList) {
      if (segment.maxTimestamp < timestampMs) continue;
      const rel = segment.timeIndex.offsetBefore(timestampMs);
      const from = rel < 0 ? 0 : segment.offsetIndex.lookup(rel);
      const found = this.findInSegment(segment, from, (ts) => ts >= timestampMs);
      if (found) return found;
    }
    return null;
  }

  maxTimestamp(): OffsetAndTimestamp | null {
    this.ensureOpen();
    let best: Segment | null = null;
    for (const s of this.segmentList) if (s.maxTimestamp >= 0n && (!best || s.maxTimestamp > best.maxTimestamp)) best = s;
    if (!best) return null;
    const max = best.maxTimestamp;
    const from = best.offsetIndex.lookup(best.relative(best.offsetOfMaxTimestamp));
    return this.findInSegment(best, from, (ts) => ts === max);
  }

  private findInSegment(segment: Segment, position: number, matches: (ts: bigint) => boolean): OffsetAndTimestamp | null {
    return findTimestamp(segment, this.deps.scratch, position, this.lso, matches, (position, err) => {
      this.deps.log?.warn('cannot decode a stored batch', { partition: `${this.topic}-${this.partition}`, position, err });
    });
  }

  deleteRecords(offset: bigint): DeleteRecordsResult {
    this.ensureOpen();
    if (!this.config.deleteRetention) {
      throw new StorageError(ErrorCode.POLICY_VIOLATION, `Records of partition ${this.topic}-${this.partition} can not be deleted due to the configured policy`);
    }
    const target = offset === -1n ? this.highWatermark : offset;
    if (target < 0n) throw new StorageError(ErrorCode.OFFSET_OUT_OF_RANGE, `The offset ${target} for partition ${this.topic}-${this.partition} is not valid`);
    if (target > this.highWatermark) {
      throw new StorageError(ErrorCode.OFFSET_OUT_OF_RANGE,
        `Cannot increment the log start offset to ${target} of partition ${this.topic}-${this.partition} since it is larger than the high watermark ${this.highWatermark}`);
    }
    if (target <= this.lso) return { logStartOffset: this.lso, durable: RESOLVED };
    this.lso = target;
    this.deps.log?.info('incremented the log start offset (DeleteRecords)', { partition: `${this.topic}-${this.partition}`, logStartOffset: String(target) });
    return { logStartOffset: target, durable: this.deps.store.logStartOffsetChanged(target) };
  }

  activeProducers(): ActiveProducer[] {
    this.ensureOpen();
    return this.producers.activeProducers();
  }

  hasOngoingTransaction(producerId: bigint, producerEpoch: number): boolean {
    this.ensureOpen();
    return this.producers.hasOngoingTransaction(producerId, producerEpoch);
  }

  /**
   * Kafka's deleteOldSegments: under every cleanup policy, segments wholly below the log
   * start offset (moved by DeleteRecords); for cleanup.policy=delete then segments whose
   * largest timestamp is older than retention.ms, then oldest segments while the log
   * exceeds retention.bytes. When every segment would go, a new empty one is rolled first,
   * as Kafka does, so the log start offset becomes the log end offset.
   */
  enforceRetention(nowMs: number): void {
    if (this.state !== 'open') return;
    const config = this.config;
    this.deleteOldest(nowMs, (_s, next) => next !== undefined && next.baseOffset <= this.lso);
    if (config.deleteRetention) {
      if (config.retentionMs >= 0) this.deleteOldest(nowMs, (s) => nowMs - s.largestTimestamp() > config.retentionMs);
      if (config.retentionBytes >= 0) {
        let excess = this.sizeInBytes - config.retentionBytes;
        this.deleteOldest(nowMs, (s) => {
          if (excess - s.size < 0) return false;
          excess -= s.size;
          return true;
        });
      }
    }
    this.producers.expire(nowMs, this.deps.producerIdExpirationMs);
  }

  private deleteOldest(nowMs: number, deletable: (s: Segment, next: Segment | undefined) => boolean): void {
    let count = 0;
    while (count < this.segmentList.length) {
      const s = this.segmentList[count]!;
      if (count === this.segmentList.length - 1 && s.size === 0) break;
      if (!deletable(s, this.segmentList[count + 1])) break;
      count++;
    }
    if (count === 0) return;
    if (count === this.segmentList.length) this.roll(nowMs);
    for (const s of this.segmentList.splice(0, count)) this.deps.store.deleteSegment(s.files);
    const start = this.segmentList[0]!.baseOffset;
    if (start > this.lso) this.lso = start;
    void this.deps.store.logStartOffsetChanged(this.lso);
    while (this.snapshotOffsets.length > 0 && this.snapshotOffsets[0]! < this.lso) {
      this.deps.store.deleteProducerSnapshot(this.snapshotOffsets.shift()!);
    }
  }

  /** What the log cleaner (log-cleaner.ts) works from; null once closed or deleted. */
  cleanerView(): CleanerView | null {
    if (this.state !== 'open') return null;
    return {
      segments: [...this.segmentList], config: this.config, store: this.deps.store, logStartOffset: this.lso,
      activeProducers: this.producers.lastDataOffsets(), scratch: this.deps.scratch,
      lastStableOffset: this.lastStableOffset, aborted: this.segmentList.flatMap((s) => s.txnIndex.all()),
    };
  }

  /**
   * The cleaner's swap: `cleaned` takes the place of `old`, consecutive sealed segments,
   * unless the log changed meanwhile (retention, roll of what was active is fine, close).
   */
  replaceSegments(old: readonly Segment[], cleaned: Segment): boolean {
    if (this.state !== 'open' || old.length === 0) return false;
    const at = this.segmentList.indexOf(old[0]!);
    // The active segment is never replaced.
    if (at < 0 || at + old.length >= this.segmentList.length) return false;
    for (let i = 0; i < old.length; i++) if (this.segmentList[at + i] !== old[i]) return false;
    this.deps.store.replaceSegments(old.map((s) => s.files), cleaned.files);
    // Groups never merge a later segment with aborted transactions (log-cleaner.ts): the first one's index is the group's.
    cleaned.txnIndex = old[0]!.txnIndex;
    this.segmentList.splice(at, old.length, cleaned);
    return true;
  }

  /** Clean shutdown, step one: final time index entry, indexes and producer snapshot at the log end. */
  prepareClose(): void {
    if (this.state !== 'open') return;
    const active = this.active;
    active.finalizeTimeIndex();
    this.writeSnapshot(active.nextOffset);
    this.deps.store.writeTxnIndex(active.files, active.txnIndex.bytes());
    this.deps.store.prepareClose(active.files, active.offsetIndex.bytes(), active.timeIndex.bytes());
  }

  close(): void {
    if (this.state !== 'open' && this.state !== 'offline') return;
    this.state = 'closed';
    this.stopRecovery();
    this.deps.store.close();
  }

  /** The topic was deleted: later calls fail with UNKNOWN_TOPIC_OR_PARTITION. */
  destroy(): void {
    if (this.state === 'deleted') return;
    this.state = 'deleted';
    this.stopRecovery();
    this.deps.store.destroy();
  }

  private stopRecovery(): void {
    if (this.recoveryTimer) clearTimeout(this.recoveryTimer);
    this.recoveryTimer = null;
  }

  private ensureOpen(): void {
    if (this.state === 'open') return;
    if (this.state === 'deleted') {
      throw new StorageError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${this.topic}-${this.partition} was deleted`);
    }
    if (this.state === 'offline') {
      throw new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `${this.topic}-${this.partition} is offline while it recovers: ${this.offlineBecause}`);
    }
    throw new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'storage is closed');
  }

  /**
   * An fsync of this partition failed: what was written since the last successful one may
   * be gone from disk, whatever later fsyncs say. Refuse appends and reads at once (appends
   * waiting for durability are failed by the flush scheduler) and recover. Or ('swap') a
   * log cleaner swap failed half way and could not be undone: the segments in memory no
   * longer match the directory's names until a reopen resolves the swap (completeSwaps).
   */
  private takeOffline(path: string, err: unknown, what: 'fsync' | 'swap' = 'fsync'): void {
    if (this.state !== 'open') return;
    this.state = 'offline';
    const errno = diskErrorOf(err)?.code ?? 'EIO';
    this.offlineBecause = what === 'fsync' ? `fsync of ${path} failed (${errno})` : `the log cleaner's swap of ${path} failed half way (${errno})`;
    this.deps.faults.partitionOffline(`${this.topic}-${this.partition}`, path, err, what);
    this.scheduleRecovery(0);
  }

  private scheduleRecovery(delayMs: number): void {
    this.recoveryTimer = setTimeout(() => {
      this.recoveryTimer = null;
      void this.recover(delayMs);
    }, delayMs);
    this.recoveryTimer.unref();
  }

  /**
   * Reloads the log as after a crash, from what a successful fsync covered (partition store:
   * recover()), CRC-checked and truncated at the first bad batch, then makes that durable
   * before serving again. A recovery the disk refuses is retried with a growing delay.
   */
  private async recover(previousDelayMs: number): Promise<void> {
    if (this.state !== 'offline') return;
    const name = `${this.topic}-${this.partition}`;
    const endBefore = this.logEndOffset;
    try {
      const loaded = loadLog(this.deps.store, {
        name, config: this.config, nowMs: (this.deps.clock ?? Date.now)(), producerIdExpirationMs: this.deps.producerIdExpirationMs,
        scratch: Buffer.allocUnsafe(RECOVERY_SCRATCH_BYTES), log: this.deps.log,
      }, true);
      await this.deps.store.syncAll();
      if (this.state !== 'offline') return; // closed or deleted meanwhile
      this.segmentList = loaded.segments;
      this.producers = loaded.producers;
      this.snapshotOffsets = loaded.snapshotOffsets;
      this.lso = loaded.logStartOffset;
      void this.deps.store.logStartOffsetChanged(this.lso);
      this.state = 'open';
      this.offlineBecause = null;
      this.deps.faults.partitionRecovered(name, { logEndOffset: String(this.logEndOffset), logEndOffsetBefore: String(endBefore) });
    } catch (err) {
      if (this.state !== 'offline') return;
      const delayMs = Math.min(MAX_RECOVERY_BACKOFF_MS, Math.max(1_000, previousDelayMs * 2));
      this.deps.log?.error(`recovery of ${name} failed; retrying in ${delayMs} ms`, { partition: name, err });
      this.scheduleRecovery(delayMs);
    }
  }
}
