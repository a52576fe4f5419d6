/**
 * The Storage both engines share: the catalog, one PartitionLogImpl per partition, and the
 * topic-level configs. An engine only decides where bytes go (StorageEngine).
 */
import { ErrorCode } from '../protocol/errors.js';
import type { Logger } from '../util/log.js';
import type { IoFaults, IoFaultStats } from './io-faults.js';
import type { Catalog } from './catalog.js';
import { StorageError } from './errors.js';
import { CleanerThread } from './cleaner-thread.js';
import { nodeFileSystem } from './file-system.js';
import { LogCleaner } from './log-cleaner.js';
import { PartitionLogImpl } from './partition-log.js';
import type { PartitionStore } from './segment-store.js';
import {
  describeTopicConfigs, effectiveTopicConfigs, logConfig, topicDefaultsFromBrokerConfig, validateBrokerTopicDefault, validateTopicConfigs, type TopicConfigEntry,
} from './topic-configs.js';
import type { CreateTopicOptions, LogCleanerStats, LogDirInfo, PartitionLog, Storage, StorageOptions, StorageStats, TopicConfigs, TopicMetadata } from './types.js';

export const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000;
/** Header walks of reads need a few KiB (an index interval); recovery reads whole batches in bulk. */
const READ_SCRATCH_BYTES = 16 * 1024;
const RECOVERY_SCRATCH_BYTES = 1024 * 1024;

/** What an engine counts itself (the rest, disk faults, `faults` counts). */
export type EngineStats = Omit<StorageStats, keyof IoFaultStats>;

export interface StorageEngine {
  readonly stats: EngineStats;
  readonly faults: IoFaults;
  /** Storage for one partition; `created`: the topic is new (remove anything left under its name). */
  partitionStore(topic: TopicMetadata, partition: number, created: boolean): PartitionStore;
  /** After a new topic's partitions were opened (make their directories durable). */
  topicCreated(topic: TopicMetadata): void;
  topicDeleted(topic: TopicMetadata): void;
  logDir(): LogDirInfo;
  flush(): Promise<void>;
  /**
   * Shutdown once every log tried to persist its state (`persisted`: the first failure, if
   * any): sync, `closeLogs()`, mark clean only when everything was persisted. Always closes
   * everything; rejects when the shutdown was not clean.
   */
  close(closeLogs: () => void, persisted: Error | null): Promise<void>;
}

export class BaseStorage implements Storage {
  readonly staticTopicDefaults: TopicConfigs;
  private defaultsInForce: TopicConfigs;
  private readonly nodeResource: string;
  private readonly logs = new Map<string, PartitionLogImpl[]>();
  private readonly scratch = Buffer.allocUnsafe(READ_SCRATCH_BYTES);
  private readonly clock: () => number;
  private readonly producerIdExpirationMs: number;
  private readonly log: Logger | undefined;
  private closing: Promise<void> | null = null;
  /** The log cleaner's worker thread (started at the first clean of a file-backed log), unless the cleaner runs inline. */
  private readonly cleanerThread: CleanerThread | undefined;
  private readonly cleaner: LogCleaner;
  private cleaning: Promise<LogCleanerStats> | null = null;

  constructor(private readonly catalog: Catalog, private readonly engine: StorageEngine, options: StorageOptions) {
    this.staticTopicDefaults = Object.freeze({ ...(options.topicDefaults ?? {}) });
    validateTopicConfigs(this.staticTopicDefaults);
    this.nodeResource = String(options.nodeId ?? 1);
    this.defaultsInForce = this.defaultsWith(catalog.brokerConfigs(this.nodeResource), catalog.brokerConfigs(''));
    this.clock = options.clock ?? Date.now;
    this.producerIdExpirationMs = options.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS;
    this.log = options.log;
    // A file system that cannot be rebuilt in the worker (no forThread) keeps the cleaner's
    // I/O on the event loop, so that all of it still goes through that file system.
    const fileSystem = options.fileSystem ?? nodeFileSystem;
    this.cleanerThread = options.cleanerThread === 'inline' || fileSystem.forThread === undefined ? undefined : new CleanerThread(fileSystem);
    this.cleaner = new LogCleaner({ aborted: () => this.closing !== null, thread: this.cleanerThread });
    const recoveryScratch = Buffer.allocUnsafe(RECOVERY_SCRATCH_BYTES);
    for (const topic of catalog.topics()) this.openLogs(topic, false, recoveryScratch);
  }

  get clusterId(): string {
    return this.catalog.clusterId;
  }

  get stats(): StorageStats {
    const { faults } = this.engine;
    const engine = this.engine.stats;
    // The cleaner's failed fsyncs are not the flush rounds': added here.
    return { ...engine, ...faults.stats, fsyncErrors: engine.fsyncErrors + faults.cleanerFsyncErrors };
  }

  get topicDefaults(): TopicConfigs {
    return this.defaultsInForce;
  }

