import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import { batchAttributes, writeBatchHeader, type BatchHeaderFields } from './batch-header-writer.js';
import {
  compress,
  compressAsync,
  CompressionType,
  decompress,
  decompressAsync,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  type DecompressOptions,
} from './compression.js';
import { decodeControlRecordKey, type ControlRecordKey } from './control-record.js';
import { CorruptRecordError } from './errors.js';
import { MIN_RECORD_SIZE, readRecord, writeRecord, type BatchRecord, type RecordInput } from './record.js';
import {
  HEADER_SIZE,
  NO_PARTITION_LEADER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  NO_TIMESTAMP,
  RECORDS_OFFSET,
  TimestampType,
  validateBatch,
  type RecordBatchHeader,
} from './record-batch.js';

export interface RecordBatchInput {
  records: readonly RecordInput[];
  baseOffset?: bigint;
  partitionLeaderEpoch?: number;
  compression?: CompressionType;
  /** gzip or zstd level. */
  compressionLevel?: number;
  timestampType?: TimestampType;
  isTransactional?: boolean;
  isControl?: boolean;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  /** Defaults to the first record's timestamp, as Kafka's producer does. */
  baseTimestamp?: bigint | number;
  /** Defaults to the largest record timestamp; set it to stamp LogAppendTime. */
  maxTimestamp?: bigint | number;
  /** Sets the delete-horizon flag; the base timestamp then holds the horizon (KIP-534). */
  deleteHorizonMs?: bigint;
  /** Defaults to the largest offsetDelta (0 for an empty batch). */
  lastOffsetDelta?: number;
}

export interface DecodeRecordsOptions extends DecompressOptions {
  /** Default true. */
  verifyCrc?: boolean;
}

export interface DecodedRecordBatch {
  header: RecordBatchHeader;
  records: BatchRecord[];
  /** The parsed key of a control batch's record (a transaction marker), else null. */
  control: ControlRecordKey | null;
  /** Bytes and slots allocated in proportion to wire lengths: decompressed output, arrays, strings. */
  allocated: number;
}

/** Record section in a Writer, plus the header fields only known once records are laid out. */
function writeRecords(batch: RecordBatchInput, w: Writer): BatchHeaderFields {
  const records = batch.records;
  const first = records[0];
  const baseTimestamp = toBigInt(
    batch.deleteHorizonMs ?? batch.baseTimestamp ?? (first === undefined ? NO_TIMESTAMP : (first.timestamp ?? Date.now())),
  );
  let maxTimestamp = NO_TIMESTAMP;
  let lastOffsetDelta = 0;
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const timestamp = record.timestamp === undefined ? baseTimestamp : toBigInt(record.timestamp);
    const offsetDelta = record.offsetDelta ?? i;
    if (timestamp > maxTimestamp || i === 0) maxTimestamp = timestamp;
    if (offsetDelta > lastOffsetDelta) lastOffsetDelta = offsetDelta;
    writeRecord(w, offsetDelta, timestamp - baseTimestamp, record);
  }
  return {
    baseOffset: batch.baseOffset ?? 0n,
    partitionLeaderEpoch: batch.partitionLeaderEpoch ?? NO_PARTITION_LEADER_EPOCH,
    attributes: batchAttributes({
      compression: batch.compression ?? CompressionType.None,
      timestampType: batch.timestampType ?? TimestampType.CreateTime,
      isTransactional: batch.isTransactional ?? false,
      isControl: batch.isControl ?? false,
      hasDeleteHorizonMs: batch.deleteHorizonMs !== undefined,
    }),
    lastOffsetDelta: batch.lastOffsetDelta ?? lastOffsetDelta,
    baseTimestamp,
    maxTimestamp: batch.maxTimestamp === undefined ? maxTimestamp : toBigInt(batch.maxTimestamp),
    producerId: batch.producerId ?? NO_PRODUCER_ID,
    producerEpoch: batch.producerEpoch ?? NO_PRODUCER_EPOCH,
    baseSequence: batch.baseSequence ?? NO_SEQUENCE,
    recordCount: records.length,
  };
}

function toBigInt(value: bigint | number): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

/** Payloads this small are copied into the Writer's scratch, so its first size should fit them. */
function estimateScratch(records: readonly RecordInput[]): number {
  let size = HEADER_SIZE;
  for (const record of records) {
    size += 24;
    if (record.key && record.key.length < 4096) size += record.key.length;
    if (record.value && record.value.length < 4096) size += record.value.length;
  }
  return size;
}

const HEADER_PLACEHOLDER = Buffer.alloc(HEADER_SIZE);

