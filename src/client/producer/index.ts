export { Producer, type ProducerRecord, type TransactionCallOptions } from './producer.js';
export type { TransactionState } from './transactions.js';
export type { ConsumerGroupMetadata, OffsetInTransaction } from './transaction-requests.js';
export type { RecordMetadata } from './producer-batch.js';
export type { RecordCallback } from './delivery.js';
export type { ProducerOptions, CompressionName, Acks } from './options.js';
export type { ProducerMetrics } from './metrics.js';
export type { PartitionerFunction, PartitionerInput } from './partitioner.js';
export type { Bytes, HeadersInput } from './record-writer.js';
export { murmur2, toPositive, partitionForKey } from './murmur2.js';
export {
  BufferExhaustedError, DeliveryTimeoutError, IllegalStateError, InvalidPartitionError, MetadataTimeoutError, ProducerClosedError, ProducerFencedError,
  RecordTooLargeError, SerializationError, TransactionAbortableError, TransactionAbortedError,
} from './errors.js';
