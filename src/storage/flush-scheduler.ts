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
 *
 * Each file's waiters are settled by that file's fsync alone: a failed fsync of one partition
 * fails only the appends written to that file (with KAFKA_STORAGE_ERROR), never another
 * partition's. A file whose fsync failed once stays failed (`SyncTarget.failure`): later
 * rounds that fsync it successfully still fail its waiters, because after a failed fsync the
 * kernel may have dropped the data and a later fsync proves nothing about it (the lesson of
 * PostgreSQL's "fsyncgate"). The file's partition recovers from what an earlier successful
 * fsync covered (partition-log.ts).
 */
import { ErrorCode } from '../protocol/errors.js';
import { FSYNC_SECONDS_BOUNDS, Histogram } from '../util/histogram.js';
import { StorageError } from './errors.js';
import type { FlushPolicy } from './types.js';

/** Something that can be made durable and closed (a file or directory descriptor). */
export interface SyncTarget {
  sync(): Promise<void>;
  close(): void;
  /** Set once an fsync of it failed: nothing written to it may be acknowledged any more. */
  readonly failure?: Error | null;
}

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

/** A round: the files it syncs, and who waits on which (created on demand, per file). */
interface Round {
  readonly waiters: Map<SyncTarget, Deferred>;
  /** flushAll(): settles with the whole round (rejected when any file failed). */
  all: Deferred | null;
  callbacks: ((ok: boolean) => void)[];
}

/** A round whose fsyncs were issued: it settles once they are done and every earlier round settled. */
interface StartedRound {
  readonly targets: ReadonlySet<SyncTarget>;
  readonly round: Round;
  readonly failures: Map<SyncTarget, Error>;
  done: boolean;
}

function deferred(): Deferred {
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

function newRound(): Round {
  return { waiters: new Map(), all: null, callbacks: [] };
}

function waiterFor(round: Round, target: SyncTarget): Promise<void> {
  let d = round.waiters.get(target);
  if (!d) round.waiters.set(target, d = deferred());
  return d.promise;
}

function storageFailure(cause: unknown): Error {
  return cause instanceof StorageError ? cause : new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `fsync failed: ${String(cause)}`, { cause });
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
  private timer: NodeJS.Timeout | null = null;
  private counters = { fsyncs: 0, flushRounds: 0, fsyncErrors: 0 };
  /** How long each round's fsyncs took (they run in parallel): what an acks=all append waits for the disk. */
  readonly roundSeconds = new Histogram(FSYNC_SECONDS_BOUNDS);

  constructor(private readonly policy: FlushPolicy, private readonly onError: (err: Error) => void = () => undefined) {
    if (typeof policy === 'object') {
      this.timer = setInterval(() => {
        if (this.takeLazy() || this.dirty.size > 0) this.requestRound();
      }, policy.intervalMs);
      this.timer.unref();
    }
  }

  get stats(): { fsyncs: number; flushRounds: number; fsyncErrors: number } {
    return { ...this.counters };
  }

  /** Records that `target` has unsynced writes; returns what the append's `durable` is under the policy. */
  written(target: SyncTarget): Promise<void> {
    if (this.policy !== 'always') {
      this.lazy.add(target);
      return RESOLVED;
    }
    if (target.failure) return Promise.reject(storageFailure(target.failure));
    this.dirty.add(target);
    return waiterFor(this.requestRound(), target);
  }

  /** Marks `target` dirty without waiting; it is synced by the next round. */
  markDirty(target: SyncTarget): void {
    this.dirty.add(target);
  }

  /** Settles once everything written to `target` so far is durable under the policy. */
  waitFor(target: SyncTarget): Promise<void> {
    if (this.policy !== 'always') return RESOLVED;
    if (target.failure) return Promise.reject(storageFailure(target.failure));
    if (this.dirty.has(target)) return waiterFor(this.requestRound(), target);
    const last = this.lastStartedWith(target);
    return last ? waiterFor(last.round, target) : RESOLVED;
  }

  /** Settles once everything written to any file so far is durable, whatever the policy; rejects when some fsync failed. */
  flushAll(): Promise<void> {
    this.takeLazy();
    const round = this.dirty.size > 0 ? this.requestRound() : this.started.at(-1)?.round;
    if (!round) return RESOLVED;
    round.all ??= deferred();
    return round.all.promise;
  }

  /** Settles once every round started so far has settled, failed or not. */
  settled(): Promise<void> {
    const last = this.started.at(-1);
    if (!last) return RESOLVED;
    last.round.all ??= deferred();
    return last.round.all.promise.then(() => undefined, () => undefined);
  }

  /** Runs `fn` after the next round, telling whether its fsyncs succeeded (sealing work: checkpoints, closing). */
  afterNextRound(fn: (ok: boolean) => void): void {
    this.requestRound().callbacks.push(fn);
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

  private requestRound(): Round {
    this.next ??= newRound();
    this.scheduleStart();
    return this.next;
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
    const entry: StartedRound = { targets: this.dirty, round: this.next, failures: new Map(), done: false };
    this.dirty = new Set();
    this.next = null;
    this.started.push(entry);
    this.running++;
    this.counters.flushRounds++;
    this.counters.fsyncs += entry.targets.size;
    const targets = [...entry.targets];
    const startedAt = performance.now();
    void Promise.allSettled(targets.map((t) => t.sync())).then((results) => {
      this.roundSeconds.observe((performance.now() - startedAt) / 1000);
      this.running--;
      results.forEach((r, i) => {
        if (r.status === 'rejected') entry.failures.set(targets[i]!, storageFailure(r.reason));
      });
      this.counters.fsyncErrors += entry.failures.size;
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
      for (const err of entry.failures.values()) this.onError(err);
      let firstFailure: Error | null = null;
      for (const t of entry.targets) {
        // A file that failed in this round or an earlier one: its data is not known durable.
        const failure = entry.failures.get(t) ?? (t.failure ? storageFailure(t.failure) : null);
        firstFailure ??= failure;
        const waiter = entry.round.waiters.get(t);
        if (!waiter) continue;
        if (failure) waiter.reject(failure);
        else waiter.resolve();
      }
      if (entry.round.all) {
        if (firstFailure) entry.round.all.reject(firstFailure);
        else entry.round.all.resolve();
      }
      for (const fn of entry.round.callbacks) {
        try {
          fn(firstFailure === null);
        } catch (err) {
          this.onError(err instanceof Error ? err : new Error(String(err)));
        }
      }
    }
  }
}
