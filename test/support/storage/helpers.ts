/**
 * Shared helpers of the storage tests: both engines behind one interface, temporary data
 * directories, batch builders and decoding of read results.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { CompressionType, decodeRecordBatch, encodeRecordBatch, iterateBatches, TimestampType } from '../../../src/protocol/records/index.js';
import { openFileStorage, openMemoryStorage, StorageError, type PartitionLog, type Storage, type StorageOptions } from '../../../src/storage/index.js';

export type EngineKind = 'memory' | 'file';
export const ENGINES: readonly EngineKind[] = ['memory', 'file'];

/** A fixed broker clock: record timestamps near it pass the timestamp bounds. */
export const NOW = 1_700_000_000_000;

export function tempDir(prefix = 'brook-storage-'): string {
  return fs.mkdtempSync(join(os.tmpdir(), prefix));
}

export interface StorageEnv {
  readonly kind: EngineKind;
  /** The data directory of the file engine. */
  readonly dir: string;
  /** Opens the storage (the file engine reopens the same directory each time); the clock defaults to NOW. */
  open(options?: StorageOptions): Promise<Storage>;
  cleanup(): Promise<void>;
}

export function makeEnv(kind: EngineKind): StorageEnv {
  const dir = kind === 'file' ? tempDir() : '';
  const opened: Storage[] = [];
  return {
    kind,
    dir,
    async open(given = {}) {
      const options: StorageOptions = { clock: () => NOW, ...given };
      const storage = kind === 'file' ? await openFileStorage(dir, options) : openMemoryStorage(options);
      opened.push(storage);
      return storage;
    },
    async cleanup() {
      for (const s of opened) await s.close().catch(() => undefined);
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface BatchSpec {
  /** Number of records (default 1). */
  count?: number;
  /** Value of every record, or a function of its index in the batch. */
  value?: string | ((i: number) => string);
  /** Timestamp of every record, or a function of its index (default NOW). */
  timestamp?: number | ((i: number) => number);
  producerId?: bigint;
  epoch?: number;
  sequence?: number;
  compression?: CompressionType;
  timestampType?: TimestampType;
}

export function batch(spec: BatchSpec = {}): Buffer {
  const count = spec.count ?? 1;
  const records = Array.from({ length: count }, (_, i) => {
    const value = typeof spec.value === 'function' ? spec.value(i) : (spec.value ?? `v${i}`);
    const timestamp = typeof spec.timestamp === 'function' ? spec.timestamp(i) : (spec.timestamp ?? NOW);
    return { value: Buffer.from(value), timestamp };
  });
  return encodeRecordBatch({
    records,
    producerId: spec.producerId,
    producerEpoch: spec.epoch,
    baseSequence: spec.sequence,
    compression: spec.compression,
    timestampType: spec.timestampType,
  });
}

export interface ReadRecord {
  offset: bigint;
  timestamp: bigint;
  value: string;
}

/** Every record of a read result (decoded, for checking only). */
export function recordsOf(buffers: readonly Buffer[]): ReadRecord[] {
  const out: ReadRecord[] = [];
  for (const buf of buffers) {
    for (const view of iterateBatches(buf)) {
      for (const r of decodeRecordBatch(view.buffer).records) {
        out.push({ offset: r.offset, timestamp: r.timestamp, value: r.value?.toString('utf8') ?? '' });
      }
    }
  }
  return out;
}

/** Reads the whole log from `from`, one read per segment as the broker's fetches would. */
export function readAll(log: PartitionLog, from = log.logStartOffset): ReadRecord[] {
  const out: ReadRecord[] = [];
  let offset = from;
  while (offset < log.logEndOffset) {
    const result = log.read(offset, 1 << 30, { minOneBatch: true });
    const records = recordsOf(result.records).filter((r) => r.offset >= offset);
    if (records.length === 0) throw new Error(`read at ${offset} returned nothing`);
    out.push(...records);
    offset = records.at(-1)!.offset + 1n;
  }
  return out;
}

/** The Kafka error code a call throws as StorageError. */
export function errorCodeOf(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    if (err instanceof StorageError) return err.errorCode;
    throw err;
  }
  throw new Error('expected a StorageError');
}

export function partitionDir(env: StorageEnv, topic: string, partition = 0): string {
  return join(env.dir, `${topic}-${partition}`);
}

export function filesIn(dir: string, ext: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.endsWith(ext)).sort();
}
