/**
 * The main thread's side of the log cleaner's worker thread (cleaner-worker.ts): Kafka runs
 * its cleaner on threads of its own, so a pass over a large `__consumer_offsets` does not
 * hold up the requests of the broker; here the CPU- and I/O-heavy part (reading the
 * segments, the offset map, filtering and re-encoding batches, writing and fsyncing the
 * cleaned segment) runs in one `node:worker_threads` worker per storage, and the main thread
 * keeps what needs the live log: which segments, and the synchronous swap.
 *
 * What crosses the boundary: requests carry segment paths and sizes, offsets, the filter's
 * settings and the active producers (structured clone); the worker reads and writes the
 * files itself, through the storage's file system rebuilt in its thread (each request
 * carries `FileSystem.forThread()`, nothing for node:fs), and answers with the cleaned
 * segment's indexes and bookkeeping (small). A failure answers with the error's errno,
 * system call and path, so the main thread can count and log it as its own. The
 * offset map stays in the worker between a 'map' request and the 'group' requests of the
 * same clean. Segment bytes never cross. After a swap the worker also unlinks the replaced
 * segments' `.deleted` files: freeing their blocks was most of a swap's time on the event loop.
 *
 * Life cycle: the worker starts at the first request and is kept (unref'd while idle, so it
 * never keeps a process alive); a request keeps it referenced until answered. `abort()`
 * sets a flag in shared memory that the worker checks between batches: the request in
 * progress then answers `null` (aborted) at its next batch. `close()` aborts and joins the
 * thread (terminate, then its exit). A worker that dies (an uncaught exception, an exit)
 * fails the requests in flight; the next request starts a new one.
 */
import type { AbortedRange } from './cleaner-filter.js';
import { Worker } from 'node:worker_threads';
import type { FileSystem, ThreadFileSystem } from './file-system.js';

export interface SegmentRef {
  /** The segment's log file. */
  readonly path: string;
  /** Its size when the clean started: sealed segments do not grow. */
  readonly size: number;
}

/** Build the offset map of the dirty section: `segments` in order, whole segments, until `maxEntries` keys. */
export interface MapRequest {
  readonly op: 'map';
  readonly segments: readonly SegmentRef[];
  /** The first dirty offset: records before it do not go into the map. */
  readonly from: bigint;
  readonly maxEntries: number;
  /** Aborted transactions: their records never go into the map. */
  readonly aborted: readonly AbortedRange[];
}

export interface MapResult {
  /** How many of the segments went into the map (at least one). */
  readonly segments: number;
  readonly keys: number;
}

/** Filter one group of segments through the map into `<stem>.log.cleaned` (+ indexes), fsynced. */
export interface GroupRequest {
  readonly op: 'group';
  readonly segments: readonly SegmentRef[];
  readonly baseOffset: bigint;
  readonly stem: string;
  /** The replaced group's modification time, given to the cleaned log file (-1: leave it). */
  readonly lastModifiedMs: number;
  /** The last offset the map covers: later records are kept whatever their key. */
  readonly latestOffset: bigint;
  readonly nowMs: number;
  readonly deleteRetentionMs: number;
  readonly activeProducers: ReadonlyMap<bigint, bigint>;
  readonly indexIntervalBytes: number;
}

/** The cleaned segment's state, as the main thread's Segment needs it. */
export interface GroupResult {
  readonly size: number;
  readonly offsetIndex: Uint8Array;
  readonly timeIndex: Uint8Array;
  readonly nextOffset: bigint;
  readonly maxTimestamp: bigint;
  readonly offsetOfMaxTimestamp: bigint;
  readonly firstBatchTimestamp: bigint | null;
  readonly recordsRemoved: number;
  /** The earliest delete horizon of a kept tombstone batch, ms; Infinity when none. */
  readonly horizon: number;
}

/** Drop the offset map (the clean is over). */
export interface ReleaseRequest {
  readonly op: 'release';
}

/** Remove the files a swap renamed `.deleted` (their descriptors are closed: freeing their blocks is the slow part). */
export interface UnlinkRequest {
  readonly op: 'unlink';
  readonly paths: readonly string[];
}

/**
 * Test hook: the worker misbehaves while handling its next request of kind `at`, after
 * writing part of a cleaned file for a group: 'throw' an uncaught exception, 'exit' the
 * thread, 'stall' until the storage aborts and 50 ms more (then handles the request as usual), 'hang' ignoring the
 * abort (busy, at most a minute) so that only terminate() ends it.
 */
export interface Injection {
  readonly at: 'map' | 'group' | 'unlink';
  readonly how: 'throw' | 'exit' | 'stall' | 'hang';
}

export type CleanerRequest = (MapRequest | GroupRequest | ReleaseRequest | UnlinkRequest) & {
  readonly id: number;
  readonly inject?: Injection;
  /** The storage's file system, to rebuild in the worker; absent: node:fs. */
  readonly fileSystem?: ThreadFileSystem;
};

/** A failure as it crosses back: an Error with node's errno fields. */
export interface ErrorReply {
  readonly message: string;
  readonly code?: string;
  readonly syscall?: string;
  readonly path?: string;
  readonly stack?: string;
}

export type CleanerReply =
  | { readonly id: number; readonly result: unknown }
  /** Not an answer: an injected stall or hang has begun. */
  | { readonly id: number; readonly stalled: true }
  | { readonly id: number; readonly aborted: true }
  | { readonly id: number; readonly error: ErrorReply };

export interface WorkerData {
  /** Int32 at 0: non-zero once the storage is closing. */
  readonly abort: SharedArrayBuffer;
}

