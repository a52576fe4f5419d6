/**
 * What the broker asks of storage: a catalog of topics and, per partition, an append-only
 * log of record batches. Two engines implement it: files on disk (the default, durable)
 * and memory (fast tests). Both run the same partition-log logic over a different segment
 * store. The broker never decodes records; storage works on batch headers and stored bytes.
 */
import type { Logger } from '../util/log.js';
import type { FileSystem } from './file-system.js';
import type { AbortedTxn } from './txn-index.js';
import type { IoFaultStats } from './io-faults.js';
import type { HistogramSnapshot } from '../util/histogram.js';
import type { TopicConfigEntry } from './topic-configs.js';

/** Topic-level settings, with Kafka's names and defaults (see `TOPIC_CONFIG_DEFAULTS`). */
export type TopicConfigs = Readonly<Record<string, string>>;

export interface TopicMetadata {
  readonly name: string;
  /** Kafka's topic id, base64url text of 16 bytes. */
  readonly topicId: string;
  readonly partitions: number;
  /** Only the configs set explicitly for this topic; defaults come from the broker. */
  readonly configs: TopicConfigs;
  readonly isInternal: boolean;
}

/**
 * Who is appending, as Kafka's AppendOrigin: a client's Produce request gets every check
 * (base offset 0, no control batches, sequence numbers); the coordinator (Brook's own writes
 * to internal topics) only the structural ones and the producer epoch.
 */
export type AppendOrigin = 'client' | 'coordinator';

export interface AppendOptions {
  /** The broker's clock, used for LogAppendTime, timestamp bounds and segment age. */
  readonly nowMs: number;
  /** Default 'client'. */
  readonly origin?: AppendOrigin;
  /**
   * A transaction marker's transaction version (WriteTxnMarkers v2, KIP-1228; default 0):
   * from 2 its producer epoch must be newer than the producer's (ProducerState.checkMarker).
   */
  readonly transactionVersion?: number;
}

export interface AppendResult {
  /** Offset assigned to the first record of the appended batch. */
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
  /**
   * The append time when the topic uses LogAppendTime, otherwise -1. For a duplicate, as in
   * Kafka, the original batch's (max) timestamp whatever the timestamp type.
   */
  readonly logAppendTimeMs: bigint;
  readonly logStartOffset: bigint;
  /** True when the batch repeated one of its producer's last five: nothing was appended. */
  readonly duplicate: boolean;
  /**
   * Settles when the appended bytes are durable under the flush policy: with 'always' after
   * the fsync that covers them (group commit), otherwise at once. acks=all replies wait for
   * it; acks=1 does not. Rejects with StorageError(KAFKA_STORAGE_ERROR) when the fsync fails.
   * Never an unhandled rejection: ignoring it is fine.
   */
  readonly durable: Promise<void>;
}

export interface ReadOptions {
  /** Return the first batch even when it is larger than `maxBytes` (Kafka's KIP-74). */
  readonly minOneBatch: boolean;
  /**
   * Where the file engine copies the bytes read (default: a new buffer each time), e.g. a
   * `ReadLease` of a response, which must then outlive the use of the result.
   */
  readonly allocate?: (length: number) => Buffer;
  /**
   * isolation_level=read_committed: only batches below the last stable offset, and the
   * aborted transactions overlapping what was read (Kafka's collectAbortedTransactions).
   */
  readonly readCommitted?: boolean;
}

export interface ReadResult {
  /**
   * Whole stored batches, starting with the one that contains the fetch offset (which may
   * hold earlier offsets too, as in Kafka); may be empty. From one segment per call.
   */
  readonly records: Buffer[];
  readonly bytes: number;
  readonly highWatermark: bigint;
  readonly logStartOffset: bigint;
  /** The first offset of the oldest open transaction, else the high watermark. */
  readonly lastStableOffset: bigint;
  /** readCommitted only (else null): the aborted transactions a consumer needs to drop the returned aborted batches. */
  readonly abortedTransactions: AbortedTxn[] | null;
}

