/**
 * The checks Kafka 4.x makes on one partition's records in a Produce request before it
 * assigns offsets, with the same error codes, in the same order:
 *   1. ProduceRequest.validateRecords (v3+): at least one batch, magic v2, exactly one batch
 *      → INVALID_RECORD. A partial trailing batch is ignored (UnifiedLog.trimInvalidBytes).
 *   2. UnifiedLog.analyzeAndValidateRecords: client base offset must be 0 → INVALID_RECORD;
 *      size > max.message.bytes → MESSAGE_TOO_LARGE; bad CRC or length → CORRUPT_MESSAGE.
 *   3. LogValidator.validateBatch (client origin): lastOffsetDelta/recordCount consistency,
 *      no control batches, idempotent batches carry a sequence → INVALID_RECORD.
 *   4. LogValidator.validateTimestamp, on every record → INVALID_TIMESTAMP.
 *   5. UnifiedLog.append: batch larger than segment.bytes → RECORD_LIST_TOO_LARGE.
 * On CreateTime topics the records' timestamp deltas are read (a compressed batch is
 * decompressed for it, as Kafka's LogValidator does, keys and values unread) to check each
 * timestamp and to find the batch's true max timestamp, which the log then stores in the
 * header: producers such as KafkaJS write a max timestamp from explicitly given timestamps
 * only, and ListOffsets by timestamp and the time index rely on it. Records whose bytes do
 * not parse → INVALID_RECORD (Kafka's InvalidRecordException); a payload that does not
 * decompress → CORRUPT_MESSAGE. Producer state is checked afterwards by the log.
 */
import { ErrorCode } from '../protocol/errors.js';
import {
  CorruptRecordError,
  decompress,
  CompressionType,
  forEachTimestampDelta,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  MIN_BATCH_LENGTH,
  NO_TIMESTAMP,
  RECORDS_OFFSET,
  TimestampType,
  validateBatch,
  type RecordBatchHeader,
} from '../protocol/records/index.js';
import { ProtocolDecodeError } from '../protocol/primitives/index.js';
import { StorageError } from './errors.js';
import type { LogConfig } from './topic-configs.js';
import type { AppendOrigin } from './types.js';

/** Kafka's LegacyRecord.RECORD_OVERHEAD_V0: no entry of any magic is shorter. */
const MIN_ENTRY_LENGTH = 14;
/** Kafka's HEADER_SIZE_UP_TO_MAGIC: below this the magic byte cannot be read. */
const HEADER_UP_TO_MAGIC = MAGIC_OFFSET + 1;

/**
 * Kafka's ByteBufferLogInputStream.nextBatch: the size of the complete entry at `position`,
 * or -1 when the bytes left do not hold one. Throws CORRUPT_MESSAGE for an impossible
 * length or magic.
 */
function entrySizeAt(records: Buffer, position: number): number {
  const remaining = records.length - position;
  if (remaining < LOG_OVERHEAD) return -1;
  const length = records.readInt32BE(position + LENGTH_OFFSET);
  if (length < MIN_ENTRY_LENGTH) throw corrupt(`record size ${length} is less than the minimum record overhead (${MIN_ENTRY_LENGTH})`);
  if (remaining < HEADER_UP_TO_MAGIC) return -1;
  const magic = records.readInt8(position + MAGIC_OFFSET);
  if (magic < 0 || magic > MAGIC_V2) throw corrupt(`invalid magic found in record: ${magic}`);
  return remaining < LOG_OVERHEAD + length ? -1 : LOG_OVERHEAD + length;
}

function corrupt(message: string): StorageError {
  return new StorageError(ErrorCode.CORRUPT_MESSAGE, message);
}

function invalidRecord(message: string): StorageError {
  return new StorageError(ErrorCode.INVALID_RECORD, message);
}

/** Maps the records module's batch faults onto the codes Kafka answers with. */
function fromCorruptRecord(err: CorruptRecordError): StorageError {
  if (err.reason === 'invalid-record-count') return invalidRecord(err.message);
  return corrupt(err.message);
}

/** A batch that passed validateAppend. */
export interface ValidatedBatch {
  /** As produced; `sizeInBytes` says how much of the records to append. */
  readonly header: RecordBatchHeader;
  /**
   * Kafka's maxBatchTimestamp on a CreateTime topic: the largest record timestamp (never
   * below NO_TIMESTAMP), which may differ from the header's. Unused on LogAppendTime topics.
   */
  readonly maxTimestamp: bigint;
}

/**
 * Validates `records` as the single batch of a produce request for a partition with
 * `config`. Throws StorageError; changes nothing.
 */
export function validateAppend(records: Buffer, config: LogConfig, origin: AppendOrigin, nowMs: number): ValidatedBatch {
  const size = validateProduceRecords(records);
  // DefaultRecordBatch.isValid: a v2 batch shorter than its header fails validation as corrupt.
  if (records.readInt32BE(LENGTH_OFFSET) < MIN_BATCH_LENGTH) throw corrupt(`record batch of ${size} bytes is shorter than a batch header`);
  if (origin === 'client' && records.readBigInt64BE(0) !== 0n) {
    throw invalidRecord(`the base offset of a produced record batch must be 0, not ${records.readBigInt64BE(0)}`);
  }
  if (size > config.maxMessageBytes) {
    throw new StorageError(ErrorCode.MESSAGE_TOO_LARGE,
      `the record batch is ${size} bytes, more than the maximum configured (max.message.bytes) of ${config.maxMessageBytes}`);
  }
  let header: RecordBatchHeader;
  try {
    header = validateBatch(records, 0);
  } catch (err) {
    if (err instanceof CorruptRecordError) throw fromCorruptRecord(err);
    throw err;
  }
  checkBatch(header, origin);
  const maxTimestamp = checkTimestamps(records, header, config, nowMs);
  if (size > config.segmentBytes) {
    throw new StorageError(ErrorCode.RECORD_LIST_TOO_LARGE,
      `the record batch is ${size} bytes, more than the maximum configured segment size of ${config.segmentBytes}`);
  }
  return { header, maxTimestamp };
}

