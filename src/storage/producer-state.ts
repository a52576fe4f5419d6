/**
 * Producer state of one partition, after Kafka's ProducerStateManager, ProducerStateEntry
 * and ProducerAppendInfo (Kafka 4.x): per producer id, the current epoch and the metadata of
 * its last five batches, which is what duplicate detection and sequence checks need; and
 * for transactions, the first offset of the producer's open transaction and the epoch of
 * the coordinator that last completed one. The open transactions give the partition's
 * first unstable offset, from which the last stable offset follows. Snapshots (taken at
 * roll and clean shutdown) let a restart replay only the log written after them.
 */
import { ErrorCode } from '../protocol/errors.js';
import { crc32c, NO_PRODUCER_EPOCH, NO_SEQUENCE } from '../protocol/records/index.js';
import { StorageError } from './errors.js';
import type { ActiveProducer, AppendOrigin } from './types.js';

/** Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN, matching max.in.flight.requests.per.connection <= 5. */
export const BATCHES_TO_RETAIN = 5;

/** Transaction version 2 (KIP-890), from which markers need a newer producer epoch (KIP-1228). */
const TRANSACTION_VERSION_2 = 2;
/** Kafka's Short.MAX_VALUE: an epoch that cannot be bumped further. */
const MAX_PRODUCER_EPOCH = 0x7fff;

export interface BatchMetadata {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  /** The batch's max timestamp as stored (the append time on LogAppendTime topics). */
  readonly timestamp: bigint;
}

interface ProducerEntry {
  epoch: number;
  batches: BatchMetadata[];
  lastTimestamp: bigint;
  /** The epoch of the coordinator whose marker completed this producer's last transaction (-1: none). */
  coordinatorEpoch: number;
  /** The first offset of the producer's open transaction in this partition; -1 when none. */
  currentTxnFirstOffset: bigint;
}

/** A transaction a marker completed (Kafka's CompletedTxn), with the LSO right after it. */
export interface CompletedTxn {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
  /** The marker's offset. */
  readonly lastOffset: bigint;
  readonly isAborted: boolean;
  /** Kafka's ProducerStateManager.lastStableOffset(completedTxn): the next open transaction's first offset, else the marker's offset + 1. */
  readonly lastStableOffset: bigint;
}

const NO_TXN = -1n;

/** The batch's last sequence: base + lastOffsetDelta, wrapping past Int32 max to 0 (DefaultRecordBatch.incrementSequence). */
export function lastSequence(baseSequence: number, lastOffsetDelta: number): number {
  if (baseSequence > 0x7fffffff - lastOffsetDelta) return lastOffsetDelta - (0x7fffffff - baseSequence) - 1;
  return baseSequence + lastOffsetDelta;
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === 0x7fffffff);
}

/** Version 2 added the transaction fields; version 1 snapshots (no transactions then) still load. */
const SNAPSHOT_VERSION = 2;
const SNAPSHOT_HEADER = 2 + 4 + 4;
const ENTRY_FIXED_V1 = 8 + 2 + 8 + 1;
const ENTRY_FIXED = ENTRY_FIXED_V1 + 4 + 8;
const BATCH_SIZE = 4 + 4 + 8 + 8 + 8;

export class ProducerStateManager {
  private readonly producers = new Map<bigint, ProducerEntry>();
  /** Kafka's firstUnstableOffset: the smallest first offset of an open transaction, -1 when none (kept, read by every fetch). */
  private firstUnstable = NO_TXN;

  get producerCount(): number {
    return this.producers.size;
  }

  /** The first offset of the oldest open transaction, or null when none is open. */
  get firstUnstableOffset(): bigint | null {
    return this.firstUnstable < 0n ? null : this.firstUnstable;
  }