export interface OffsetAndTimestamp {
  readonly offset: bigint;
  readonly timestamp: bigint;
}

/** DescribeProducers: one idempotent producer with state in a partition. */
export interface ActiveProducer {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  /** The last sequence of its newest retained data batch; -1 when none (e.g. only control batches). */
  readonly lastSequence: number;
  /** The max timestamp of its newest batch. */
  readonly lastTimestamp: bigint;
  /** The epoch of the coordinator whose marker completed its last transaction here; -1 when none. */
  readonly coordinatorEpoch: number;
  /** The first offset of its open transaction in this partition; -1 when none. */
  readonly currentTxnStartOffset: bigint;
}

/** What DeleteRecords did to a partition. */
export interface DeleteRecordsResult {
  /** The log start offset now (Kafka's low watermark of a single replica). */
  readonly logStartOffset: bigint;
  /**
   * Settles when the new log start offset is durable (file engine: its checkpoint file);
   * rejects with the write's error. Never an unhandled rejection.
   */
  readonly durable: Promise<void>;
}

export interface SegmentInfo {
  readonly baseOffset: bigint;
  readonly sizeInBytes: number;
}

/** One partition's log. All offsets are absolute. */
export interface PartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly logStartOffset: bigint;
  /** Next offset to be assigned. */
  readonly logEndOffset: bigint;
  /** Single node: every appended record is "replicated", so this equals the log end offset. */
  readonly highWatermark: bigint;
  /**
   * Kafka's last stable offset: the first offset of the oldest open transaction (never
   * below the log start offset), or the high watermark when none is open.
   */
  readonly lastStableOffset: bigint;
  /** Bytes in all segments. */
  readonly sizeInBytes: number;

  /**
   * Validates (one magic v2 batch, lengths, CRC, size, timestamps, producer sequence) and
   * appends one produce request's records for this partition, rewriting the base offset and
   * leader epoch in place (and the timestamp for LogAppendTime topics).
   * Throws `StorageError` with a Kafka error code on rejection; nothing is appended then.
   * A duplicate of one of a producer's last five batches is not appended again: the
   * result carries the offsets it got the first time.
   */
  append(records: Buffer, options: AppendOptions): AppendResult;

  /** Throws `StorageError(OFFSET_OUT_OF_RANGE)` outside [logStartOffset, logEndOffset]. */
  read(fetchOffset: bigint, maxBytes: number, options: ReadOptions): ReadResult;

  /**
   * ListOffsets by timestamp, as Kafka: the first record (not batch) whose timestamp is
   * >= `timestampMs`, with that record's timestamp; null when there is none.
   */
  offsetForTimestamp(timestampMs: bigint): OffsetAndTimestamp | null;

  /**
   * ListOffsets MAX_TIMESTAMP, as Kafka: the first record carrying the largest timestamp
   * in the log, or null when the log is empty.
   */
  maxTimestamp(): OffsetAndTimestamp | null;

  /** The segments, oldest first (diagnostics and tests). */
  segments(): SegmentInfo[];

  /**
   * DeleteRecords, as Kafka's Partition.deleteRecordsOnLeader: moves the log start offset up
   * to `offset` (-1: the high watermark); an offset at or below it changes nothing. Reads
   * below it fail with OFFSET_OUT_OF_RANGE at once; the segments wholly below it go at the
   * next retention pass (`enforceRetention`), whatever the cleanup policy, as in Kafka.
   * Throws `StorageError(POLICY_VIOLATION)` unless cleanup.policy includes delete, and
   * `StorageError(OFFSET_OUT_OF_RANGE)` for an offset below -1 or above the high watermark.
   */
  deleteRecords(offset: bigint): DeleteRecordsResult;

  /** DescribeProducers: the producers whose state this partition keeps (not yet expired), by producer id. */
  activeProducers(): ActiveProducer[];

  /**
   * Whether `producerId` at `producerEpoch` has an open transaction here (Kafka's
   * UnifiedLog.hasOngoingTransaction): its next transactional batch needs no verification.
   */
  hasOngoingTransaction(producerId: bigint, producerEpoch: number): boolean;
}

