import type { CompressionType } from './compression.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  checkedBatchSize,
  COMPRESSION_CODEC_MASK,
  computeBatchCrc,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  DELETE_HORIZON_FLAG_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORDS_COUNT_OFFSET,
  TIMESTAMP_TYPE_MASK,
  TimestampType,
  TRANSACTIONAL_FLAG_MASK,
} from './record-batch.js';

/*
 * Writing a v2 batch header, and the in-place edits a broker makes to a produced batch
 * before appending it: offsets and leader epoch (outside the CRC) and, for
 * LogAppendTime topics, the timestamp (inside it).
 */

/** The header fields a writer chooses; length, magic and CRC follow from the bytes. */
export interface BatchHeaderFields {
  baseOffset: bigint;
  partitionLeaderEpoch: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

export function batchAttributes(flags: {
  compression: CompressionType;
  timestampType: TimestampType;
  isTransactional: boolean;
  isControl: boolean;
  hasDeleteHorizonMs: boolean;
}): number {
  return (
    (flags.compression & COMPRESSION_CODEC_MASK) |
    (flags.timestampType === TimestampType.LogAppendTime ? TIMESTAMP_TYPE_MASK : 0) |
    (flags.isTransactional ? TRANSACTIONAL_FLAG_MASK : 0) |
    (flags.isControl ? CONTROL_FLAG_MASK : 0) |
    (flags.hasDeleteHorizonMs ? DELETE_HORIZON_FLAG_MASK : 0)
  );
}

/**
 * Fills the header of a batch whose records already sit at `offset + RECORDS_OFFSET`
 * and which ends at `offset + sizeInBytes`, then stores the CRC over it all.
 */
export function writeBatchHeader(buf: Buffer, offset: number, sizeInBytes: number, fields: BatchHeaderFields): void {
  buf.writeBigInt64BE(fields.baseOffset, offset + BASE_OFFSET_OFFSET);
  buf.writeInt32BE(sizeInBytes - LOG_OVERHEAD, offset + LENGTH_OFFSET);
  buf.writeInt32BE(fields.partitionLeaderEpoch, offset + PARTITION_LEADER_EPOCH_OFFSET);
  buf.writeInt8(MAGIC_V2, offset + MAGIC_OFFSET);
  buf.writeInt16BE(fields.attributes, offset + ATTRIBUTES_OFFSET);
  buf.writeInt32BE(fields.lastOffsetDelta, offset + LAST_OFFSET_DELTA_OFFSET);
  buf.writeBigInt64BE(fields.baseTimestamp, offset + BASE_TIMESTAMP_OFFSET);
  buf.writeBigInt64BE(fields.maxTimestamp, offset + MAX_TIMESTAMP_OFFSET);
  buf.writeBigInt64BE(fields.producerId, offset + PRODUCER_ID_OFFSET);
  buf.writeInt16BE(fields.producerEpoch, offset + PRODUCER_EPOCH_OFFSET);
  buf.writeInt32BE(fields.baseSequence, offset + BASE_SEQUENCE_OFFSET);
  buf.writeInt32BE(fields.recordCount, offset + RECORDS_COUNT_OFFSET);
  buf.writeUInt32BE(computeBatchCrc(buf, offset, sizeInBytes), offset + CRC_OFFSET);
}

function batchEnd(buf: Buffer, offset: number): number {
  return offset + checkedBatchSize(buf, offset);
}

/** Assigns the batch its log offsets. baseOffset is outside the CRC: nothing else changes. */
export function rewriteBaseOffset(buf: Buffer, offset: number, baseOffset: bigint): void {
  batchEnd(buf, offset);
  buf.writeBigInt64BE(baseOffset, offset + BASE_OFFSET_OFFSET);
}

/** Stamps the leader epoch at append time; outside the CRC as well. */
export function setPartitionLeaderEpoch(buf: Buffer, offset: number, epoch: number): void {
  batchEnd(buf, offset);
  buf.writeInt32BE(epoch, offset + PARTITION_LEADER_EPOCH_OFFSET);
}

/**
 * Sets the timestamp type and maxTimestamp, which the CRC covers, and recomputes the
 * CRC. With LogAppendTime every record's timestamp reads as `maxTimestamp`.
 */
export function setMaxTimestamp(buf: Buffer, offset: number, timestampType: TimestampType, maxTimestamp: bigint): void {
  const end = batchEnd(buf, offset);
  const attributes = buf.readInt16BE(offset + ATTRIBUTES_OFFSET);
  const typeBit = timestampType === TimestampType.LogAppendTime ? TIMESTAMP_TYPE_MASK : 0;
  buf.writeInt16BE((attributes & ~TIMESTAMP_TYPE_MASK) | typeBit, offset + ATTRIBUTES_OFFSET);
  buf.writeBigInt64BE(maxTimestamp, offset + MAX_TIMESTAMP_OFFSET);
  buf.writeUInt32BE(computeBatchCrc(buf, offset, end - offset), offset + CRC_OFFSET);
}

/** The broker's message.timestamp.type=LogAppendTime stamp. */
export function setLogAppendTime(buf: Buffer, offset: number, timestamp: bigint): void {
  setMaxTimestamp(buf, offset, TimestampType.LogAppendTime, timestamp);
}

/** Recomputes and stores the CRC after the caller changed bytes it covers. */
export function updateBatchCrc(buf: Buffer, offset = 0): void {
  const end = batchEnd(buf, offset);
  buf.writeUInt32BE(computeBatchCrc(buf, offset, end - offset), offset + CRC_OFFSET);
}