/**
 * Step 1 alone (ProduceRequest.validateRecords), which Kafka runs in the request handler
 * before the log is involved: at least one entry, magic v2, exactly one batch. Returns the
 * size of the batch; throws StorageError(INVALID_RECORD) or (for an impossible length or
 * magic) CORRUPT_MESSAGE.
 */
export function validateProduceRecords(records: Buffer): number {
  const size = entrySizeAt(records, 0);
  if (size < 0) throw invalidRecord('produce requests must have at least one record batch per partition');
  if (records.readInt8(MAGIC_OFFSET) !== MAGIC_V2) throw invalidRecord('produce requests may only contain record batches with magic version 2');
  if (entrySizeAt(records, size) >= 0) throw invalidRecord('produce requests may contain exactly one record batch per partition');
  return size;
}

function checkBatch(header: RecordBatchHeader, origin: AppendOrigin): void {
  if (header.lastOffsetDelta < 0) {
    throw invalidRecord(`batch has an invalid offset range: last offset delta ${header.lastOffsetDelta}`);
  }
  if (origin !== 'client') return;
  if (header.recordCount <= 0) throw invalidRecord(`invalid reported count for record batch: ${header.recordCount}`);
  if (header.lastOffsetDelta + 1 !== header.recordCount) {
    throw invalidRecord(`inconsistent batch offset range [0, ${header.lastOffsetDelta}] and count of records ${header.recordCount}`);
  }
  if (header.isControl) throw invalidRecord('clients are not allowed to write control records');
  if (header.producerId >= 0n && header.baseSequence < 0) {
    throw invalidRecord(`invalid sequence number ${header.baseSequence} in record batch with producerId ${header.producerId}`);
  }
}

/** Checks the records' timestamps; returns the batch's max timestamp (see ValidatedBatch). */
function checkTimestamps(records: Buffer, header: RecordBatchHeader, config: LogConfig, nowMs: number): bigint {
  if (config.timestampType === TimestampType.LogAppendTime) {
    if (header.timestampType === TimestampType.LogAppendTime) {
      throw new StorageError(ErrorCode.INVALID_TIMESTAMP, 'producers must not set the timestamp type to LogAppendTime');
    }
    return header.maxTimestamp;
  }
  const now = BigInt(nowMs);
  // A LogAppendTime-flagged batch gives every record its max timestamp.
  if (header.timestampType === TimestampType.LogAppendTime) {
    checkTimestamp(header.maxTimestamp, now, config);
    return header.maxTimestamp;
  }
  const range = timestampDeltaRange(records, header);
  const base = header.baseTimestamp;
  // Every timestamp lies between the smallest and the largest: checking those two checks all.
  if (range.min <= range.max) {
    checkTimestamp(base + BigInt(range.min), now, config);
    checkTimestamp(base + BigInt(range.max), now, config);
  }
  // Kafka's maxBatchTimestamp starts at NO_TIMESTAMP and takes every larger record timestamp.
  const max = range.min <= range.max ? base + BigInt(range.max) : NO_TIMESTAMP;
  return max > NO_TIMESTAMP ? max : NO_TIMESTAMP;
}

interface DeltaRange {
  /** Smallest and largest timestamp delta of the records other than NO_TIMESTAMP ones (min > max: none). */
  min: number;
  max: number;
}

/** The records' timestamp deltas, read from the batch (decompressed first if need be). */
function timestampDeltaRange(records: Buffer, header: RecordBatchHeader): DeltaRange {
  // Records at NO_TIMESTAMP are not bounds-checked (Kafka's validateTimestamp skips them).
  const base = Number(header.baseTimestamp);
  const noTimestampDelta = Number.isSafeInteger(base) ? -1 - base : Number.NaN;
  const range: DeltaRange = { min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY };
  const visit = (delta: number): void => {
    if (delta === noTimestampDelta) return;
    if (delta < range.min) range.min = delta;
    if (delta > range.max) range.max = delta;
  };
  try {
    if (header.compression === CompressionType.None) {
      forEachTimestampDelta(records, RECORDS_OFFSET, header.sizeInBytes, header.recordCount, visit);
    } else {
      const body = decompress(header.compression, records.subarray(RECORDS_OFFSET, header.sizeInBytes));
      forEachTimestampDelta(body, 0, body.length, header.recordCount, visit);
    }
  } catch (err) {
    if (err instanceof CorruptRecordError) throw corrupt(err.message);
    if (err instanceof ProtocolDecodeError) throw invalidRecord(`invalid record in the batch: ${err.message}`);
    throw err;
  }
  return range;
}

function checkTimestamp(timestamp: bigint, now: bigint, config: LogConfig): void {
  if (timestamp === NO_TIMESTAMP) return;
  const diff = now - timestamp;
  if (diff > config.timestampBeforeMaxMs || -diff > config.timestampAfterMaxMs) {
    throw new StorageError(ErrorCode.INVALID_TIMESTAMP,
      `timestamp ${timestamp} is out of range: it must be within [${now - config.timestampBeforeMaxMs}, ${now + config.timestampAfterMaxMs}]`);
  }
}