/** DescribeLogDirs: the directory the logs live in and its file system's size. */
export interface LogDirInfo {
  /** The file engine's data directory, absolute; '(memory)' for the memory engine. */
  readonly path: string;
  /** Bytes of the file system (statfs), -1 when unknown (memory engine, statfs failed), as Kafka's UNKNOWN_VOLUME_BYTES. */
  readonly totalBytes: bigint;
  /** Bytes available to this process (statfs f_bavail), -1 when unknown. */
  readonly usableBytes: bigint;
}

/**
 * When appended data is fsynced. 'always': an append's `durable` settles after the fsync
 * that covers it, one fsync round shared by all concurrent appends (group commit).
 * `{ intervalMs }`: dirty files are fsynced every intervalMs and `durable` settles at once
 * (Kafka's flush.ms semantics). 'never': the OS decides; fsync only at flush()/close().
 * Rolled segments are fsynced under every policy before recovery skips them.
 */
export type FlushPolicy = 'always' | 'never' | { readonly intervalMs: number };

export interface StorageOptions {
  /** File engine only; default 'always'. */
  readonly flush?: FlushPolicy;
  /** Broker-level defaults for topic configs, by topic config name (see `topicDefaultsFromBrokerConfig`). */
  readonly topicDefaults?: TopicConfigs;
  /**
   * This broker's node id: its dynamic broker configs (resource name = the id) apply over the
   * cluster-wide ones (resource name ''). Default 1.
   */
  readonly nodeId?: number;
  readonly log?: Logger;
  /** Wall clock for work outside appends (producer expiry at open); default Date.now. */
  readonly clock?: () => number;
  /** Kafka's producer.id.expiration.ms (default one day): idle producers are forgotten. */
  readonly producerIdExpirationMs?: number;
  /** File engine only: the file system it works through (default: node:fs); tests inject faults here. */
  readonly fileSystem?: FileSystem;
  /**
   * Where the log cleaner reads, filters and writes segments of the file engine: 'worker'
   * (default) in a worker thread, through `fileSystem` rebuilt there (`FileSystem.forThread`;
   * a file system without it makes the cleaner run inline); 'inline' on the event loop. The
   * memory engine always cleans inline.
   */
  readonly cleanerThread?: 'worker' | 'inline';
}

export interface StorageStats extends IoFaultStats {
  /** fsync/fdatasync calls made (files and directories). */
  readonly fsyncs: number;
  /** Group-commit rounds: each fsyncs every dirty file once, in parallel. */
  readonly flushRounds: number;
  /**
   * fsyncs that failed: of appended data (each takes its partition offline until it
   * recovered), or of a segment the log cleaner wrote (that clean is abandoned).
   */
  readonly fsyncErrors: number;
  /**
   * Seconds each group-commit round took, its fsyncs running in parallel: what an acks=all
   * append (and a group coordinator write) waits for the disk. Empty for the memory engine.
   */
  readonly flushRoundSeconds: HistogramSnapshot;
}

export interface LogCleanerStats {
  readonly partitionsCleaned: number;
  readonly recordsRemoved: number;
  /** Sizes of the cleaned partitions before and after. */
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

export interface CreateTopicOptions {
  readonly isInternal?: boolean;
  /** Validate and return what would be created, changing nothing (CreateTopics validateOnly). */
  readonly validateOnly?: boolean;
  /**
   * The topic id to give it instead of a random one (base64url of 16 bytes, not in use):
   * differential tests give Brook's topics Kafka's ids, on which assignors' orders depend.
   */
  readonly topicId?: string;
}

export interface Storage {
  /** Persisted at first start; Metadata and DescribeCluster report it. */
  readonly clusterId: string;
  readonly stats: StorageStats;
  /**
   * The broker-level topic defaults in force (validated): the static ones (StorageOptions)
   * under the dynamic broker configs.
   */
  readonly topicDefaults: TopicConfigs;
  /** The static broker-level topic defaults (StorageOptions.topicDefaults). */
  readonly staticTopicDefaults: TopicConfigs;