  /**
   * Checks a batch of producer `producerId` before it is appended. Returns the metadata of
   * the original when the batch duplicates one of the producer's retained batches (client
   * appends only; not to be appended again), else null. Throws INVALID_PRODUCER_EPOCH for
   * a stale epoch and OUT_OF_ORDER_SEQUENCE_NUMBER for a gap. As in Kafka 4.x, a producer
   * with no state here (new, expired, or deleted by retention) may start at any sequence:
   * brokers no longer answer UNKNOWN_PRODUCER_ID (KIP-360). A non-transactional batch of
   * a producer with an open transaction is INVALID_TXN_STATE (updateCurrentTxnFirstOffset).
   */
  check(
    producerId: bigint, epoch: number, firstSeq: number, lastSeq: number, isControl: boolean, origin: AppendOrigin, isTransactional = false,
  ): BatchMetadata | null {
    const entry = this.producers.get(producerId);
    if (origin === 'client' && entry && entry.epoch === epoch) {
      for (const b of entry.batches) if (b.firstSeq === firstSeq && b.lastSeq === lastSeq) return b;
    }
    const currentEpoch = entry ? entry.epoch : NO_PRODUCER_EPOCH;
    if (epoch < currentEpoch) {
      throw new StorageError(ErrorCode.INVALID_PRODUCER_EPOCH,
        `epoch ${epoch} of producer ${producerId} is smaller than the last seen epoch ${currentEpoch}`);
    }
    if (!isControl && !isTransactional && entry && entry.currentTxnFirstOffset >= 0n) {
      throw new StorageError(ErrorCode.INVALID_TXN_STATE, `expected a transactional write from producer ${producerId}, which has an open transaction`);
    }
    // The coordinator's writes carry no sequences; Kafka checks only their epoch.
    if (origin !== 'client' || isControl) return null;
    if (epoch !== currentEpoch) {
      if (firstSeq !== 0 && currentEpoch !== NO_PRODUCER_EPOCH) {
        throw new StorageError(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          `invalid sequence number ${firstSeq} for new epoch ${epoch} of producer ${producerId} (current epoch ${currentEpoch})`);
      }
    } else {
      const last = entry!.batches.at(-1);
      const currentLastSeq = last ? last.lastSeq : NO_SEQUENCE;
      if (currentEpoch !== NO_PRODUCER_EPOCH && !inSequence(currentLastSeq, firstSeq)) {
        throw new StorageError(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          `out of order sequence number for producer ${producerId}: ${firstSeq} (incoming), ${currentLastSeq} (current end)`);
      }
    }
    return null;
  }

  /**
   * Checks a transaction marker (Kafka's appendEndTxnMarker): the producer epoch as any
   * batch's (check), then a marker from an older coordinator epoch than the one that
   * completed the producer's last transaction is TRANSACTION_COORDINATOR_FENCED. Under
   * transaction version 2 (KIP-1228), whose coordinator bumps the epoch at every end, the
   * marker's epoch must be newer than the producer's, except for a retry of the marker that
   * completed its last transaction (same epoch, no transaction open; or the epoch at its
   * maximum), as Kafka's ProducerAppendInfo.checkProducerEpoch.
   */
  checkMarker(producerId: bigint, epoch: number, coordinatorEpoch: number, origin: AppendOrigin, transactionVersion = 0): void {
    const entry = this.producers.get(producerId);
    if (transactionVersion >= TRANSACTION_VERSION_2 && entry !== undefined && epoch <= entry.epoch) {
      const retry = epoch === entry.epoch && (entry.currentTxnFirstOffset < 0n || epoch === MAX_PRODUCER_EPOCH);
      if (!retry) {
        throw new StorageError(ErrorCode.INVALID_PRODUCER_EPOCH,
          `epoch ${epoch} of producer ${producerId}'s transaction marker is not newer than its last seen epoch ${entry.epoch} (transaction version ${transactionVersion})`);
      }
    }
    this.check(producerId, epoch, NO_SEQUENCE, NO_SEQUENCE, true, origin);
    if (entry && entry.coordinatorEpoch > coordinatorEpoch) {
      throw new StorageError(ErrorCode.TRANSACTION_COORDINATOR_FENCED,
        `invalid coordinator epoch for producer ${producerId}: ${coordinatorEpoch} (zombie), ${entry.coordinatorEpoch} (current)`);
    }
  }