  /**
   * The topic defaults with these dynamic broker configs: Kafka's order, the node's own over
   * the cluster default over the static ones. Dynamic configs are the highest-priority
   * synonyms (log.retention.ms, not .hours), so they win over any static synonym.
   */
  private defaultsWith(node: TopicConfigs, cluster: TopicConfigs): TopicConfigs {
    return Object.freeze({ ...this.staticTopicDefaults, ...topicDefaultsFromBrokerConfig({ ...cluster, ...node }) });
  }

  private openLogs(topic: TopicMetadata, created: boolean, recoveryScratch: Buffer, fromPartition = 0): void {
    const config = logConfig(effectiveTopicConfigs(topic.configs, this.topicDefaults));
    const nowMs = this.clock();
    const logs: PartitionLogImpl[] = this.logs.get(topic.name) ?? [];
    for (let p = fromPartition; p < topic.partitions; p++) {
      const deps = {
        store: this.engine.partitionStore(topic, p, created), config, scratch: this.scratch,
        producerIdExpirationMs: this.producerIdExpirationMs, log: this.log, faults: this.engine.faults, clock: this.clock,
      };
      logs.push(PartitionLogImpl.open(topic.name, p, deps, nowMs, recoveryScratch));
    }
    this.logs.set(topic.name, logs);
  }

  createTopic(name: string, partitions: number, configs: TopicConfigs = {}, options: CreateTopicOptions = {}): TopicMetadata {
    this.ensureOpen();
    const topic = this.catalog.prepare(name, partitions, configs, options.isInternal ?? false, this.topicDefaults, options.topicId);
    if (options.validateOnly) return topic;
    this.catalog.commit(topic);
    this.openLogs(topic, true, this.scratch);
    this.engine.topicCreated(topic);
    return topic;
  }

  validateTopic(name: string, partitions: number, configs: TopicConfigs = {}, options: { isInternal?: boolean } = {}): void {
    this.createTopic(name, partitions, configs, { ...options, validateOnly: true });
  }

  allocateProducerId(): bigint {
    this.ensureOpen();
    return this.catalog.allocateProducerId();
  }

  createPartitions(name: string, count: number, options: { validateOnly?: boolean } = {}): TopicMetadata {
    this.ensureOpen();
    const topic = this.catalog.topic(name);
    if (!topic) throw new StorageError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    // Kafka's wording (ReplicationControlManager.createPartitions).
    if (count === topic.partitions) throw new StorageError(ErrorCode.INVALID_PARTITIONS, `Topic already has ${topic.partitions} partition(s).`);
    if (!Number.isInteger(count) || count < topic.partitions) {
      throw new StorageError(ErrorCode.INVALID_PARTITIONS, `The topic ${name} currently has ${topic.partitions} partition(s); ${count} would not be an increase.`);
    }
    const grown = Object.freeze({ ...topic, partitions: count });
    if (options.validateOnly) return grown;
    this.catalog.replace(grown);
    this.openLogs(grown, true, this.scratch, topic.partitions);
    this.engine.topicCreated(grown);
    return grown;
  }

  alterTopicConfigs(name: string, configs: TopicConfigs, options: { validateOnly?: boolean } = {}): TopicMetadata {
    this.ensureOpen();
    const topic = this.catalog.topic(name);
    if (!topic) throw new StorageError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
    validateTopicConfigs(configs, this.topicDefaults);
    const altered = Object.freeze({ ...topic, configs: Object.freeze({ ...configs }) });
    if (options.validateOnly) return altered;
    this.catalog.replace(altered);
    this.applyConfigs(altered);
    return altered;
  }

  brokerConfigs(resource: string): TopicConfigs {
    return this.catalog.brokerConfigs(resource);
  }

  setBrokerConfigs(resource: string, configs: TopicConfigs, options: { validateOnly?: boolean } = {}): void {
    this.ensureOpen();
    for (const [name, value] of Object.entries(configs)) validateBrokerTopicDefault(name, value);
    const node = resource === this.nodeResource ? configs : this.catalog.brokerConfigs(this.nodeResource);
    const cluster = resource === '' ? configs : this.catalog.brokerConfigs('');
    const defaults = this.defaultsWith(node, cluster);
    // Every topic must still be valid under the new defaults (min.compaction.lag.ms <= max.compaction.lag.ms).
    for (const topic of this.catalog.topics()) validateTopicConfigs(topic.configs, defaults);
    if (options.validateOnly) return;
    this.catalog.setBrokerConfigs(resource, configs);
    this.defaultsInForce = defaults;
    for (const topic of this.catalog.topics()) this.applyConfigs(topic);
  }

  /** Gives a topic's logs its configs in force now (retention, segment size, max.message.bytes, ...). */
  private applyConfigs(topic: TopicMetadata): void {
    const config = logConfig(effectiveTopicConfigs(topic.configs, this.topicDefaults));
    for (const log of this.logs.get(topic.name) ?? []) log.updateConfig(config);
  }