  /** Throws `StorageError(TOPIC_ALREADY_EXISTS | INVALID_PARTITIONS | INVALID_TOPIC_EXCEPTION | INVALID_CONFIG)`. */
  createTopic(name: string, partitions: number, configs?: TopicConfigs, options?: CreateTopicOptions): TopicMetadata;
  /** The checks of createTopic without creating anything (CreateTopics validateOnly); throws the same errors. */
  validateTopic(name: string, partitions: number, configs?: TopicConfigs, options?: { isInternal?: boolean }): void;
  /** Throws `StorageError(UNKNOWN_TOPIC_OR_PARTITION)`. */
  deleteTopic(name: string): void;
  /**
   * Raises a topic's partition count to `count`; the new partitions start empty. Throws
   * `StorageError(UNKNOWN_TOPIC_OR_PARTITION | INVALID_PARTITIONS)`.
   */
  createPartitions(name: string, count: number, options?: { validateOnly?: boolean }): TopicMetadata;
  /**
   * Replaces a topic's explicit configs (validated as at creation) and applies them to its
   * logs at once. Throws `StorageError(UNKNOWN_TOPIC_OR_PARTITION | INVALID_CONFIG)`.
   */
  alterTopicConfigs(name: string, configs: TopicConfigs, options?: { validateOnly?: boolean }): TopicMetadata;
  /**
   * Dynamic broker configs (Kafka's broker config names, only those that set a topic
   * default: see TOPIC_DEFS_BY_BROKER_NAME) by Kafka's resource name: '' for the cluster
   * default, a node id for one broker. Persisted.
   */
  brokerConfigs(resource: string): TopicConfigs;
  /**
   * Replaces one resource's dynamic broker configs; the topic defaults in force change at
   * once for every log. Throws `StorageError(INVALID_CONFIG)`.
   */
  setBrokerConfigs(resource: string, configs: TopicConfigs, options?: { validateOnly?: boolean }): void;
  /**
   * A producer id never handed out before, across restarts too (InitProducerId). Ids are
   * reserved in persisted blocks of 1000, as Kafka's ProducerIdManager does, so a crash
   * skips the rest of a block rather than reusing ids.
   */
  allocateProducerId(): bigint;
  topic(name: string): TopicMetadata | undefined;
  topicById(topicId: string): TopicMetadata | undefined;
  topics(): TopicMetadata[];
  partition(topic: string, partition: number): PartitionLog | undefined;
  /** DescribeConfigs: every topic config with its value and where it comes from; undefined for an unknown topic. */
  describeTopicConfigs(name: string): TopicConfigEntry[] | undefined;
  /** DescribeLogDirs: where the logs are (one directory). */
  logDir(): LogDirInfo;

  /** Deletes segments past retention (time and size) and advances log start offsets. */
  enforceRetention(nowMs: number): void;
  /**
   * One pass of the log cleaner over partitions with cleanup.policy=compact (Kafka's
   * LogCleaner): each partition that is due (min.cleanable.dirty.ratio,
   * max.compaction.lag.ms, an expired tombstone) keeps only the newest record per key in
   * its sealed segments. Yields to the event loop as it goes; one pass at a time (a call
   * during a pass gets that pass).
   */
  cleanLogs(nowMs: number): Promise<LogCleanerStats>;
  /** Makes everything appended so far durable (fsync), whatever the flush policy. */
  flush(): Promise<void>;
  /** Flushes, writes indexes and producer snapshots, marks a clean shutdown, closes files. */
  close(): Promise<void>;
}
