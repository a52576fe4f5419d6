/**
 * Turns one partition's Fetch response records into ConsumerRecords, lazily: batches are
 * decompressed and records decoded only as poll() asks for them. Keys, values and header
 * values are views (subarray) of the response or of the decompressed batch: no copies.
 * Records below the fetch position are skipped (a batch may start before it); control
 * batches are skipped; with read_committed, records of aborted transactions too. With the
 * consumer's deserializers, each record is deserialized as it is taken (./deserialize.ts).
 */
import { Reader } from '../../protocol/primitives/reader.js';
import { CompressionType, decompress } from '../../protocol/records/compression.js';
import { decodeControlRecordKey, ControlRecordType } from '../../protocol/records/control-record.js';
import {
  iterateBatches, LAST_OFFSET_DELTA_OFFSET, MAGIC_V2, RECORDS_COUNT_OFFSET, RECORDS_OFFSET, TimestampType, validateBatch, type RecordBatchHeader, type RecordBatchView,
} from '../../protocol/records/record-batch.js';
import { CorruptRecordError } from '../../protocol/records/errors.js';
import { deserializeRecord, type AnyDeserializers } from './deserialize.js';
import { RecordDeserializationError } from './errors.js';
import {
  corrupt, cursor, readVarint, readVarlongNumber, recordHeaders, spanLength, view,
  type ConsumerRecord, type ConsumerRecordHeader, type MutableRawRecord, type RawRecordVisitor,
} from './record-spans.js';
import { ConsumerRecordView } from './record-view.js';

export type { ConsumerRecord, ConsumerRecordHeader, RawRecord, RawRecordVisitor } from './record-spans.js';
export { recordHeaders } from './record-spans.js';

export interface AbortedTransactionInfo {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
}

function nullableBytes(r: Reader): Buffer | null {
  const len = r.readVarint();
  return len < 0 ? null : r.readRaw(len);
}

const NO_HEADERS: ConsumerRecordHeader[] = [];


/** The records of one partition from one Fetch response, consumed in order. */
export class PartitionRecords {
  /** Next offset this fetch can give out; becomes the partition's position as records are taken. */
  nextFetchOffset: bigint;
  /** Leader epoch of the last record taken. */
  lastEpoch = -1;
  /** Bytes of the batches whose records have been given out (or started to be): the consumer's bytes-consumed metric. */
  consumedBytes = 0;
  private readonly batches: Generator<RecordBatchView, void, undefined>;
  /** The batch being read (null between batches), its records section and where the next record starts. */
  private header: RecordBatchHeader | null = null;
  private body: Buffer | null = null;
  private pos = 0;
  private left = 0;
  // Per batch, as numbers: offsets and timestamps are computed per record without bigint arithmetic.
  private baseOffsetNumber = 0;
  private nextOffsetNumber = 0;
  private baseTimestampNumber = 0;
  private logAppendTime = -1;
  private timestampTypeName: 'CreateTime' | 'LogAppendTime' = 'CreateTime';
  private leaderEpoch = -1;
  private readonly abortedProducers = new Set<bigint>();
  private readonly aborted: AbortedTransactionInfo[];
  private drainedFlag = false;
  /** The record readNext() decoded (reused), and where it ends in the batch. */
  private readonly raw: MutableRawRecord;
  private recordEnd = 0;
  private failure: Error | null = null;
  private endOffsetValue: bigint | null = null;