/**
 * `inject`: the next request of that kind misbehaves (then cleared). `onStalled`: called when
 * an injected stall or hang has begun. `live`: workers started and not yet exited, across
 * every storage of the process. `abortedAnswers`: requests the worker answered as aborted.
 * `abortGraceMs`: how long close() waits for the request in progress to notice the abort (the
 * worker checks between batches, so only a slow fsync of a cleaned segment takes long) before
 * it terminates the thread; tests shorten it.
 */
export const cleanerThreadHooks: { inject: Injection | null; onStalled: (() => void) | null; live: number; abortedAnswers: number; abortGraceMs: number } = {
  inject: null, onStalled: null, live: 0, abortedAnswers: 0, abortGraceMs: 5_000,
};

const WORKER_URL = new URL('./cleaner-worker.js', import.meta.url);

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

export class CleanerThread {
  private worker: Worker | null = null;
  private exited: Promise<void> = Promise.resolve();
  private readonly abortBuffer = new SharedArrayBuffer(4);
  private readonly abortFlag = new Int32Array(this.abortBuffer);
  private readonly pending = new Map<number, Pending>();
  /** unlink() requests not answered yet. */
  private readonly deletions = new Set<Promise<unknown>>();
  private nextId = 1;
  private closed = false;

  /** `fileSystem` must have `forThread` (storage-base.ts runs the cleaner inline otherwise). */
  constructor(private readonly fileSystem: FileSystem) {}

  map(request: Omit<MapRequest, 'op'>): Promise<MapResult | null> {
    return this.request({ op: 'map', ...request }) as Promise<MapResult | null>;
  }

  group(request: Omit<GroupRequest, 'op'>): Promise<GroupResult | null> {
    return this.request({ op: 'group', ...request }) as Promise<GroupResult | null>;
  }

  /**
   * Has the worker remove `paths` (files a swap renamed `.deleted`), after whatever it is doing.
   * Nothing to wait for: if it fails or the worker dies first, the next open removes them.
   * Still done after abort() (close waits for it), not after close.
   */
  unlink(paths: readonly string[]): void {
    const done = this.request({ op: 'unlink', paths }).catch(() => undefined);
    this.deletions.add(done);
    void done.then(() => this.deletions.delete(done));
  }

  /** Frees the worker's offset map; nothing to wait for, and nothing to do when no worker runs. */
  release(): void {
    if (this.worker === null || this.closed) return;
    this.worker.postMessage({ op: 'release', id: 0 } satisfies CleanerRequest);
  }

  /** The request in progress (and any later one) answers null at the worker's next batch. */
  abort(): void {
    Atomics.store(this.abortFlag, 0, 1);
    Atomics.notify(this.abortFlag, 0);
  }

  get aborted(): boolean {
    return Atomics.load(this.abortFlag, 0) !== 0;
  }

  /**
   * Aborts; waits for `inProgress` (the clean under way) and the unlink requests until they
   * settle or abortGraceMs pass; then terminates the thread, which fails a request it has not
   * answered, and waits until the thread has exited.
   */
  async close(inProgress?: Promise<unknown>): Promise<void> {
    this.abort();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise((resolve) => { timer = setTimeout(resolve, cleanerThreadHooks.abortGraceMs); });
    await Promise.race([grace, (async () => {
      await Promise.resolve(inProgress).catch(() => undefined);
      while (this.deletions.size > 0) await Promise.all(this.deletions);
    })()]);
    clearTimeout(timer);
    this.closed = true;
    const worker = this.worker;
    if (worker !== null) {
      await worker.terminate();
      await this.exited;
    }
  }

  private request(body: MapRequest | GroupRequest | UnlinkRequest): Promise<unknown> {
    if (this.closed || (this.aborted && body.op !== 'unlink')) return Promise.resolve(null);
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    const inject = cleanerThreadHooks.inject?.at === body.op ? cleanerThreadHooks.inject : undefined;
    if (inject) cleanerThreadHooks.inject = null;
    // Asked each time: a file system's state may change between requests (a test's faults).
    const fileSystem = this.fileSystem.forThread?.() ?? undefined;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // While a request is in flight the worker keeps the process alive (its caller awaits it).
      worker.ref();
      worker.postMessage({ ...body, id, inject, fileSystem } satisfies CleanerRequest);
    });
  }

  private start(): Worker {
    // execArgv: none of the process's flags; by default a worker inherits them, and some fail
    // there (--input-type, --test) or do what the thread does not need (--import of hooks).
    const worker = new Worker(WORKER_URL, { workerData: { abort: this.abortBuffer } satisfies WorkerData, name: 'brook-log-cleaner', execArgv: [] });
    worker.unref();
    cleanerThreadHooks.live++;
    this.worker = worker;
    let died: Error | null = null;
    worker.on('message', (reply: CleanerReply) => {
      if ('stalled' in reply) {
        cleanerThreadHooks.onStalled?.();
        return;
      }
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if ('result' in reply) {
        p.resolve(reply.result);
      } else if ('aborted' in reply) {
        cleanerThreadHooks.abortedAnswers++;
        p.resolve(null);
      } else {
        const { message, ...fields } = reply.error;
        p.reject(Object.assign(new Error(message), fields));
      }
    });
    // An uncaught exception in the worker: 'error', then 'exit'.
    worker.on('error', (err) => {
      died = err;
    });
    this.exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        cleanerThreadHooks.live--;
        if (this.worker === worker) this.worker = null;
        const err = died ?? new Error(`the log cleaner's worker thread exited (code ${code})`);
        for (const p of this.pending.values()) p.reject(this.closed ? new Error('storage closed') : err);
        this.pending.clear();
        resolve();
      });
    });
    return worker;
  }
}