/**
 * Encodes a v2 batch. Records are written once into a Writer (large keys and values by
 * reference); uncompressed, the header is filled in place in the joined buffer;
 * compressed, the records are compressed in one piece and the header written in front.
 */
export function encodeRecordBatch(batch: RecordBatchInput): Buffer {
  const compression = batch.compression ?? CompressionType.None;
  if (compression === CompressionType.None) {
    const w = new Writer(estimateScratch(batch.records));
    w.writeRaw(HEADER_PLACEHOLDER);
    const fields = writeRecords(batch, w);
    const out = w.toBuffer();
    writeBatchHeader(out, 0, out.length, fields);
    return out;
  }
  const w = new Writer(estimateScratch(batch.records));
  const fields = writeRecords(batch, w);
  return withHeader(compress(compression, w.toBuffer(), { level: batch.compressionLevel }), fields);
}

export async function encodeRecordBatchAsync(batch: RecordBatchInput): Promise<Buffer> {
  const compression = batch.compression ?? CompressionType.None;
  if (compression === CompressionType.None) return encodeRecordBatch(batch);
  const w = new Writer(estimateScratch(batch.records));
  const fields = writeRecords(batch, w);
  return withHeader(await compressAsync(compression, w.toBuffer(), { level: batch.compressionLevel }), fields);
}

function withHeader(compressed: Buffer, fields: BatchHeaderFields): Buffer {
  const out = Buffer.allocUnsafe(HEADER_SIZE + compressed.length);
  compressed.copy(out, HEADER_SIZE);
  writeBatchHeader(out, 0, out.length, fields);
  return out;
}

/** The checks that need no decompression, and the records section as stored. */
function prepare(buf: Buffer, options: DecodeRecordsOptions | undefined): { header: RecordBatchHeader; section: Buffer } {
  const header = validateBatch(buf, 0, options);
  const section = buf.subarray(RECORDS_OFFSET, header.sizeInBytes);
  const ceiling = header.compression === CompressionType.None ? section.length : (options?.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES);
  checkRecordCount(header.recordCount, ceiling);
  return { header, section };
}

function checkRecordCount(count: number, bytes: number): void {
  if (count > bytes / MIN_RECORD_SIZE) {
    throw new CorruptRecordError('invalid-record-count', `${count} records cannot fit in ${bytes} bytes`, RECORDS_OFFSET);
  }
}

function parseRecords(header: RecordBatchHeader, r: Reader): DecodedRecordBatch {
  const count = header.recordCount;
  checkRecordCount(count, r.remaining);
  r.allocated += count;
  const logAppendTime = header.timestampType === TimestampType.LogAppendTime ? header.maxTimestamp : null;
  const records: BatchRecord[] = [];
  for (let i = 0; i < count; i++) records.push(readRecord(r, header.baseOffset, header.baseTimestamp, logAppendTime));
  if (r.remaining !== 0) {
    throw new CorruptRecordError('invalid-record-count', `${r.remaining} bytes left after the batch's ${count} records`, r.offset);
  }
  const control = header.isControl && records.length > 0 ? decodeControlRecordKey(records[0]!.key) : null;
  return { header, records, control, allocated: r.allocated };
}

function readerFor(buf: Buffer, header: RecordBatchHeader, body: Buffer): Reader {
  if (header.compression === CompressionType.None) return new Reader(buf, RECORDS_OFFSET, header.sizeInBytes);
  const r = new Reader(body);
  r.allocated += body.length;
  return r;
}

/**
 * Decodes the batch that starts at `buf[0]` (bytes after it are ignored): header checks
 * and CRC, decompression bounded by `maxDecompressedBytes`, then every record. Throws
 * CorruptRecordError for batch-level faults and ProtocolDecodeError for malformed records.
 */
export function decodeRecordBatch(buf: Buffer, options?: DecodeRecordsOptions): DecodedRecordBatch {
  const { header, section } = prepare(buf, options);
  return parseRecords(header, readerFor(buf, header, decompress(header.compression, section, options)));
}

export function decodeRecords(buf: Buffer, options?: DecodeRecordsOptions): BatchRecord[] {
  return decodeRecordBatch(buf, options).records;
}

/** As decodeRecordBatch, with gzip and lz4 inflated off the main thread. */
export async function decodeRecordBatchAsync(buf: Buffer, options?: DecodeRecordsOptions): Promise<DecodedRecordBatch> {
  const { header, section } = prepare(buf, options);
  const body = await decompressAsync(header.compression, section, options);
  return parseRecords(header, readerFor(buf, header, body));
}
