/**
 * Turns one partition's Fetch response records into ConsumerRecords, lazily: batches are
 * decompressed and records decoded only as poll() asks for them. Keys, values and header
 * values are views (subarray) of the response or of the decompressed batch: no copies.
 * Records below the fetch position are skipped (a batch may start before it); control
 * batches are skipped; with read_committed, records of aborted transactions too.
 */
import { Reader } from '../../protocol/primitives/reader.js';
import { CompressionType, decompress } from '../../protocol/records/compression.js';
import { decodeControlRecordKey, ControlRecordType } from '../../protocol/records/control-record.js';
import {
  iterateBatches, MAGIC_V2, RECORDS_OFFSET, TimestampType, validateBatch, type RecordBatchHeader, type RecordBatchView,
} from '../../protocol/records/record-batch.js';
import { CorruptRecordError } from '../../protocol/records/errors.js';

export interface ConsumerRecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

export interface ConsumerRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: ConsumerRecordHeader[];
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  readonly timestampType: 'CreateTime' | 'LogAppendTime';
  /** The batch's partition leader epoch, -1 when unknown. */
  readonly leaderEpoch: number;
}

export interface AbortedTransactionInfo {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
}

const NO_HEADERS: ConsumerRecordHeader[] = [];

function nullableBytes(r: Reader): Buffer | null {
  const len = r.readVarint();
  return len < 0 ? null : r.readRaw(len);
}

/** The records of one partition from one Fetch response, consumed in order. */
export class PartitionRecords {
  /** Next offset this fetch can give out; becomes the partition's position as records are taken. */
  nextFetchOffset: bigint;
  /** Leader epoch of the last record taken. */
  lastEpoch = -1;
  private readonly batches: Generator<RecordBatchView, void, undefined>;
  private header: RecordBatchHeader | null = null;
  private reader: Reader | null = null;
  private left = 0;
  private logAppendTime = 0;
  private readonly abortedProducers = new Set<bigint>();
  private readonly aborted: AbortedTransactionInfo[];
  private drainedFlag = false;

  constructor(
    readonly topic: string,
    readonly partition: number,
    /** The position the fetch was sent for. */
    readonly fetchOffset: bigint,
    /** The partition state's epoch when the fetch was sent (a seek in between voids this data). */
    readonly stateEpoch: number,
    records: Buffer,
    readonly highWatermark: bigint,
    private readonly readCommitted: boolean,
    aborted: readonly AbortedTransactionInfo[] | null,
  ) {
    this.nextFetchOffset = fetchOffset;
    this.batches = iterateBatches(records);
    this.aborted = readCommitted && aborted ? [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1)) : [];
  }

  get drained(): boolean {
    return this.drainedFlag;
  }

  /** Appends up to `max` records to `out`; returns how many. */
  take(max: number, out: ConsumerRecord[]): number {
    let n = 0;
    while (n < max) {
      if (this.left === 0 && !this.nextBatch()) break;
      const record = this.readOne();
      if (record === null) continue;
      out.push(record);
      n++;
    }
    return n;
  }

  /** Moves to the next batch with records at or after nextFetchOffset; false when none is left. */
  private nextBatch(): boolean {
    if (this.header) {
      // A finished batch moves the position past it even when its tail records were compacted away.
      const after = this.header.lastOffset + 1n;
      if (after > this.nextFetchOffset) this.nextFetchOffset = after;
      this.header = null;
      this.reader = null;
    }
    for (;;) {
      const next = this.batches.next();
      if (next.done) {
        this.drainedFlag = true;
        return false;
      }
      const view = next.value;
      if (view.magic !== MAGIC_V2) throw new CorruptRecordError('unsupported-magic', `record batch magic ${view.magic} is not supported by this consumer`, view.position);
      const header = validateBatch(view.buffer, 0);
      if (header.lastOffset < this.nextFetchOffset) continue;
      if (this.skipForTransactions(header, view.buffer)) {
        const after = header.lastOffset + 1n;
        if (after > this.nextFetchOffset) this.nextFetchOffset = after;
        continue;
      }
      const section = view.buffer.subarray(RECORDS_OFFSET, header.sizeInBytes);
      const body = header.compression === CompressionType.None ? section : decompress(header.compression, section);
      this.header = header;
      this.reader = new Reader(body);
      this.left = header.recordCount;
      this.logAppendTime = header.timestampType === TimestampType.LogAppendTime ? Number(header.maxTimestamp) : -1;
      if (this.left > 0) return true;
      const after = header.lastOffset + 1n;
      if (after > this.nextFetchOffset) this.nextFetchOffset = after;
      this.header = null;
    }
  }

  /** Control batches are never given out; with read_committed, aborted transactions' batches neither. */
  private skipForTransactions(header: RecordBatchHeader, batch: Buffer): boolean {
    if (this.readCommitted) {
      while (this.aborted.length > 0 && this.aborted[0]!.firstOffset <= header.lastOffset) {
        this.abortedProducers.add(this.aborted.shift()!.producerId);
      }
    }
    if (header.isControl) {
      if (this.readCommitted && header.recordCount > 0) {
        const r = new Reader(header.compression === CompressionType.None ? batch.subarray(RECORDS_OFFSET, header.sizeInBytes) : decompress(header.compression, batch.subarray(RECORDS_OFFSET, header.sizeInBytes)));
        r.readVarint(); r.readInt8(); r.readVarlong(); r.readVarint();
        const key = nullableBytes(r);
        if (key && decodeControlRecordKey(key).type === ControlRecordType.Abort) this.abortedProducers.delete(header.producerId);
      }
      return true;
    }
    return this.readCommitted && header.isTransactional && this.abortedProducers.has(header.producerId);
  }

  /** One record, or null when it lies below nextFetchOffset. */
  private readOne(): ConsumerRecord | null {
    const r = this.reader!;
    const h = this.header!;
    this.left--;
    const length = r.readVarint();
    const end = r.offset + length;
    r.readInt8();
    const timestampDelta = r.readVarlongNumber();
    const offset = h.baseOffset + BigInt(r.readVarint());
    if (offset < this.nextFetchOffset) {
      r.offset = end;
      return null;
    }
    const key = nullableBytes(r);
    const value = nullableBytes(r);
    const headerCount = r.readVarint();
    let headers = NO_HEADERS;
    if (headerCount > 0) {
      headers = [];
      for (let i = 0; i < headerCount; i++) {
        const k = r.readRaw(r.readVarint()).toString('utf8');
        headers.push({ key: k, value: nullableBytes(r) });
      }
    }
    if (r.offset !== end) r.fail(`record at offset ${offset} declared ${length} bytes`);
    this.nextFetchOffset = offset + 1n;
    this.lastEpoch = h.partitionLeaderEpoch;
    return {
      topic: this.topic,
      partition: this.partition,
      offset,
      key,
      value,
      headers,
      timestamp: this.logAppendTime >= 0 ? this.logAppendTime : Number(h.baseTimestamp) + timestampDelta,
      timestampType: this.logAppendTime >= 0 ? 'LogAppendTime' : 'CreateTime',
      leaderEpoch: h.partitionLeaderEpoch,
    };
  }
}
