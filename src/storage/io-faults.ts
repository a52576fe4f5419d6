/**
 * What the storage tells an operator about disk trouble: one clear log line per directory
 * and errno at a time (a full disk fails every append; one line every `intervalMs` says so,
 * with how many failures it stands for), and counters a metrics endpoint can export.
 */
import { dirname } from 'node:path';
import type { Logger } from '../util/log.js';

/** Kafka's log.dir failure lines are per directory; so is the rate limit. */
const DEFAULT_LOG_INTERVAL_MS = 10_000;

export interface IoFaultStats {
  /** Writes that failed (disk full, I/O error): each refused its append and undid what it wrote. */
  readonly writeErrors: number;
  /** Partitions taken offline after a failed fsync. */
  readonly partitionsTakenOffline: number;
  /** Offline partitions recovered from what was on disk and serving again. */
  readonly partitionRecoveries: number;
}

export class IoFaults {
  private readonly counters = { writeErrors: 0, partitionsTakenOffline: 0, partitionRecoveries: 0 };
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
    const key = `${dir} ${errno}`;
    const now = this.clock();
    const last = this.lastLogged.get(key);
    if (last && now - last.atMs < this.intervalMs) {
      last.suppressed++;
      return;
    }
    this.lastLogged.set(key, { atMs: now, suppressed: 0 });
    const hint = errno === 'ENOSPC' ? '; appends to it fail until space is freed (delete a topic, lower retention), then resume by themselves' : '';
    this.log?.error(`cannot write to ${dir}: ${errno}${hint}`, {
      dir, errno, what, error: err instanceof Error ? err.message : String(err),
      ...(last && last.suppressed > 0 ? { failuresSinceLastLine: last.suppressed } : {}),
    });
  }

  /** A partition's fsync failed: it goes offline until recovered. */
  partitionOffline(partition: string, path: string, err: unknown): void {
    this.counters.partitionsTakenOffline++;
    this.log?.error(`partition ${partition} is offline: fsync of ${path} failed; recovering it from what is durable on disk`, {
      partition, path, errno: (err as NodeJS.ErrnoException | undefined)?.code ?? 'EIO', error: err instanceof Error ? err.message : String(err),
    });
  }

  partitionRecovered(partition: string, fields: Record<string, unknown>): void {
    this.counters.partitionRecoveries++;
    this.log?.info(`partition ${partition} recovered and serving again`, { partition, ...fields });
  }
}