  /** Records an appended (or replayed, unchecked) batch of a producer; a transactional one may open a transaction. */
  update(producerId: bigint, epoch: number, batch: BatchMetadata | null, timestamp: bigint, isTransactional = false): void {
    const entry = this.entryFor(producerId, epoch, timestamp);
    if (batch) {
      if (entry.batches.length === BATCHES_TO_RETAIN) entry.batches.shift();
      entry.batches.push(batch);
      if (isTransactional && entry.currentTxnFirstOffset < 0n) {
        entry.currentTxnFirstOffset = batch.firstOffset;
        // Appends only move forward: an older open transaction, if any, stays the first.
        if (this.firstUnstable < 0n) this.firstUnstable = batch.firstOffset;
      }
    }
    entry.lastTimestamp = timestamp;
  }

  /**
   * Records an appended (or replayed) COMMIT or ABORT marker at `offset` (Kafka's
   * appendEndTxnMarker + completeTxn): the producer's open transaction, if any, is complete
   * and returned; a marker with no open transaction completes nothing (null).
   */
  completeTxn(producerId: bigint, epoch: number, isAbort: boolean, coordinatorEpoch: number, offset: bigint, timestamp: bigint): CompletedTxn | null {
    const entry = this.entryFor(producerId, epoch, timestamp);
    const firstOffset = entry.currentTxnFirstOffset;
    entry.currentTxnFirstOffset = NO_TXN;
    entry.coordinatorEpoch = coordinatorEpoch;
    entry.lastTimestamp = timestamp;
    if (firstOffset < 0n) return null;
    this.firstUnstable = this.oldestOpenTxn();
    const lastStableOffset = this.firstUnstable >= 0n ? this.firstUnstable : offset + 1n;
    return { producerId, firstOffset, lastOffset: offset, isAborted: isAbort, lastStableOffset };
  }

  private entryFor(producerId: bigint, epoch: number, timestamp: bigint): ProducerEntry {
    let entry = this.producers.get(producerId);
    if (!entry) {
      entry = { epoch, batches: [], lastTimestamp: timestamp, coordinatorEpoch: -1, currentTxnFirstOffset: NO_TXN };
      this.producers.set(producerId, entry);
    } else if (entry.epoch !== epoch) {
      // A new epoch starts a new sequence space (ProducerStateEntry.maybeUpdateProducerEpoch).
      entry.epoch = epoch;
      entry.batches = [];
    }
    return entry;
  }

  private oldestOpenTxn(): bigint {
    let min = NO_TXN;
    for (const entry of this.producers.values()) {
      const first = entry.currentTxnFirstOffset;
      if (first >= 0n && (min < 0n || first < min)) min = first;
    }
    return min;
  }

  /**
   * The last offset of each producer's newest data batch: the log cleaner keeps those
   * batches (empty if need be) so sequence checks survive compaction, as Kafka's cleaner
   * does with lastRecordsOfActiveProducers.
   */
  lastDataOffsets(): Map<bigint, bigint> {
    const out = new Map<bigint, bigint>();
    for (const [id, entry] of this.producers) {
      const last = entry.batches.at(-1);
      if (last) out.set(id, last.lastOffset);
    }
    return out;
  }

  /** Every producer with state, by producer id (DescribeProducers). */
  hasOngoingTransaction(producerId: bigint, producerEpoch: number): boolean {
    const entry = this.producers.get(producerId);
    return entry !== undefined && entry.epoch === producerEpoch && entry.currentTxnFirstOffset >= 0n;
  }

  activeProducers(): ActiveProducer[] {
    const out: ActiveProducer[] = [];
    for (const [producerId, entry] of this.producers) {
      out.push({
        producerId, producerEpoch: entry.epoch, lastSequence: entry.batches.at(-1)?.lastSeq ?? NO_SEQUENCE, lastTimestamp: entry.lastTimestamp,
        coordinatorEpoch: entry.coordinatorEpoch, currentTxnStartOffset: entry.currentTxnFirstOffset,
      });
    }
    return out.sort((a, b) => (a.producerId < b.producerId ? -1 : a.producerId > b.producerId ? 1 : 0));
  }

