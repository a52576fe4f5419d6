/**
 * What the log cleaner does to one stored batch (Kafka's MemoryRecords.filterTo with the
 * LogCleaner's record filter): keep a record when no later record of the dirty section has
 * its key; drop a kept tombstone once the batch's delete horizon has passed. A batch that
 * keeps every record (and needs no delete horizon) is written back byte for byte; otherwise
 * it is re-encoded with the same base offset, last offset delta, producer id, epoch, base
 * sequence, attributes and codec, so offsets and sequence numbers never change.
 *
 * Uncompressed batches (all of `__consumer_offsets`) are first walked in place, without
 * building records (record-views.ts): the map takes their keys that way, and a batch that
 * keeps all its records or none needs no decoding at all, which is most of them when few
 * keys are overwritten many times. Only a batch that keeps some of its records is decoded
 * and re-encoded (`filterDecoded`, which compressed batches always take). Both check the CRC.
 */
import {
  CompressionType,
  decodeRecordBatch,
  encodeRecordBatch,
  forEachRecordSpan,
  readBatchHeader,
  TimestampType,
  validateBatch,
  type BatchRecord,
  type RecordBatchHeader,
} from '../protocol/records/index.js';

/** Key → offset of its newest record in the dirty section (Kafka's SkimpyOffsetMap, exact here). */
export class OffsetMap {
  private readonly offsets = new Map<string, bigint>();
  /** The last offset the map covers: records after it are kept whatever their key. */
  latestOffset = -1n;

  get size(): number {
    return this.offsets.size;
  }

  put(key: Buffer, offset: bigint): void {
    this.offsets.set(key.toString('latin1'), offset);
  }

  get(key: Buffer): bigint | undefined {
    return this.offsets.get(key.toString('latin1'));
  }

  /** put/get of the key at `buf[start, start + length)`, without a Buffer for it. */
  putAt(buf: Buffer, start: number, length: number, offset: bigint): void {
    this.offsets.set(buf.toString('latin1', start, start + length), offset);
  }

  getAt(buf: Buffer, start: number, length: number): bigint | undefined {
    return this.offsets.get(buf.toString('latin1', start, start + length));
  }
}

/** An aborted transaction's offsets (the txn index's producerId, firstOffset and marker offset). */
export interface AbortedRange {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
}

/**
 * Adds the keys of `batch`'s records from offset `from` on to `map` (control batches have
 * none that count). Records of an aborted transaction are left out, as Kafka's cleaner does
 * (buildOffsetMap skips aborted batches): else their key would shadow, and the cleaner
 * drop, the committed record read_committed consumers still need.
 */
export function addBatchToMap(map: OffsetMap, batch: Buffer, from: bigint, aborted: readonly AbortedRange[]): void {
  const h = readBatchHeader(batch);
  if (h.isControl || h.lastOffset < from) return;
  if (h.isTransactional && aborted.some((a) => a.producerId === h.producerId && a.firstOffset <= h.baseOffset && h.baseOffset < a.lastOffset)) return;
  if (h.compression === CompressionType.None) {
    validateBatch(batch);
    forEachRecordSpan(batch, h, (delta, buf, keyStart, keyLength) => {
      const offset = h.baseOffset + BigInt(delta);
      if (keyLength >= 0 && offset >= from) map.putAt(buf, keyStart, keyLength, offset);
    });
    return;
  }
  for (const r of decodeRecordBatch(batch).records) if (r.key !== null && r.offset >= from) map.put(r.key, r.offset);
}

export interface FilterContext {
  readonly map: OffsetMap;
  readonly nowMs: number;
  /** delete.retention.ms: a tombstone's batch gets the horizon now + this at its first clean. */
  readonly deleteRetentionMs: number;
  /** Last data offset of each active producer: that batch is kept, empty if need be. */
  readonly activeProducers: ReadonlyMap<bigint, bigint>;
}

export interface FilterResult {
  /** The batch to write (the original bytes or a rewrite), or null to drop it. */
  readonly bytes: Buffer | null;
  readonly recordsRemoved: number;
  /** The delete horizon of a written batch that still holds tombstones, else null. */
  readonly deleteHorizonMs: bigint | null;
}

function shouldRetain(record: BatchRecord, horizon: bigint | null, ctx: FilterContext): boolean {
  if (record.offset > ctx.map.latestOffset) return true;
  // Kafka refuses keyless records on compacted topics and its cleaner drops any it finds;
  // Brook keeps those already stored (it does not refuse them at produce time).
  if (record.key === null) return true;
  const newest = ctx.map.get(record.key);
  if (newest !== undefined && record.offset < newest) return false;
  return record.value !== null || horizon === null || BigInt(ctx.nowMs) < horizon;
}