  constructor(
    readonly topic: string,
    readonly partition: number,
    /** The position the fetch was sent for. */
    readonly fetchOffset: bigint,
    /** The partition state's epoch when the fetch was sent (a seek in between voids this data). */
    readonly stateEpoch: number,
    private readonly records: Buffer,
    readonly highWatermark: bigint,
    private readonly readCommitted: boolean,
    aborted: readonly AbortedTransactionInfo[] | null,
    private readonly deserializers: AnyDeserializers | null = null,
  ) {
    this.nextFetchOffset = fetchOffset;
    this.raw = {
      topic, partition, offset: 0, buffer: records, keyStart: 0, keyLength: -1, valueStart: 0, valueLength: -1,
      headersStart: 0, headerCount: 0, timestamp: 0, timestampType: 'CreateTime', leaderEpoch: -1,
    };
    this.batches = iterateBatches(records);
    this.aborted = readCommitted && aborted ? [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1)) : [];
  }

  get drained(): boolean {
    return this.drainedFlag;
  }

  /**
   * The offset after the last complete batch of this response (from the batch headers
   * only): where the next fetch for this partition can start while these records are still
   * being given out. Never below the offset the fetch was sent for.
   */
  endOffset(): bigint {
    if (this.endOffsetValue === null) {
      let end = this.fetchOffset;
      for (const view of iterateBatches(this.records)) {
        if (view.magic !== MAGIC_V2 || view.buffer.length < RECORDS_OFFSET) break;
        const after = view.baseOffset + BigInt(view.buffer.readInt32BE(LAST_OFFSET_DELTA_OFFSET)) + 1n;
        if (after > end) end = after;
      }
      this.endOffsetValue = end;
    }
    return this.endOffsetValue;
  }

  /** Size of the fetched record batches. */
  get sizeInBytes(): number {
    return this.records.length;
  }

  /** Records the fetched batches hold, from their headers (control records included). */
  batchRecordCount(): number {
    let count = 0;
    for (const view of iterateBatches(this.records)) {
      if (view.magic === MAGIC_V2 && view.buffer.length >= RECORDS_OFFSET) count += view.buffer.readInt32BE(RECORDS_COUNT_OFFSET);
    }
    return count;
  }

  /**
   * Appends up to `max` records to `out`; returns how many. A record that cannot be
   * decoded or deserialized ends the take: the records before it are returned, and the
   * next take() (or this one, when it is the first) throws, nextFetchOffset left at or
   * before that record.
   */
  take(max: number, out: ConsumerRecord<unknown, unknown, unknown>[]): number {
    return this.give(max, () => {
      out.push(this.build());
      return true;
    });
  }

  /** As take(), but appends views of the records (ConsumerRecordView: no deserializers, fields made when read). */
  takeViews(max: number, out: ConsumerRecordView[]): number {
    return this.give(max, () => {
      out.push(new ConsumerRecordView(this.raw));
      return true;
    });
  }

  /**
   * As take(), but calls `visitor` with each record's spans (RawRecord) instead of building
   * it: no deserializers, nothing allocated per record. The visit ends after a record for
   * which `visitor` returns false. A visitor that throws is treated as a record that cannot
   * be decoded (as take() above): it should not.
   */
  visit(max: number, visitor: RawRecordVisitor): number {
    return this.give(max, () => visitor(this.raw) !== false);
  }

  /** Hands out up to `max` records with `handOut` (take and visit); returns how many. */
  private give(max: number, handOut: () => boolean): number {
    if (this.failure !== null) throw this.failure;
    let n = 0;
    try {
      while (n < max) {
        if (this.left === 0 && !this.nextBatch()) break;
        if (!this.readNext()) continue;
        this.raw.timestampType = this.timestampTypeName;
        this.raw.leaderEpoch = this.leaderEpoch;
        // Handed out before it counts: a deserializer (or visitor) that throws leaves the position at the record.
        const more = handOut();
        this.consumed();
        n++;
        if (!more) break;
      }
    } catch (err) {
      if (n === 0) throw err;
      // A deserializer is simply called again; corrupt bytes may have moved the batch
      // iterator past them, so the failure is kept instead.
      if (!(err instanceof RecordDeserializationError)) this.failure = err as Error;
    } finally {
      // Within a batch the position is tracked as a number; it becomes the bigint once per call.
      if (this.header !== null && n > 0) this.nextFetchOffset = BigInt(this.nextOffsetNumber);
    }
    return n;
  }

  /** Moves to the next batch with records at or after nextFetchOffset; false when none is left. */
  private nextBatch(): boolean {
    if (this.header) {
      // A finished batch moves the position past it even when its tail records were compacted away.
      this.nextFetchOffset = this.header.lastOffset + 1n;
      this.header = null;
      this.body = null;
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
      if (header.lastOffset > BigInt(Number.MAX_SAFE_INTEGER)) {
        // Kafka allows int64 offsets; positions here are computed as numbers, exact up to 2^53.
        throw corrupt(`record batch offsets up to ${header.lastOffset} exceed 2^53, which this consumer does not support`, view.position);
      }
      if (header.recordCount === 0) {
        if (header.lastOffset + 1n > this.nextFetchOffset) this.nextFetchOffset = header.lastOffset + 1n;
        continue;
      }
      const section = view.buffer.subarray(RECORDS_OFFSET, header.sizeInBytes);
      this.body = header.compression === CompressionType.None ? section : decompress(header.compression, section);
      this.consumedBytes += header.sizeInBytes;
      this.pos = 0;
      this.header = header;
      this.left = header.recordCount;
      this.baseOffsetNumber = Number(header.baseOffset);
      this.nextOffsetNumber = Number(this.nextFetchOffset);
      this.baseTimestampNumber = Number(header.baseTimestamp);
      this.logAppendTime = header.timestampType === TimestampType.LogAppendTime ? Number(header.maxTimestamp) : -1;
      this.timestampTypeName = this.logAppendTime >= 0 ? 'LogAppendTime' : 'CreateTime';
      this.leaderEpoch = header.partitionLeaderEpoch;
      return true;
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

  /**
   * Decodes the next record's fields into `this.raw` (its key, value and headers as spans of
   * the batch: nothing allocated); false when it lies below nextFetchOffset. Does not yet
   * count it as given out: `consumed()` does.
   */
  private readNext(): boolean {
    // Decoded straight from the bytes (cursor.at) rather than through Reader: this runs
    // once per record and its varints are almost always one byte.
    const buf = this.body!;
    const bodyEnd = buf.length;
    this.left--;
    cursor.at = this.pos;
    const length = readVarint(buf, bodyEnd);
    const end = cursor.at + length;
    if (length < 0 || end > bodyEnd) throw corrupt(`record length ${length} exceeds its batch`, cursor.at);
    cursor.at++; // attributes: unused in v2 records
    const timestampDelta = readVarlongNumber(buf, end);
    const offsetNumber = this.baseOffsetNumber + readVarint(buf, end);
    if (offsetNumber < this.nextOffsetNumber) {
      this.pos = end;
      return false;
    }
    const raw = this.raw;
    raw.keyLength = spanLength(buf, end);
    raw.keyStart = cursor.at - Math.max(0, raw.keyLength);
    raw.valueLength = spanLength(buf, end);
    raw.valueStart = cursor.at - Math.max(0, raw.valueLength);
    const headerCount = readVarint(buf, end);
    raw.headersStart = cursor.at;
    raw.headerCount = headerCount;
    if (headerCount < 0) throw corrupt(`negative header count ${headerCount}`, cursor.at);
    for (let i = 0; i < headerCount; i++) {
      if (spanLength(buf, end) < 0) throw corrupt('null header key', cursor.at);
      spanLength(buf, end);
    }
    if (cursor.at !== end) throw corrupt(`record at offset ${offsetNumber} declared ${length} bytes`, cursor.at);
    raw.buffer = buf;
    raw.offset = offsetNumber;
    raw.timestamp = this.logAppendTime >= 0 ? this.logAppendTime : this.baseTimestampNumber + timestampDelta;
    this.recordEnd = end;
    return true;
  }

  /** The record readNext() decoded is given out: the position moves past it. */
  private consumed(): void {
    this.pos = this.recordEnd;
    this.nextOffsetNumber = this.raw.offset + 1;
    this.lastEpoch = this.leaderEpoch;
  }

  /** The record readNext() decoded, built: views of its bytes, then the consumer's deserializers. */
  private build(): ConsumerRecord<unknown, unknown, unknown> {
    const raw = this.raw;
    const buf = raw.buffer;
    const record: ConsumerRecord = {
      topic: this.topic,
      partition: this.partition,
      offset: BigInt(raw.offset),
      key: raw.keyLength < 0 ? null : view(buf, raw.keyStart, raw.keyLength),
      value: raw.valueLength < 0 ? null : view(buf, raw.valueStart, raw.valueLength),
      headers: raw.headerCount === 0 ? NO_HEADERS : recordHeaders(raw),
      timestamp: raw.timestamp,
      timestampType: this.timestampTypeName,
      leaderEpoch: this.leaderEpoch,
    };
    if (this.deserializers === null) return record;
    try {
      return deserializeRecord(this.deserializers, record);
    } catch (err) {
      // Not consumed: the next take() reads this record again.
      this.left++;
      throw err;
    }
  }
}
