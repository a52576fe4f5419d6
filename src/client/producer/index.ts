export { Producer, type ProducerRecord } from './producer.js';
export type { RecordMetadata } from './producer-batch.js';
export type { RecordCallback } from './delivery.js';
export type { ProducerOptions, CompressionName, Acks } from './options.js';
export type { ProducerMetrics } from './metrics.js';
export type { PartitionerFunction, PartitionerInput } from './partitioner.js';
export type { Bytes, HeadersInput } from './record-writer.js';
export { murmur2, toPositive, partitionForKey } from './murmur2.js';
export {
  BufferExhaustedError, DeliveryTimeoutError, InvalidPartitionError, MetadataTimeoutError, ProducerClosedError, RecordTooLargeError, SerializationError,
} from './errors.js';
