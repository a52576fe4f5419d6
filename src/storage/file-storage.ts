/**
 * The file engine. A data directory holds, besides one directory per partition:
 *   catalog.json                        topics and the cluster id (replaced atomically)
 *   log-start-offset-checkpoint         Kafka's checkpoint files (see checkpoints.ts)
 *   recovery-point-offset-checkpoint
 *   .kafka_cleanshutdown                present only between a clean close and the next open
 * At open, a missing clean-shutdown marker means the last run crashed: partitions recover
 * every segment from their recovery point on (see log-loader.ts).
 */
import { statfsSync, type BigIntStatsFs } from 'node:fs';
import { join, resolve } from 'node:path';
import { ErrorCode } from '../protocol/errors.js';
import type { Logger } from '../util/log.js';
import { Catalog, fileCatalogPersistence } from './catalog.js';
import { StorageError } from './errors.js';
import { checkpointKey, CheckpointWriter, LOG_START_OFFSET_CHECKPOINT, readCheckpoint, RECOVERY_POINT_CHECKPOINT, type CheckpointSource } from './checkpoints.js';
import { FilePartitionStore } from './file-segment.js';
import { nodeFileSystem, type FileSystem } from './file-system.js';
import { FlushScheduler } from './flush-scheduler.js';
import { IoFaults } from './io-faults.js';
import { fsyncDirSync, readIfExists, unlinkIfExists, writeAllSync, writeAtomicSync } from './fs-util.js';
import { BaseStorage, type EngineStats, type StorageEngine } from './storage-base.js';
import { acquireDirLock } from './dir-lock.js';
import type { FlushPolicy, LogDirInfo, Storage, StorageOptions, TopicMetadata } from './types.js';

export { LOCK_FILE } from './dir-lock.js';
export const CLEAN_SHUTDOWN_MARKER = '.kafka_cleanshutdown';
export const CATALOG_FILE = 'catalog.json';
const PARTITION_METADATA = 'partition.metadata';
const PARTITION_DIR = /^(.+)-(\d+)$/;

/** Kafka's PartitionMetadataFile: which topic (by id) a partition directory belongs to. */
function partitionMetadata(topicId: string): string {
  return `version: 0\ntopic_id: ${topicId}\n`;
}

function topicIdOf(fs: FileSystem, dir: string): string | null {
  const text = readIfExists(fs, join(dir, PARTITION_METADATA))?.toString('utf8');
  return text ? (/^topic_id: (\S+)$/m.exec(text)?.[1] ?? null) : null;
}

class FileEngine implements StorageEngine, CheckpointSource {
  readonly checkpoints: CheckpointWriter;
  private readonly stores = new Map<string, FilePartitionStore>();

  constructor(
    private readonly fs: FileSystem,
    readonly faults: IoFaults,
    private readonly dataDir: string,
    readonly scheduler: FlushScheduler,
    private readonly cleanShutdown: boolean,
    private readonly logStartOffsets: Map<string, bigint>,
    private readonly recoveryPoints: Map<string, bigint>,
    private readonly log: Logger | undefined,
    private readonly releaseLock: () => void,
  ) {
    this.checkpoints = new CheckpointWriter(fs, dataDir, this, log);
  }

  get stats(): EngineStats {
    return { ...this.scheduler.stats, flushRoundSeconds: this.scheduler.roundSeconds.snapshot() };
  }

  partitionStore(topic: TopicMetadata, partition: number, created: boolean): FilePartitionStore {
    const fs = this.fs;
    const dir = join(this.dataDir, `${topic.name}-${partition}`);
    // A directory under a new topic's name is a leftover of a deleted topic of that name.
    if (created) fs.rmSync(dir);
    fs.mkdirSync(dir);
    if (topicIdOf(fs, dir) !== topic.topicId) {
      // A new partition's metadata file needs no fsync of its own: the catalog (fsynced) holds
      // the topic id, and an open rewrites a missing or torn file from it (the line above).
      // Skipping the two synchronous fsyncs per partition keeps topic creation from blocking
      // the event loop for long (100 partitions: ~200 ms before).
      if (created) {
        const fd = fs.openSync(join(dir, PARTITION_METADATA), 'w');
        try {
          writeAllSync(fs, fd, Buffer.from(partitionMetadata(topic.topicId)));
        } finally {
          fs.closeSync(fd);
        }
      } else {
        writeAtomicSync(fs, join(dir, PARTITION_METADATA), partitionMetadata(topic.topicId));
      }
    }
    const key = checkpointKey(topic.name, partition);
    const store = new FilePartitionStore(dir, {
      fs,
      scheduler: this.scheduler,
      cleanShutdown: created || this.cleanShutdown,
      recoveryPoint: created ? 0n : (this.recoveryPoints.get(key) ?? -1n),
      logStartOffset: created ? -1n : (this.logStartOffsets.get(key) ?? -1n),
      checkpointsChanged: () => this.checkpoints.changed(),
      faults: this.faults,
    });
    this.stores.set(key, store);
    return store;
  }

  topicCreated(): void {
    fsyncDirSync(this.fs, this.dataDir);
  }