/** Kafka's writeEmptyHeader: the producer's last batch with its records gone, offsets and sequence kept. */
function emptyBatch(h: RecordBatchHeader): Buffer {
  return encodeRecordBatch({
    records: [], baseOffset: h.baseOffset, lastOffsetDelta: h.lastOffsetDelta, partitionLeaderEpoch: h.partitionLeaderEpoch,
    timestampType: h.timestampType, isTransactional: h.isTransactional, producerId: h.producerId, producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence, baseTimestamp: h.maxTimestamp, maxTimestamp: h.maxTimestamp,
  });
}

export function filterBatch(batch: Buffer, ctx: FilterContext): FilterResult {
  const h = readBatchHeader(batch);
  // Control batches (transaction markers) are kept as they are.
  if (h.isControl) return { bytes: batch, recordsRemoved: 0, deleteHorizonMs: null };
  if (h.compression === CompressionType.None) {
    validateBatch(batch);
    const horizon = h.hasDeleteHorizonMs ? h.baseTimestamp : null;
    let retained = 0;
    let tombstones = false;
    forEachRecordSpan(batch, h, (delta, buf, keyStart, keyLength, _valueStart, valueLength) => {
      if (!retainAt(h.baseOffset + BigInt(delta), buf, keyStart, keyLength, valueLength < 0, horizon, ctx)) return;
      retained++;
      if (valueLength < 0) tombstones = true;
    });
    // The same outcomes as filterDecoded's first two, without decoding.
    if (retained === h.recordCount && !(tombstones && horizon === null)) return { bytes: batch, recordsRemoved: 0, deleteHorizonMs: tombstones ? horizon : null };
    if (retained === 0) return { bytes: keepsProducerState(h, ctx) ? emptyBatch(h) : null, recordsRemoved: h.recordCount, deleteHorizonMs: null };
  }
  return filterDecoded(batch, h, ctx);
}

/** shouldRetain for a record walked in place (its key at `buf[keyStart, keyStart + keyLength)`, -1: null). */
function retainAt(offset: bigint, buf: Buffer, keyStart: number, keyLength: number, tombstone: boolean, horizon: bigint | null, ctx: FilterContext): boolean {
  if (offset > ctx.map.latestOffset) return true;
  if (keyLength < 0) return true;
  const newest = ctx.map.getAt(buf, keyStart, keyLength);
  if (newest !== undefined && offset < newest) return false;
  return !tombstone || horizon === null || BigInt(ctx.nowMs) < horizon;
}

/** The batch is its producer's last data batch: kept, if need be empty (Kafka's writeEmptyHeader). */
function keepsProducerState(h: RecordBatchHeader, ctx: FilterContext): boolean {
  return h.producerId >= 0n && ctx.activeProducers.get(h.producerId) === h.lastOffset;
}

/** filterBatch by decoding every record (compressed batches, and batches that keep only some records). */
export function filterDecoded(batch: Buffer, h: RecordBatchHeader, ctx: FilterContext): FilterResult {
  const { records } = decodeRecordBatch(batch);
  const horizon = h.hasDeleteHorizonMs ? h.baseTimestamp : null;
  const retained = records.filter((r) => shouldRetain(r, horizon, ctx));
  const removed = records.length - retained.length;
  const tombstones = retained.some((r) => r.value === null);
  const needsHorizon = tombstones && horizon === null;
  if (removed === 0 && !needsHorizon) return { bytes: batch, recordsRemoved: 0, deleteHorizonMs: tombstones ? horizon : null };
  if (retained.length === 0) return { bytes: keepsProducerState(h, ctx) ? emptyBatch(h) : null, recordsRemoved: removed, deleteHorizonMs: null };
  const deleteHorizonMs = needsHorizon ? BigInt(ctx.nowMs) + BigInt(ctx.deleteRetentionMs) : (horizon ?? undefined);
  const bytes = encodeRecordBatch({
    records: retained.map((r) => ({
      key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp, offsetDelta: Number(r.offset - h.baseOffset),
    })),
    baseOffset: h.baseOffset,
    // The last offset (hence the last sequence) stays, as Kafka's overrideLastOffset.
    lastOffsetDelta: h.lastOffsetDelta,
    partitionLeaderEpoch: h.partitionLeaderEpoch,
    compression: h.compression,
    timestampType: h.timestampType,
    isTransactional: h.isTransactional,
    producerId: h.producerId,
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    maxTimestamp: h.timestampType === TimestampType.LogAppendTime ? h.maxTimestamp : undefined,
    deleteHorizonMs,
  });
  return { bytes, recordsRemoved: removed, deleteHorizonMs: tombstones ? (deleteHorizonMs ?? null) : null };
}
