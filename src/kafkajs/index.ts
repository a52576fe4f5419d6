/**
 * brook/kafkajs: KafkaJS 2.2's API over Brook's client. A KafkaJS application moves by
 * changing its import (`import { Kafka } from 'brook/kafkajs'`); docs/KAFKAJS.md lists what
 * is supported and what differs.
 */
export { Kafka } from './kafka.js';
export type { KafkaConfig, RetryOptions, SASLOptions, BrokersFunction } from './config.js';
export { logLevel, consoleLogCreator, type logCreator, type LogEntry, type KafkaJSLogger } from './logger.js';
export { CompressionTypes, CompressionCodecs, KafkaJSProducer, KafkaJSTransaction, PRODUCER_EVENTS, type Message, type ProducerRecord, type ProducerBatch, type ProducerConfig, type RecordMetadata, type TopicMessages, type Offsets, type TopicOffsets } from './producer.js';
export type { KafkaJSProducer as Producer, KafkaJSTransaction as Transaction } from './producer.js';
export { KafkaJSConsumer } from './consumer.js';
export { PartitionAssigners } from './assigners.js';
export type { KafkaJSConsumer as Consumer } from './consumer.js';
export * from './consumer-types.js';
export { KafkaJSAdmin, ConfigResourceTypes, ConfigSource, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes, ADMIN_EVENTS, type ITopicConfig, type GroupDescription } from './admin.js';
export type { KafkaJSAdmin as Admin } from './admin.js';
export { Partitioners, DefaultPartitioner, LegacyPartitioner, JavaCompatiblePartitioner, legacyMurmur2, type ICustomPartitioner, type PartitionerArgs, type PartitionMetadata } from './partitioners.js';
export type { InstrumentationEvent, RemoveInstrumentationEventListener } from './events.js';
export * from './errors.js';
export { AssignerProtocol, MemberMetadata, MemberAssignment } from './assigner-protocol.js';
