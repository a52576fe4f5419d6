/**
 * The memory engine: the same catalog and partition logs as the file engine, with segments
 * in buffers. Nothing survives close; every append is "durable" at once. For tests and
 * `--data-dir` unset.
 */
import { Catalog, NO_PERSISTENCE } from './catalog.js';
import { RESOLVED } from './flush-scheduler.js';
import { MemoryPartitionStore } from './memory-segment.js';
import { BaseStorage, type EngineStats, type StorageEngine } from './storage-base.js';
import { FSYNC_SECONDS_BOUNDS, Histogram } from '../util/histogram.js';
import type { PartitionStore } from './segment-store.js';
import { IoFaults } from './io-faults.js';
import type { LogDirInfo, Storage, StorageOptions } from './types.js';

/** The name DescribeLogDirs gives the memory engine's one pseudo directory (the broker's start line says the same). */
export const MEMORY_LOG_DIR = '(memory)';

class MemoryEngine implements StorageEngine {
  readonly stats: EngineStats = Object.freeze({ fsyncs: 0, flushRounds: 0, fsyncErrors: 0, flushRoundSeconds: new Histogram(FSYNC_SECONDS_BOUNDS).snapshot() });

  constructor(readonly faults: IoFaults) {}

  partitionStore(): PartitionStore {
    return new MemoryPartitionStore();
  }

  topicCreated(): void {}
  topicDeleted(): void {}

  /** Kafka always has a log directory; memory has none, so one pseudo directory of unknown size (UNKNOWN_VOLUME_BYTES). */
  logDir(): LogDirInfo {
    return { path: MEMORY_LOG_DIR, totalBytes: -1n, usableBytes: -1n };
  }

  flush(): Promise<void> {
    return RESOLVED;
  }

  async close(closeLogs: () => void): Promise<void> {
    closeLogs();
  }
}

export function openMemoryStorage(options: StorageOptions = {}): Storage {
  return new BaseStorage(new Catalog(NO_PERSISTENCE), new MemoryEngine(new IoFaults(options.log, options.clock)), options);
}