  deleteTopic(name: string): void {
    this.ensureOpen();
    let topic: TopicMetadata;
    try {
      topic = this.catalog.remove(name);
    } catch (err) {
      const existing = this.catalog.topic(name);
      if (!existing || !isOutOfSpace(err)) throw err;
      // A full disk cannot take even the catalog's rewrite, and deleting a topic is how an
      // operator frees space: remove the topic's files first, then record the deletion.
      this.log?.warn('the disk is full: removing the topic\'s files before recording its deletion', { topic: name });
      this.destroyLogs(name);
      try {
        topic = this.catalog.remove(name);
      } catch (again) {
        // Still refused: the topic stays, empty, so memory and disk agree.
        this.openLogs(existing, true, this.scratch);
        throw again;
      }
      this.engine.topicDeleted(topic);
      return;
    }
    this.destroyLogs(name);
    this.engine.topicDeleted(topic);
  }

  private destroyLogs(name: string): void {
    for (const log of this.logs.get(name) ?? []) log.destroy();
    this.logs.delete(name);
  }

  topic(name: string): TopicMetadata | undefined {
    return this.catalog.topic(name);
  }

  topicById(topicId: string): TopicMetadata | undefined {
    return this.catalog.topicById(topicId);
  }

  topics(): TopicMetadata[] {
    return this.catalog.topics();
  }

  partition(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(topic)?.[partition];
  }

  /** DescribeConfigs for a topic: every config with its value and source; undefined for an unknown topic. */
  describeTopicConfigs(name: string): TopicConfigEntry[] | undefined {
    const topic = this.catalog.topic(name);
    return topic ? describeTopicConfigs(topic.configs, this.topicDefaults) : undefined;
  }

  logDir(): LogDirInfo {
    return this.engine.logDir();
  }

  enforceRetention(nowMs: number): void {
    if (this.closing) return;
    for (const [topic, logs] of this.logs) {
      for (const log of logs) {
        try {
          log.enforceRetention(nowMs);
        } catch (err) {
          // One partition's disk trouble must not stop retention of the others.
          this.log?.error('retention failed', { topic, partition: log.partition, err });
        }
      }
    }
  }

  cleanLogs(nowMs: number): Promise<LogCleanerStats> {
    this.cleaning ??= this.runCleaner(nowMs).finally(() => {
      this.cleaning = null;
    });
    return this.cleaning;
  }

  private async runCleaner(nowMs: number): Promise<LogCleanerStats> {
    const stats = { partitionsCleaned: 0, recordsRemoved: 0, bytesBefore: 0, bytesAfter: 0 };
    for (const [topic, logs] of [...this.logs]) {
      for (const log of logs) {
        if (this.closing) return stats;
        try {
          const result = await this.cleaner.clean(log, nowMs);
          if (!result) continue;
          stats.partitionsCleaned++;
          stats.recordsRemoved += result.recordsRemoved;
          stats.bytesBefore += result.bytesBefore;
          stats.bytesAfter += result.bytesAfter;
          this.log?.info('cleaned log', { topic, partition: log.partition, ...result, firstDirtyOffset: String(result.firstDirtyOffset) });
        } catch (err) {
          // One partition's trouble must not stop the cleaning of the others. A disk error is
          // counted (write or fsync errors) and logged, rate-limited, by the faults.
          if (!this.engine.faults.cleanerFailed(`${topic}-${log.partition}`, err)) this.log?.error('log cleaning failed', { topic, partition: log.partition, err });
        }
      }
    }
    return stats;
  }

  flush(): Promise<void> {
    return this.engine.flush();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // The cleaner stops at its next step (the worker at its next batch); a swap is
      // synchronous, so none is half done. The worker's thread is joined (terminated if it
      // does not answer in time, which fails its request).
      const cleaning = this.cleaning;
      await this.cleanerThread?.close(cleaning ?? undefined);
      await cleaning;
      let persisted: Error | null = null;
      for (const [topic, logs] of this.logs) {
        for (const log of logs) {
          try {
            log.prepareClose();
          } catch (err) {
            // A full disk: this log's indexes stay unwritten; the next start rebuilds them.
            persisted ??= err as Error;
            this.log?.error('could not persist a log at shutdown', { topic, partition: log.partition, err });
          }
        }
      }
      await this.engine.close(() => {
        for (const logs of this.logs.values()) for (const log of logs) log.close();
      }, persisted);
    })();
    return this.closing;
  }

  private ensureOpen(): void {
    if (this.closing) throw new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'storage is closed');
  }
}

/** A write refused for lack of space (ENOSPC, or a quota: EDQUOT). */
function isOutOfSpace(err: unknown): boolean {
  const code = ((err as { cause?: { code?: unknown } }).cause?.code) ?? (err as { code?: unknown }).code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
