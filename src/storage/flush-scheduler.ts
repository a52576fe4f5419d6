/**
 * Group commit: one scheduler for the whole storage. Writers mark files dirty; one round,
 * started on the next turn of the event loop, fsyncs every dirty file in parallel and then
 * settles every promise waiting on it. Files dirtied while a round is in flight wait for
 * the next round, which starts as soon as the current one ends. So N concurrent appends
 * cost one fsync per touched file, not N.
 */
import { ErrorCode } from '../protocol/errors.js';
import { StorageError } from './errors.js';
import type { FlushPolicy, StorageStats } from './types.js';

/** Something that can be made durable and closed (a file or directory descriptor). */
export interface SyncTarget {
  sync(): Promise<void>;
  close(): void;
}

interface Round {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

function newRound(): Round {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers may drop the promise (acks=1): a failed fsync must not become an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export const RESOLVED: Promise<void> = Promise.resolve();

export class FlushScheduler {
  private dirty = new Set<SyncTarget>();
  /** Written under a policy other than 'always': synced by flushAll() or the interval timer only. */
  private lazy = new Set<SyncTarget>();
  private inFlight: Set<SyncTarget> | null = null;
  /** The round that will sync `dirty`, created on demand. */
  private next: Round | null = null;
  /** The round syncing `inFlight`. */
  private current: Round | null = null;
  private scheduled = false;
  private readonly closeAfterRound = new Set<SyncTarget>();
  private readonly afterRound: ((ok: boolean) => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private counters = { fsyncs: 0, flushRounds: 0 };

  constructor(private readonly policy: FlushPolicy, private readonly onError: (err: Error) => void = () => undefined) {
    if (typeof policy === 'object') {
      this.timer = setInterval(() => {
        if (this.takeLazy() || this.dirty.size > 0) void this.requestRound();
      }, policy.intervalMs);
      this.timer.unref();
    }
  }

  get stats(): StorageStats {
    return { ...this.counters };
  }

  /** Records that `target` has unsynced writes; returns what the append's `durable` is under the policy. */
  written(target: SyncTarget): Promise<void> {
    if (this.policy !== 'always') {
      this.lazy.add(target);
      return RESOLVED;
    }
    this.dirty.add(target);
    return this.requestRound();
  }

  /** Marks `target` dirty without waiting; it is synced by the next round. */
  markDirty(target: SyncTarget): void {
    this.dirty.add(target);
  }

  /** Settles once everything written to `target` so far is durable under the policy. */
  waitFor(target: SyncTarget): Promise<void> {
    if (this.policy !== 'always') return RESOLVED;
    if (this.dirty.has(target)) return this.requestRound();
    if (this.inFlight?.has(target)) return this.current!.promise;
    return RESOLVED;
  }

  /** Settles once everything written to any file so far is durable, whatever the policy. */
  flushAll(): Promise<void> {
    this.takeLazy();
    if (this.dirty.size > 0) return this.requestRound();
    return this.current?.promise ?? RESOLVED;
  }

  /** Runs `fn` after the next round, telling whether its fsyncs succeeded (sealing work: checkpoints, closing). */
  afterNextRound(fn: (ok: boolean) => void): void {
    this.afterRound.push(fn);
    void this.requestRound();
  }

  /** Forgets `target` (its file is being closed or deleted); closes it once no fsync uses it. */
  release(target: SyncTarget): void {
    this.dirty.delete(target);
    this.lazy.delete(target);
    if (this.inFlight?.has(target)) this.closeAfterRound.add(target);
    else target.close();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private takeLazy(): boolean {
    if (this.lazy.size === 0) return false;
    for (const t of this.lazy) this.dirty.add(t);
    this.lazy.clear();
    return true;
  }

  private requestRound(): Promise<void> {
    this.next ??= newRound();
    if (!this.inFlight && !this.scheduled) {
      this.scheduled = true;
      // setImmediate (not a microtask): appends from every request read in this turn of the
      // event loop join the same round.
      setImmediate(() => void this.run());
    }
    return this.next.promise;
  }

  private async run(): Promise<void> {
    this.scheduled = false;
    if (this.inFlight || !this.next) return;
    const targets = this.dirty;
    const round = this.next;
    const callbacks = this.afterRound.splice(0);
    this.dirty = new Set();
    this.next = null;
    this.inFlight = targets;
    this.current = round;
    this.counters.flushRounds++;
    this.counters.fsyncs += targets.size;
    const results = await Promise.allSettled([...targets].map((t) => t.sync()));
    this.inFlight = null;
    this.current = null;
    for (const t of this.closeAfterRound) t.close();
    this.closeAfterRound.clear();
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      const cause: unknown = failure.reason;
      const err = cause instanceof StorageError ? cause : new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `fsync failed: ${String(cause)}`, { cause });
      this.onError(err);
      round.reject(err);
    } else {
      round.resolve();
    }
    for (const fn of callbacks) {
      try {
        fn(!failure);
      } catch (err) {
        this.onError(err instanceof Error ? err : new Error(String(err)));
      }
    }
    if (this.next) {
      this.scheduled = true;
      setImmediate(() => void this.run());
    }
  }
}
