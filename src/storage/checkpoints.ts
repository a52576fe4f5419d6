/**
 * Kafka's per-directory checkpoint files, in Kafka's text format so operators recognise
 * them: `log-start-offset-checkpoint` and `recovery-point-offset-checkpoint`, each
 *   0                      (version)
 *   <count>
 *   <topic> <partition> <offset>   (one line per partition)
 * Writes are coalesced (many rolls, one write) and atomic (temporary file, fsync, rename).
 */
import { join } from 'node:path';
import type { Logger } from '../util/log.js';
import type { FileSystem } from './file-system.js';
import { readIfExists, writeAtomic, writeAtomicSync } from './fs-util.js';

export const LOG_START_OFFSET_CHECKPOINT = 'log-start-offset-checkpoint';
export const RECOVERY_POINT_CHECKPOINT = 'recovery-point-offset-checkpoint';

export function checkpointKey(topic: string, partition: number): string {
  return `${topic} ${partition}`;
}

/** Offsets by `checkpointKey`; empty when the file is missing or malformed (then nothing is skipped). */
export function readCheckpoint(fs: FileSystem, path: string, log?: Logger): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const data = readIfExists(fs, path);
  if (!data) return out;
  const lines = data.toString('utf8').split('\n').filter((l) => l.length > 0);
  const count = Number(lines[1]);
  if (lines[0] !== '0' || !Number.isInteger(count) || lines.length !== count + 2) {
    log?.warn('ignoring a malformed checkpoint file', { path });
    return out;
  }
  for (const line of lines.slice(2)) {
    const m = /^(\S+) (\d+) (-?\d+)$/.exec(line);
    if (!m) {
      log?.warn('ignoring a malformed checkpoint file', { path });
      return new Map();
    }
    out.set(checkpointKey(m[1]!, Number(m[2])), BigInt(m[3]!));
  }
  return out;
}

function format(entries: readonly [string, bigint][]): string {
  return `0\n${entries.length}\n${entries.map(([key, offset]) => `${key} ${offset}\n`).join('')}`;
}

export interface CheckpointSource {
  /** [checkpointKey, logStartOffset, recoveryPoint] of every open partition. */
  checkpointEntries(): Iterable<readonly [string, bigint, bigint]>;
}

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

export class CheckpointWriter {
  private writing: Promise<void> | null = null;
  private dirty = false;
  /** Callers of changed() whose change the next write round covers. */
  private waiters: Waiter[] = [];

  constructor(private readonly fs: FileSystem, private readonly dir: string, private readonly source: CheckpointSource, private readonly log?: Logger) {}

  /**
   * Something changed: write both files soon (once for any number of changes meanwhile).
   * Settles once a write that covers the change is durable; rejects when that write failed
   * (DeleteRecords answers only then). Never an unhandled rejection: ignoring it is fine.
   */
  changed(): Promise<void> {
    this.dirty = true;
    const durable = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    durable.catch(() => {});
    if (!this.writing) this.writing = this.loop();
    return durable;
  }

  /** Settles when no write is pending. */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Writes both files now (clean shutdown). */
  writeSync(): void {
    const [start, recovery] = this.render();
    writeAtomicSync(this.fs, join(this.dir, LOG_START_OFFSET_CHECKPOINT), start);
    writeAtomicSync(this.fs, join(this.dir, RECOVERY_POINT_CHECKPOINT), recovery);
    this.dirty = false;
  }

  private render(): [string, string] {
    const start: [string, bigint][] = [];
    const recovery: [string, bigint][] = [];
    for (const [key, lso, rp] of this.source.checkpointEntries()) {
      start.push([key, lso]);
      recovery.push([key, rp]);
    }
    return [format(start), format(recovery)];
  }

  private async loop(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        const covered = this.waiters;
        this.waiters = [];
        const [start, recovery] = this.render();
        try {
          await writeAtomic(this.fs, join(this.dir, LOG_START_OFFSET_CHECKPOINT), start);
          await writeAtomic(this.fs, join(this.dir, RECOVERY_POINT_CHECKPOINT), recovery);
        } catch (err) {
          for (const w of [...covered, ...this.waiters.splice(0)]) w.reject(err as Error);
          throw err;
        }
        for (const w of covered) w.resolve();
      }
    } catch (err) {
      // A lost checkpoint only makes the next start recover more: log it and go on.
      this.log?.error('writing checkpoints failed', { err });
    } finally {
      this.writing = null;
    }
  }
}