  /**
   * The data directory as Kafka names a log dir (absolute, not resolved through links) and
   * its file system's size. statfs is a query about the volume, not data: node:fs directly.
   */
  logDir(): LogDirInfo {
    const path = resolve(this.dataDir);
    let stats: BigIntStatsFs;
    try {
      stats = statfsSync(this.dataDir, { bigint: true });
    } catch (err) {
      this.log?.warn('statfs of the data directory failed', { dataDir: path, err });
      return { path, totalBytes: -1n, usableBytes: -1n };
    }
    return { path, totalBytes: stats.blocks * stats.bsize, usableBytes: stats.bavail * stats.bsize };
  }

  topicDeleted(topic: TopicMetadata): void {
    for (let p = 0; p < topic.partitions; p++) this.stores.delete(checkpointKey(topic.name, p));
    fsyncDirSync(this.fs, this.dataDir);
    this.checkpoints.changed();
  }

  *checkpointEntries(): Iterable<readonly [string, bigint, bigint]> {
    for (const [key, store] of this.stores) {
      yield [key, store.logStartOffset < 0n ? 0n : store.logStartOffset, store.recoveryPoint];
    }
  }

  flush(): Promise<void> {
    return this.scheduler.flushAll();
  }

  /**
   * Closes every file and releases the directory whatever happens; only when everything was
   * persisted (`persisted`, the final fsyncs, the checkpoints) is the clean-shutdown marker
   * written. Otherwise (a full or failing disk) the next start recovers the logs as after a
   * crash, and this rejects with what went wrong, once everything is released.
   */
  async close(closeLogs: () => void, persisted: Error | null): Promise<void> {
    let failure = persisted;
    try {
      await this.scheduler.flushAll();
      await this.checkpoints.idle();
      this.checkpoints.writeSync();
    } catch (err) {
      failure ??= err as Error;
    }
    closeLogs();
    this.scheduler.stop();
    try {
      if (failure === null) {
        this.fs.closeSync(this.fs.openSync(join(this.dataDir, CLEAN_SHUTDOWN_MARKER), 'w'));
        fsyncDirSync(this.fs, this.dataDir);
      }
    } catch (err) {
      failure = err as Error;
    } finally {
      this.releaseLock();
    }
    if (failure !== null) {
      this.log?.error('storage closed without a clean-shutdown marker: the next start recovers the logs', { dataDir: this.dataDir, err: failure });
      throw failure instanceof StorageError ? failure : new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `closing ${this.dataDir} failed: ${failure.message}`, { cause: failure });
    }
    this.log?.info('storage closed cleanly', { dataDir: this.dataDir });
  }

  /** Removes directories of deleted topics (renamed "-delete", or holding a topic id no topic has). */
  removeStale(liveTopicIds: ReadonlySet<string>): void {
    const fs = this.fs;
    for (const name of fs.readdirSync(this.dataDir)) {
      const path = join(this.dataDir, name);
      if (!PARTITION_DIR.test(name) && !name.endsWith('-delete')) continue;
      if (!fs.isDirectory(path)) continue;
      const topicId = name.endsWith('-delete') ? null : topicIdOf(fs, path);
      if (name.endsWith('-delete') || (topicId !== null && !liveTopicIds.has(topicId))) {
        this.log?.info('removing the directory of a deleted topic', { dir: name });
        fs.rmSync(path);
      } else if (topicId === null) {
        this.log?.warn('leaving a partition directory without partition.metadata alone', { dir: name });
      }
    }
  }
}

/**
 * Opens (creating if needed) the data directory, recovering after a crash. The directory
 * must not be used by another process at the same time.
 */
export async function openFileStorage(dataDir: string, options: StorageOptions = {}): Promise<Storage> {
  const fs = options.fileSystem ?? nodeFileSystem;
  fs.mkdirSync(dataDir);
  // The lock is process coordination (hard links, O_EXCL), not data: node:fs directly.
  const releaseLock = await acquireDirLock(dataDir);
  try {
    return await open(fs, dataDir, options, releaseLock);
  } catch (err) {
    releaseLock();
    throw err;
  }
}

async function open(fs: FileSystem, dataDir: string, options: StorageOptions, releaseLock: () => void): Promise<Storage> {
  const log = options.log;
  const cleanShutdown = fs.existsSync(join(dataDir, CLEAN_SHUTDOWN_MARKER));
  if (!cleanShutdown && fs.existsSync(join(dataDir, CATALOG_FILE))) log?.warn('no clean shutdown marker: recovering logs', { dataDir });
  const flush: FlushPolicy = options.flush ?? 'always';
  const scheduler = new FlushScheduler(flush, (err) => log?.error('fsync failed', { err }));
  const engine = new FileEngine(
    fs, new IoFaults(log, options.clock), dataDir, scheduler, cleanShutdown,
    readCheckpoint(fs, join(dataDir, LOG_START_OFFSET_CHECKPOINT), log),
    readCheckpoint(fs, join(dataDir, RECOVERY_POINT_CHECKPOINT), log),
    log,
    releaseLock,
  );
  const catalog = new Catalog(fileCatalogPersistence(fs, join(dataDir, CATALOG_FILE)));
  engine.removeStale(new Set(catalog.topics().map((t) => t.topicId)));
  const storage = new BaseStorage(catalog, engine, options);
  // From here on this run may crash: the next open must not trust the logs blindly.
  if (cleanShutdown) {
    unlinkIfExists(fs, join(dataDir, CLEAN_SHUTDOWN_MARKER));
    fsyncDirSync(fs, dataDir);
  }
  engine.checkpoints.changed();
  await engine.checkpoints.idle();
  return storage;
}
