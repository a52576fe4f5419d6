/** KafkaJS's consumer types: configuration, run options, the message and batch handed to handlers. */
import type { RetryOptions } from './config.js';
import type { Assigner, AssignerCluster } from './assigners.js';
import type { KafkaJSLogger } from './logger.js';

export interface IHeaders {
  [key: string]: Buffer | string | (Buffer | string)[] | undefined;
}

export interface KafkaMessage {
  /** The message format: 2 (record batches), the only one Brook reads. */
  magicByte?: number;
  isControlRecord?: boolean;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  attributes: number;
  offset: string;
  size: number;
  headers?: IHeaders;
}

export interface TopicPartitionOffsetAndMetadata {
  topic: string;
  partition: number;
  offset: string;
  metadata?: string | null;
}

export interface OffsetsByTopicPartition {
  topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
}

/**
 * A KafkaJS partition assigner factory (custom-assigner.ts). PartitionAssigners.roundRobin is
 * marked `brookAssignor`: brook/kafkajs runs Brook's own KafkaJsRoundRobinAssignor for it.
 */
export type PartitionAssigner = ((config: { cluster: AssignerCluster; groupId: string; logger: KafkaJSLogger }) => Assigner) & { brookAssignor?: string };

export interface ConsumerConfig {
  groupId: string;
  partitionAssigners?: PartitionAssigner[];
  /**
   * Beyond KafkaJS: 'consumer' joins with Kafka's consumer group protocol (KIP-848: the broker
   * assigns, incrementally; no partitionAssigners, sessionTimeout or heartbeatInterval, which the
   * broker's group configs decide). Default 'classic', KafkaJS's protocol.
   */
  groupProtocol?: 'classic' | 'consumer';
  /** With groupProtocol 'consumer': the broker's assignor to use (`uniform`, `range`); default the broker's. */
  groupRemoteAssignor?: string;
  metadataMaxAge?: number;
  sessionTimeout?: number;
  rebalanceTimeout?: number;
  heartbeatInterval?: number;
  maxBytesPerPartition?: number;
  minBytes?: number;
  maxBytes?: number;
  maxWaitTimeInMs?: number;
  retry?: RetryOptions;
  allowAutoTopicCreation?: boolean;
  maxInFlightRequests?: number;
  readUncommitted?: boolean;
  rackId?: string;
}

export interface Batch {
  topic: string;
  partition: number;
  highWatermark: string;
  messages: KafkaMessage[];
  isEmpty(): boolean;
  firstOffset(): string | null;
  lastOffset(): string;
  offsetLag(): string;
  offsetLagLow(): string;
}

export interface EachMessagePayload {
  topic: string;
  partition: number;
  message: KafkaMessage;
  heartbeat(): Promise<void>;
  pause(): () => void;
}

export interface EachBatchPayload {
  batch: Batch;
  resolveOffset(offset: string): void;
  heartbeat(): Promise<void>;
  pause(): () => void;
  commitOffsetsIfNecessary(offsets?: OffsetsByTopicPartition): Promise<void>;
  uncommittedOffsets(): OffsetsByTopicPartition;
  isRunning(): boolean;
  isStale(): boolean;
}

export interface ConsumerRunConfig {
  autoCommit?: boolean;
  autoCommitInterval?: number | null;
  autoCommitThreshold?: number | null;
  eachBatchAutoResolve?: boolean;
  partitionsConsumedConcurrently?: number;
  eachBatch?: (payload: EachBatchPayload) => Promise<void>;
  eachMessage?: (payload: EachMessagePayload) => Promise<void>;
}

export interface ConsumerSubscribeTopics {
  topics: (string | RegExp)[];
  fromBeginning?: boolean;
}

export interface ConsumerSubscribeTopic {
  topic: string | RegExp;
  fromBeginning?: boolean;
}

export const CONSUMER_EVENTS = Object.freeze({
  HEARTBEAT: 'consumer.heartbeat',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
  GROUP_JOIN: 'consumer.group_join',
  FETCH: 'consumer.fetch',
  FETCH_START: 'consumer.fetch_start',
  START_BATCH_PROCESS: 'consumer.start_batch_process',
  END_BATCH_PROCESS: 'consumer.end_batch_process',
  CONNECT: 'consumer.connect',
  DISCONNECT: 'consumer.disconnect',
  STOP: 'consumer.stop',
  CRASH: 'consumer.crash',
  REBALANCING: 'consumer.rebalancing',
  RECEIVED_UNSUBSCRIBED_TOPICS: 'consumer.received_unsubscribed_topics',
  REQUEST: 'consumer.network.request',
  REQUEST_TIMEOUT: 'consumer.network.request_timeout',
  REQUEST_QUEUE_SIZE: 'consumer.network.request_queue_size',
});
