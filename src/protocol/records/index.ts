export { crc32c } from './crc32c.js';
export { CorruptRecordError, type CorruptRecordReason } from './errors.js';
export {
  compress,
  compressAsync,
  CompressionType,
  compressionTypeFromId,
  decompress,
  decompressAsync,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  type CompressOptions,
  type DecompressOptions,
} from './compression.js';
export { compressSnappyRaw, compressSnappyXerial, decompressSnappy, isXerialFramed, XERIAL_BLOCK_SIZE } from './snappy.js';
export { LZ4_FRAME_MAGIC } from './lz4.js';
export {
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
  HEADER_SIZE,
  isLegacyMagic,
  iterateBatches,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V0,
  MAGIC_V1,
  MAGIC_V2,
  MAX_TIMESTAMP_OFFSET,
  MIN_BATCH_LENGTH,
  NO_PARTITION_LEADER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  NO_TIMESTAMP,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  readBatchHeader,
  readMagic,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
  TIMESTAMP_TYPE_MASK,
  TimestampType,
  TRANSACTIONAL_FLAG_MASK,
  validateBatch,
  type RecordBatchHeader,
  type RecordBatchView,
} from './record-batch.js';
export {
  batchAttributes,
  rewriteBaseOffset,
  setLogAppendTime,
  setMaxTimestamp,
  setPartitionLeaderEpoch,
  updateBatchCrc,
  writeBatchHeader,
  type BatchHeaderFields,
} from './batch-header-writer.js';
export { MIN_RECORD_SIZE, type BatchRecord, type RecordHeader, type RecordHeaderInput, type RecordInput } from './record.js';
export {
  ControlRecordType,
  decodeControlRecordKey,
  decodeEndTxnMarker,
  encodeControlRecordKey,
  encodeEndTxnMarker,
  type ControlRecordKey,
  type EndTxnMarker,
} from './control-record.js';
export {
  decodeRecordBatch,
  decodeRecordBatchAsync,
  decodeRecords,
  encodeRecordBatch,
  encodeRecordBatchAsync,
  type DecodedRecordBatch,
  type DecodeRecordsOptions,
  type RecordBatchInput,
} from './batch-codec.js';
export { forEachRecordSpan, forEachTimestampDelta, type RecordSpanVisitor } from './record-views.js';
export { encodeEndTxnMarkerBatch, type EndTxnMarkerBatchInput } from './end-txn-marker-batch.js';
