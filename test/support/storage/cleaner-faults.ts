/**
 * Shared by the tests of the log cleaner under disk faults (storage-cleaner-faults,
 * broker-cleaner-faults): a logger whose lines a test can wait for, a keyed read of a whole
 * log, Kafka's compaction result computed from what was appended (the oracle), and crash
 * copies of a data directory.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { decodeRecordBatch, iterateBatches } from '../../../src/protocol/records/index.js';
import type { PartitionLog } from '../../../src/storage/index.js';
import { createLogger, type Logger } from '../../../src/util/log.js';
import { tempDir } from './helpers.js';

/** A logger that keeps its lines and tells waiters when a line they wait for comes. */
export class CapturedLog {
  readonly lines: string[] = [];
  private readonly waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  readonly log: Logger = createLogger('storage', 'info', (line) => {
    this.lines.push(line);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (!this.waiters[i]!.pattern.test(line)) continue;
      this.waiters[i]!.resolve(line);
      this.waiters.splice(i, 1);
    }
  });

  /** The lines matching `pattern` so far. */
  matching(pattern: RegExp): string[] {
    return this.lines.filter((l) => pattern.test(l));
  }

  /**
   * Settles with the next line matching `pattern` (logged from now on); rejects after
   * `timeoutMs`. Its timer also keeps the process alive meanwhile: what it waits for may come
   * from unref'd timers only (a partition's recovery).
   */
  next(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no log line matching ${pattern} in ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ pattern, resolve: (line) => { clearTimeout(timer); resolve(line); } });
    });
  }
}

export interface Keyed {
  readonly offset: bigint;
  readonly key: string | null;
  readonly value: string | null;
}

/** Every record of the log, as a consumer reads it (whole batches, moving past each batch's last offset). */
export function readKeyed(log: PartitionLog): Keyed[] {
  const out: Keyed[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const result = log.read(offset, 1 << 30, { minOneBatch: true });
    let next = offset;
    for (const chunk of result.records) {
      for (const view of iterateBatches(chunk)) {
        const batch = decodeRecordBatch(view.buffer);
        for (const r of batch.records) {
          if (r.offset >= offset) out.push({ offset: r.offset, key: r.key?.toString('latin1') ?? null, value: r.value?.toString('latin1') ?? null });
        }
        if (batch.header.lastOffset >= next) next = batch.header.lastOffset + 1n;
      }
    }
    assert.ok(next > offset, `a read at ${offset} returned nothing`);
    offset = next;
  }
  return out;
}

/** Kafka's compaction of `records` below `cleanedBelow` (the active segment's base): the newest record per key, keyless ones kept. */
export function compacted(records: readonly Keyed[], cleanedBelow: bigint): Keyed[] {
  const newest = new Map<string, bigint>();
  for (const r of records) if (r.offset < cleanedBelow && r.key !== null) newest.set(r.key, r.offset);
  return records.filter((r) => r.offset >= cleanedBelow || r.key === null || newest.get(r.key) === r.offset);
}

/** Whether two reads hold the same records. */
export function sameRecords(a: readonly Keyed[], b: readonly Keyed[]): boolean {
  return a.length === b.length && a.every((r, i) => r.offset === b[i]!.offset && r.key === b[i]!.key && r.value === b[i]!.value);
}

/** The value each key has last. */
export function latestValues(records: readonly Keyed[]): Map<string, string | null> {
  const latest = new Map<string, string | null>();
  for (const r of records) if (r.key !== null) latest.set(r.key, r.value);
  return latest;
}

/**
 * The states a crash during a clean may leave (swaps are per group, in offset order): the
 * log compacted below some segment boundary `b` and as it was from `b` on (b = the first
 * boundary: nothing swapped yet; b = cleanedBelow: every group).
 */
export function crashStates(before: readonly Keyed[], boundaries: readonly bigint[], cleanedBelow: bigint): Keyed[][] {
  const full = compacted(before, cleanedBelow);
  const kept = new Set(full.map((r) => r.offset));
  return boundaries.filter((b) => b <= cleanedBelow).map((b) => before.filter((r) => r.offset >= b || kept.has(r.offset)));
}

/** A copy of a data directory as it is now: what a kill -9 at this moment would leave (the page cache survives a process's death). */
export function crashCopy(dataDir: string): string {
  const copy = tempDir('brook-crash-copy-');
  fs.cpSync(dataDir, copy, { recursive: true });
  return copy;
}

/** Files a swap leaves only while it runs. */
export function swapLeftovers(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((n) => /\.(cleaned|swap|deleted)$/.test(n)).sort();
}
