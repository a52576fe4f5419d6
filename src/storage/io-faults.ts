/**
 * What the storage tells an operator about disk trouble: one clear log line per directory
 * and errno at a time (a full disk fails every append; one line every `intervalMs` says so,
 * with how many failures it stands for), and counters a metrics endpoint can export. The
 * log cleaner's disk errors are counted here too (as failed writes or fsyncs), with a line
 * of their own per directory and errno.
 */
import { dirname } from 'node:path';
import type { Logger } from '../util/log.js';

/** Kafka's log.dir failure lines are per directory; so is the rate limit. */
const DEFAULT_LOG_INTERVAL_MS = 10_000;

export interface IoFaultStats {
  /**
   * Writes that failed (disk full, I/O error, read-only): each refused its append and undid
   * what it wrote, or abandoned a log clean (a write, create or rename of the cleaner).
   */
  readonly writeErrors: number;
  /** Partitions taken offline after a failed fsync, or a log cleaner swap that failed half way and could not be undone. */
  readonly partitionsTakenOffline: number;
  /** Offline partitions recovered from what was on disk and serving again. */
  readonly partitionRecoveries: number;
}

/** The node error with an errno in `err` or its causes (a StorageError wraps it), or null when none is. */
export function diskErrorOf(err: unknown): NodeJS.ErrnoException | null {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return e as NodeJS.ErrnoException;
  }
  return null;
}

const FSYNC_CALLS = new Set(['fsync', 'fdatasync']);

export class IoFaults {
  private readonly counters = { writeErrors: 0, partitionsTakenOffline: 0, partitionRecoveries: 0 };
  /** fsyncs of the log cleaner that failed (the flush rounds count their own): added to StorageStats.fsyncErrors. */
  cleanerFsyncErrors = 0;
  /** `dir errno` → when it was last logged and how many failures since. */
  private readonly lastLogged = new Map<string, { atMs: number; suppressed: number }>();

  constructor(
    private readonly log: Logger | undefined,
    private readonly clock: () => number = Date.now,
    private readonly intervalMs = DEFAULT_LOG_INTERVAL_MS,
  ) {}

  get stats(): IoFaultStats {
    return { ...this.counters };
  }

  /** A write to `path` failed with `err` (its append was refused). */
  writeFailed(path: string, what: string, err: unknown): void {
    this.counters.writeErrors++;
    const errno = (err as NodeJS.ErrnoException | undefined)?.code ?? 'EIO';
    const dir = dirname(path);
    const suppressed = this.rateLimited(`${dir} ${errno}`);
    if (suppressed === null) return;
    const hint = errno === 'ENOSPC' ? '; appends to it fail until space is freed (delete a topic, lower retention), then resume by themselves' : '';
    this.log?.error(`cannot write to ${dir}: ${errno}${hint}`, {
      dir, errno, what, error: err instanceof Error ? err.message : String(err),
      ...(suppressed > 0 ? { failuresSinceLastLine: suppressed } : {}),
    });
  }

  /**
   * A clean of `partition` failed; true when `err` was a disk error (then counted, as a failed
   * fsync or a failed write, and logged at most every intervalMs per directory and errno),
   * false for anything else (the caller logs it). The partition's old segments serve on.
   */
  cleanerFailed(partition: string, err: unknown): boolean {
    const cause = diskErrorOf(err);
    if (cause === null) return false;
    const errno = cause.code!;
    const syscall = cause.syscall ?? 'write';
    const fsync = FSYNC_CALLS.has(syscall);
    if (fsync) this.cleanerFsyncErrors++;
    else if (syscall !== 'read') this.counters.writeErrors++;
    const path = cause.path ?? partition;
    const dir = cause.path === undefined ? partition : dirname(cause.path);
    const suppressed = this.rateLimited(`cleaner ${dir} ${errno}`);
    if (suppressed === null) return true;
    const hint = errno === 'ENOSPC' ? ' (a cleaned segment needs free space up to the size of the segments it replaces)' : '';
    this.log?.error(`log cleaning of ${partition} failed: ${syscall} of ${path}: ${errno}${hint}; its segments are as they were and serve on, the next pass retries`, {
      partition, dir, errno, syscall, error: err instanceof Error ? err.message : String(err),
      ...(suppressed > 0 ? { failuresSinceLastLine: suppressed } : {}),
    });
    return true;
  }

  /** null: this line was logged less than intervalMs ago (counted); else how many were suppressed since. */
  private rateLimited(key: string): number | null {
    const now = this.clock();
    const last = this.lastLogged.get(key);
    if (last && now - last.atMs < this.intervalMs) {
      last.suppressed++;
      return null;
    }
    this.lastLogged.set(key, { atMs: now, suppressed: 0 });
    return last?.suppressed ?? 0;
  }

  /**
   * A partition's fsync failed, or a swap of the log cleaner failed and could not be undone
   * (`what`: 'swap'): it goes offline until recovered.
   */
  partitionOffline(partition: string, path: string, err: unknown, what: 'fsync' | 'swap' = 'fsync'): void {
    this.counters.partitionsTakenOffline++;
    const message = what === 'fsync'
      ? `partition ${partition} is offline: fsync of ${path} failed; recovering it from what is durable on disk`
      : `partition ${partition} is offline: the log cleaner's swap of ${path} failed and could not be undone; reopening it from disk, which completes or undoes the swap`;
    this.log?.error(message, {
      partition, path, errno: diskErrorOf(err)?.code ?? 'EIO', error: err instanceof Error ? err.message : String(err),
    });
  }

  partitionRecovered(partition: string, fields: Record<string, unknown>): void {
    this.counters.partitionRecoveries++;
    this.log?.info(`partition ${partition} recovered and serving again`, { partition, ...fields });
  }
}
