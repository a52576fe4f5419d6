import { CompressionType, compressionTypeFromId } from './compression.js';
import { crc32c } from './crc32c.js';
import { CorruptRecordError } from './errors.js';

/*
 * Magic v2 record batch header (KIP-98), big-endian:
 *
 *   baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 | magic int8 |
 *   crc uint32 | attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 |
 *   maxTimestamp int64 | producerId int64 | producerEpoch int16 | baseSequence int32 |
 *   recordCount int32 | records...
 *
 * batchLength counts the bytes after itself. The CRC (CRC-32C) covers attributes to the
 * end of the batch, so the broker can rewrite baseOffset and partitionLeaderEpoch
 * without recomputing it.
 */
export const BASE_OFFSET_OFFSET = 0;
export const LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;
export const RECORDS_OFFSET = 61;
export const HEADER_SIZE = RECORDS_OFFSET;
/** baseOffset and batchLength: the bytes not counted by batchLength. */
export const LOG_OVERHEAD = 12;
/** The smallest legal batchLength of a v2 batch (a header with no records). */
export const MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD;
/** The smallest legal size field of a v0 message, the smallest entry of any magic. */
const MIN_LEGACY_MESSAGE_LENGTH = 14;

export const MAGIC_V0 = 0;
export const MAGIC_V1 = 1;
export const MAGIC_V2 = 2;

export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

export enum TimestampType {
  CreateTime = 0,
  LogAppendTime = 1,
}

/** Kafka's sentinels for "no producer id / epoch / sequence" and "no timestamp". */
export const NO_PRODUCER_ID = -1n;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;
export const NO_TIMESTAMP = -1n;

export interface RecordBatchHeader {
  baseOffset: bigint;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  compression: CompressionType;
  timestampType: TimestampType;
  isTransactional: boolean;
  isControl: boolean;
  hasDeleteHorizonMs: boolean;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
  /** baseOffset + lastOffsetDelta: where the next batch's offsets begin, minus one. */
  lastOffset: bigint;
  /** LOG_OVERHEAD + batchLength: the batch's whole size on the wire. */
  sizeInBytes: number;
}

/** The magic byte is at the same place in every message format, so any entry can be classified. */
export function readMagic(buf: Buffer, offset = 0): number {
  if (buf.length - offset <= MAGIC_OFFSET) {
    throw new CorruptRecordError('truncated', 'batch too short to hold a magic byte', offset);
  }
  return buf.readInt8(offset + MAGIC_OFFSET);
}

/** Magic v0/v1 message sets: recognised so callers can skip or refuse them, never decoded. */
export function isLegacyMagic(magic: number): boolean {
  return magic === MAGIC_V0 || magic === MAGIC_V1;
}

/**
 * Parses the 61-byte header only; the records section is not looked at and may be
 * absent from `buf`. Checks the magic and that batchLength can hold the header.
 */
export function readBatchHeader(buf: Buffer, offset = 0): RecordBatchHeader {
  // The magic first: a legacy message may be shorter than a v2 header, and "unsupported
  // magic" is the answer its sender needs.
  const magic = readMagic(buf, offset);
  if (magic !== MAGIC_V2) {
    throw new CorruptRecordError('unsupported-magic', `unsupported record batch magic ${magic}`, offset + MAGIC_OFFSET);
  }
  if (buf.length - offset < HEADER_SIZE) {
    throw new CorruptRecordError('truncated', `record batch header needs ${HEADER_SIZE} bytes, ${buf.length - offset} remain`, offset);
  }
  const batchLength = buf.readInt32BE(offset + LENGTH_OFFSET);
  if (batchLength < MIN_BATCH_LENGTH) {
    throw new CorruptRecordError('invalid-length', `record batch length ${batchLength} is below the minimum ${MIN_BATCH_LENGTH}`, offset + LENGTH_OFFSET);
  }
  const attributes = buf.readInt16BE(offset + ATTRIBUTES_OFFSET);
  const baseOffset = buf.readBigInt64BE(offset + BASE_OFFSET_OFFSET);
  const lastOffsetDelta = buf.readInt32BE(offset + LAST_OFFSET_DELTA_OFFSET);
  return {
    baseOffset,
    batchLength,
    partitionLeaderEpoch: buf.readInt32BE(offset + PARTITION_LEADER_EPOCH_OFFSET),
    magic,
    crc: buf.readUInt32BE(offset + CRC_OFFSET),
    attributes,
    // Ids 5-7 pass through here; validateBatch and the decoder refuse them.
    compression: (attributes & COMPRESSION_CODEC_MASK) as CompressionType,
    timestampType: attributes & TIMESTAMP_TYPE_MASK ? TimestampType.LogAppendTime : TimestampType.CreateTime,
    isTransactional: (attributes & TRANSACTIONAL_FLAG_MASK) !== 0,
    isControl: (attributes & CONTROL_FLAG_MASK) !== 0,
    hasDeleteHorizonMs: (attributes & DELETE_HORIZON_FLAG_MASK) !== 0,
    lastOffsetDelta,
    baseTimestamp: buf.readBigInt64BE(offset + BASE_TIMESTAMP_OFFSET),
    maxTimestamp: buf.readBigInt64BE(offset + MAX_TIMESTAMP_OFFSET),
    producerId: buf.readBigInt64BE(offset + PRODUCER_ID_OFFSET),
    producerEpoch: buf.readInt16BE(offset + PRODUCER_EPOCH_OFFSET),
    baseSequence: buf.readInt32BE(offset + BASE_SEQUENCE_OFFSET),
    recordCount: buf.readInt32BE(offset + RECORDS_COUNT_OFFSET),
    lastOffset: baseOffset + BigInt(lastOffsetDelta),
    sizeInBytes: LOG_OVERHEAD + batchLength,
  };
}

