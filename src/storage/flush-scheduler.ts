/**
 * Group commit: one scheduler for the whole storage. Writers mark files dirty; a round,
 * started on the next turn of the event loop, fsyncs every dirty file in parallel and then
 * settles every promise waiting on it. So N concurrent appends cost one fsync per touched
 * file, not N.
 *
 * Up to MAX_ROUNDS_IN_FLIGHT rounds overlap: a file dirtied while a round is in flight gets
 * its own round at once instead of waiting for the first to end, so an append waits about one
 * fsync, not up to two (the commit-latency tail). An fsync covers everything written before it
 * started, whatever else is in flight. Rounds settle in the order they started, so an append's
 * acknowledgement never overtakes an earlier one's.
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

/** A round whose fsyncs were issued: it settles once they are done and every earlier round settled. */
interface StartedRound {
  readonly targets: ReadonlySet<SyncTarget>;
  readonly round: Round;
  readonly callbacks: ((ok: boolean) => void)[];
  done: boolean;
  failure: Error | null;
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

/**
 * Two, not more: the second round hides the first's remaining time; more would only queue
 * fsyncs of the same files in libuv's thread pool, ahead of the reads that serve fetches.
 */
const MAX_ROUNDS_IN_FLIGHT = 2;

export class FlushScheduler {
  private dirty = new Set<SyncTarget>();
  /** Written under a policy other than 'always': synced by flushAll() or the interval timer only. */
  private lazy = new Set<SyncTarget>();
  /** Started rounds not yet settled, oldest first. */
  private readonly started: StartedRound[] = [];
  /** Started rounds whose fsyncs are still running. */
  private running = 0;
  /** The round that will sync `dirty`, created on demand. */
  private next: Round | null = null;
  private scheduled = false;
  private readonly closeAfterRound = new Set<SyncTarget>();
  private afterRound: ((ok: boolean) => void)[] = [];
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
    return this.lastStartedWith(target)?.round.promise ?? RESOLVED;
  }

  /** Settles once everything written to any file so far is durable, whatever the policy. */
  flushAll(): Promise<void> {
    this.takeLazy();
    if (this.dirty.size > 0) return this.requestRound();
    return this.started.at(-1)?.round.promise ?? RESOLVED;
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
    if (this.lastStartedWith(target)) this.closeAfterRound.add(target);
    else target.close();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private lastStartedWith(target: SyncTarget): StartedRound | undefined {
    for (let i = this.started.length - 1; i >= 0; i--) if (this.started[i]!.targets.has(target)) return this.started[i];
    return undefined;
  }

  private takeLazy(): boolean {
    if (this.lazy.size === 0) return false;
    for (const t of this.lazy) this.dirty.add(t);
    this.lazy.clear();
    return true;
  }

  private requestRound(): Promise<void> {
    this.next ??= newRound();
    this.scheduleStart();
    return this.next.promise;
  }

  private scheduleStart(): void {
    if (this.scheduled || !this.next || this.running >= MAX_ROUNDS_IN_FLIGHT) return;
    this.scheduled = true;
    // setImmediate (not a microtask): appends from every request read in this turn of the
    // event loop join the same round.
    setImmediate(() => this.start());
  }

  private start(): void {
    this.scheduled = false;
    if (!this.next || this.running >= MAX_ROUNDS_IN_FLIGHT) return;
    const entry: StartedRound = { targets: this.dirty, round: this.next, callbacks: this.afterRound, done: false, failure: null };
    this.dirty = new Set();
    this.next = null;
    this.afterRound = [];
    this.started.push(entry);
    this.running++;
    this.counters.flushRounds++;
    this.counters.fsyncs += entry.targets.size;
    void Promise.allSettled([...entry.targets].map((t) => t.sync())).then((results) => {
      this.running--;
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) {
        const cause: unknown = failed.reason;
        entry.failure = cause instanceof StorageError ? cause : new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `fsync failed: ${String(cause)}`, { cause });
      }
      entry.done = true;
      this.settleInOrder();
      this.scheduleStart();
    });
  }

  private settleInOrder(): void {
    while (this.started[0]?.done) {
      const entry = this.started.shift()!;
      for (const t of this.closeAfterRound) {
        if (this.lastStartedWith(t)) continue;
        t.close();
        this.closeAfterRound.delete(t);
      }
      if (entry.failure) {
        this.onError(entry.failure);
        entry.round.reject(entry.failure);
      } else {
        entry.round.resolve();
      }
      for (const fn of entry.callbacks) {
        try {
          fn(!entry.failure);
        } catch (err) {
          this.onError(err instanceof Error ? err : new Error(String(err)));
        }
      }
    }
  }
}