  /**
   * Forgets producers idle for `expirationMs` (by their last batch timestamp), as Kafka's
   * removeExpiredProducers; never one with an open transaction (Kafka's isProducerExpired).
   */
  expire(nowMs: number, expirationMs: number): void {
    const now = BigInt(nowMs);
    const limit = BigInt(expirationMs);
    for (const [id, entry] of this.producers) {
      if (entry.currentTxnFirstOffset < 0n && now - entry.lastTimestamp >= limit) this.producers.delete(id);
    }
  }

  /**
   * Binary snapshot: version int16, crc32c uint32 of the rest, count int32, then per
   * producer: id int64, epoch int16, last timestamp int64, coordinator epoch int32, open
   * transaction's first offset int64 (-1), batch count int8 and the batches.
   */
  snapshot(): Buffer {
    let size = SNAPSHOT_HEADER;
    for (const entry of this.producers.values()) size += ENTRY_FIXED + entry.batches.length * BATCH_SIZE;
    const buf = Buffer.allocUnsafe(size);
    buf.writeInt16BE(SNAPSHOT_VERSION, 0);
    buf.writeInt32BE(this.producers.size, 6);
    let at = SNAPSHOT_HEADER;
    for (const [id, entry] of this.producers) {
      at = buf.writeBigInt64BE(id, at);
      at = buf.writeInt16BE(entry.epoch, at);
      at = buf.writeBigInt64BE(entry.lastTimestamp, at);
      at = buf.writeInt32BE(entry.coordinatorEpoch, at);
      at = buf.writeBigInt64BE(entry.currentTxnFirstOffset, at);
      at = buf.writeInt8(entry.batches.length, at);
      for (const b of entry.batches) {
        at = buf.writeInt32BE(b.firstSeq, at);
        at = buf.writeInt32BE(b.lastSeq, at);
        at = buf.writeBigInt64BE(b.firstOffset, at);
        at = buf.writeBigInt64BE(b.lastOffset, at);
        at = buf.writeBigInt64BE(b.timestamp, at);
      }
    }
    buf.writeUInt32BE(crc32c(buf.subarray(6)), 2);
    return buf;
  }

  /** Loads a snapshot; null when it is torn or corrupt (the caller replays the log instead). */
  static fromSnapshot(buf: Buffer): ProducerStateManager | null {
    if (buf.length < SNAPSHOT_HEADER) return null;
    const version = buf.readInt16BE(0);
    if (version !== SNAPSHOT_VERSION && version !== 1) return null;
    if (buf.readUInt32BE(2) !== crc32c(buf.subarray(6))) return null;
    const fixed = version === 1 ? ENTRY_FIXED_V1 : ENTRY_FIXED;
    const state = new ProducerStateManager();
    const count = buf.readInt32BE(6);
    let at = SNAPSHOT_HEADER;
    for (let i = 0; i < count; i++) {
      if (buf.length - at < fixed) return null;
      const id = buf.readBigInt64BE(at);
      const epoch = buf.readInt16BE(at + 8);
      const lastTimestamp = buf.readBigInt64BE(at + 10);
      const coordinatorEpoch = version === 1 ? -1 : buf.readInt32BE(at + 18);
      const currentTxnFirstOffset = version === 1 ? NO_TXN : buf.readBigInt64BE(at + 22);
      const n = buf.readInt8(at + fixed - 1);
      at += fixed;
      if (n < 0 || n > BATCHES_TO_RETAIN || buf.length - at < n * BATCH_SIZE) return null;
      const batches: BatchMetadata[] = [];
      for (let j = 0; j < n; j++, at += BATCH_SIZE) {
        batches.push({
          firstSeq: buf.readInt32BE(at),
          lastSeq: buf.readInt32BE(at + 4),
          firstOffset: buf.readBigInt64BE(at + 8),
          lastOffset: buf.readBigInt64BE(at + 16),
          timestamp: buf.readBigInt64BE(at + 24),
        });
      }
      state.producers.set(id, { epoch, batches, lastTimestamp, coordinatorEpoch, currentTxnFirstOffset });
    }
    if (at !== buf.length) return null;
    state.firstUnstable = state.oldestOpenTxn();
    return state;
  }
}