function checkInBuffer(buf: Buffer, offset: number, header: RecordBatchHeader): RecordBatchHeader {
  if (header.sizeInBytes > buf.length - offset) {
    throw new CorruptRecordError('truncated', `record batch of ${header.sizeInBytes} bytes, ${buf.length - offset} remain`, offset + LENGTH_OFFSET);
  }
  return header;
}

/** The CRC a v2 batch should carry, computed over attributes..end. */
export function computeBatchCrc(buf: Buffer, offset: number, sizeInBytes: number): number {
  return crc32c(buf.subarray(offset + ATTRIBUTES_OFFSET, offset + sizeInBytes));
}

/**
 * What the broker does to a produced batch before accepting it (Java's
 * DefaultRecordBatch.ensureValid): magic, length within the buffer, CRC, a sane record
 * count, a known codec. Records are not decoded. `verifyCrc: false` skips only the CRC
 * (for a consumer with check.crcs=false).
 */
export function validateBatch(buf: Buffer, offset = 0, options?: { verifyCrc?: boolean }): RecordBatchHeader {
  const header = checkInBuffer(buf, offset, readBatchHeader(buf, offset));
  const computed = options?.verifyCrc === false ? header.crc : computeBatchCrc(buf, offset, header.sizeInBytes);
  if (computed !== header.crc) {
    throw new CorruptRecordError('crc-mismatch', `record batch is corrupt (stored crc ${header.crc}, computed crc ${computed})`, offset + CRC_OFFSET);
  }
  if (header.recordCount < 0) {
    throw new CorruptRecordError('invalid-record-count', `negative record count ${header.recordCount}`, offset + RECORDS_COUNT_OFFSET);
  }
  compressionTypeFromId(header.compression, offset + ATTRIBUTES_OFFSET);
  return header;
}

export interface RecordBatchView {
  /** Where the batch starts in the blob it came from. */
  position: number;
  /** The whole batch (or legacy message), a view of the blob: no copy. */
  buffer: Buffer;
  baseOffset: bigint;
  magic: number;
}

/**
 * Splits a records blob (Produce request, Fetch response, log segment) into batch views.
 * A trailing batch cut short is not an error: brokers truncate Fetch responses at
 * fetch.max.bytes and consumers ignore the partial tail (compare the last view's end
 * with the blob's length to see whether one was dropped). A length too small for any
 * message format is corruption. Legacy (v0/v1) entries are yielded with their magic.
 */
export function* iterateBatches(records: Buffer): Generator<RecordBatchView, void, undefined> {
  let position = 0;
  while (records.length - position >= LOG_OVERHEAD) {
    const length = records.readInt32BE(position + LENGTH_OFFSET);
    if (length < MIN_LEGACY_MESSAGE_LENGTH) {
      throw new CorruptRecordError('invalid-length', `record batch length ${length} is below the minimum ${MIN_LEGACY_MESSAGE_LENGTH}`, position + LENGTH_OFFSET);
    }
    const size = LOG_OVERHEAD + length;
    if (size > records.length - position) return;
    const magic = records.readInt8(position + MAGIC_OFFSET);
    if (magic === MAGIC_V2 && length < MIN_BATCH_LENGTH) {
      throw new CorruptRecordError('invalid-length', `record batch length ${length} is below the minimum ${MIN_BATCH_LENGTH}`, position + LENGTH_OFFSET);
    }
    yield {
      position,
      buffer: records.subarray(position, position + size),
      baseOffset: records.readBigInt64BE(position + BASE_OFFSET_OFFSET),
      magic,
    };
    position += size;
  }
}

/** The size of the v2 batch at `offset`, checked to lie within `buf`, for in-place edits. */
export function checkedBatchSize(buf: Buffer, offset: number): number {
  return checkInBuffer(buf, offset, readBatchHeader(buf, offset)).sizeInBytes;
}
