/**
 * One runtime for the coordinators that keep their state in an internal topic, as Kafka's
 * coordinator-common CoordinatorRuntime: the group coordinator (`__consumer_offsets`) and
 * the transaction coordinator (`__transaction_state`) and the share coordinator
 * (`__share_group_state`) run on it as shards (shard.ts). It owns, for its shard:
 * - the topic: created (compacted, internal) at the first need, not at start-up, as Kafka;
 * - load: replay of every partition at start-up, then `loaded`; and again after a fail-stop;
 * - append (appender.ts): the records of every result run in one turn of the event loop go
 *   to each partition as one batch, one write and one fsync (sooner past 512 KiB), as
 *   Kafka's runtime lingers its appends; records of a producer (TxnOffsetCommit) go in a
 *   transactional batch of their own, and transaction markers through `appendMarker`;
 * - durability: replies go out once the records are durable (see `pipelined`), or once
 *   appended for results the shard's `repliesOnAppend` allows (membership), to the requests
 *   parked by id (parked-requests.ts); tokens are settled in order, a failed append is
 *   mapped once (append-errors.ts);
 * - timers, on the broker's clock (KeyedTimers);
 * - fail-stop: a settle that throws, an operation whose undo failed
 *   (CoordinatorStateLostError), or an fsync that failed under replies already sent, unloads the shard (NOT_COORDINATOR meanwhile) and loads a
 *   new one from the log once every issued append has settled.
 *
 * Order (the invariant transaction markers rely on): batches reach a partition in the order
 * their records were given to the runtime. Lingering records are appended before any
 * transactional batch or marker of the same partition, so a transaction's marker always
 * lands after the transaction's records and after everything the shard wrote before it.
 *
 * Deliberate difference from Kafka: one runtime per shard, each shard over all of its
 * topic's partitions (Kafka: one shard per partition, on a thread pool). A single node leads
 * every partition; an event loop needs no shard-to-thread affinity.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { CoordinatorStateLostError } from '../../coordinator/index.js';
import type { RequestId, ResultToken, TimerKey } from '../../coordinator/types.js';
import type { Storage } from '../../storage/types.js';
import type { Scheduler } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import { KeyedTimers } from '../keyed-timers.js';
import { Appender, NOTHING_APPENDED } from './appender.js';
import { replayPartition } from './load.js';
import { ParkedRequests } from './parked-requests.js';
import type { CoordinatorShard, RecordPosition, ShardResult } from './shard.js';

/** Kafka's segment.bytes minimum (KIP-1030); smaller sizes (tests) go through internal.segment.bytes. */
const MIN_SEGMENT_BYTES = 1024 * 1024;
/** How long a failed load (the log offline while the storage recovers it) waits before it is tried again. */
const RELOAD_BACKOFF_MS = 500;

/** Once both settled: the earlier error code if it is one, else `outcome`'s. */
function chained(earlier: Promise<number>, outcome: Promise<number>): Promise<number> {
  return earlier.then((e) => outcome.then((own) => (e !== ErrorCode.NONE ? e : own)));
}

export interface InternalTopic {
  readonly name: string;
  readonly partitions: number;
  readonly segmentBytes: number;
  /** Topic configs besides the segment size (default: `cleanup.policy=compact`). */
  readonly configs?: Readonly<Record<string, string>>;
}

export interface CoordinatorRuntimeOptions<S extends CoordinatorShard<Res>, Res extends ShardResult> {
  /** For logs: "group coordinator", "transaction coordinator". */
  readonly name: string;
  readonly storage: Storage;
  readonly clock: Scheduler;
  readonly log: Logger;
  readonly topic: InternalTopic;
  /**
   * The shard changes its memory before its records are durable (Kafka's runtime model: the
   * group coordinator): a result's replies wait for every earlier append too, and a failed
   * append fails every result still pending after it (their state was built on it), which
   * the shard reverts. Otherwise (the transaction coordinator, as Kafka's
   * TransactionStateManager) the shard applies a record once it is durable: each result
   * stands alone, its replies go out at once and `settle` gets each record's outcome.
   */
  readonly pipelined: boolean;
  /**
   * Load replays every record of the topic in log order, not the last of each key, with its
   * offset: for a shard whose records add to each other (the share coordinator's ShareUpdate
   * records).
   */
  readonly replayEveryRecord?: boolean;
  /**
   * Pipelined: whether `result`'s replies may go out once its records and every earlier
   * result's are appended, before an fsync covers them (see `run`); `api` is the request's
   * (what `submit` was given; undefined for a timer or an operation). Default: never.
   */
  repliesOnAppend?(result: Res, api: unknown): boolean;
  /** A new, empty shard (at start-up and after a fail-stop). */
  newShard(): S;
  /** After replay, before `loaded` (the group coordinator takes the topics image here). */
  prepare?(shard: S): void;
  /** Fields for the "loaded" log line. */
  describeLoaded?(shard: S): Record<string, unknown>;
  /** The topic was just created. */
  topicCreated?(): void;
  /** Each result, once run (its timers applied, its records queued). */
  ran?(result: Res): void;
  /** Each result with a token, once settled (NONE: its records are durable). */
  settled?(result: Res, errorCode: number): void;
}

export class CoordinatorRuntime<S extends CoordinatorShard<Res>, Res extends ShardResult> {
  private current: S;
  private readonly timers: KeyedTimers<TimerKey>;
  private readonly parked = new ParkedRequests();
  private readonly appender: Appender;
  private nextRequestId = 1;
  /** Settles (never rejects) when every append so far is durable or failed. */
  private tail: Promise<void> = Promise.resolve();
  /**
   * Pipelined: the error code of the newest result's appends and those before it, since the
   * last revert, once they are all durable (`durableChain`) or all appended (`appendedChain`).
   */
  private durableChain: Promise<number> = Promise.resolve(ErrorCode.NONE);
  private appendedChain: Promise<number> = Promise.resolve(ErrorCode.NONE);
  /** Results answered once appended whose durability has not settled yet. */
  private answeredEarly = 0;
  /** Results whose appends (or earlier ones) are not settled yet. */
  private inFlight = 0;
  /** Work outside results (marker retries), awaited at stop. */
  private readonly background = new Set<Promise<unknown>>();
  private stopped = false;
  /** Aborted at stop: ends the backoffs of tracked work. */
  private readonly stopping = new AbortController();
  /** Kafka's coordinator epoch: counts loads; results of an earlier load settle without touching the shard loaded since. */
  private loadEpoch = 0;
  /** Set from a fail-stop until the shard is loaded again: requests answer NOT_COORDINATOR. */
  private reloading: Promise<void> | null = null;
  /** Operations that came while the shard was unloaded, run once it is loaded. */
  private whileUnloaded: ((shard: S, nowMs: number) => Res)[] = [];

  constructor(private readonly options: CoordinatorRuntimeOptions<S, Res>) {
    this.timers = new KeyedTimers(options.clock, (key) => this.execute(`timer ${key}`, (shard, nowMs) => shard.onTimer(key, nowMs), false));
    this.appender = new Appender({
      name: options.name, topic: options.topic.name, storage: options.storage, clock: options.clock, log: options.log, ensureTopic: () => this.ensureTopic(),
    });
    this.current = options.newShard();
  }

  /** The shard loaded now (a new instance after a fail-stop). */
  get shard(): S {
    return this.current;
  }

  /** True from a fail-stop until the shard is loaded again. */
  get unloaded(): boolean {
    return this.reloading !== null;
  }

  /** Replays the topic (when it exists) into the shard and runs its `loaded`. Throws when the log cannot be read. */
  load(): void {
    this.loadInto(this.current);
  }

  private loadInto(shard: S): void {
    let records = 0;
    const topic = this.options.storage.topic(this.options.topic.name);
    for (let p = 0; p < (topic?.partitions ?? 0); p++) {
      const log = this.options.storage.partition(this.options.topic.name, p);
      if (log === undefined) continue;
      records += replayPartition(shard, log, p, this.options.replayEveryRecord === true);
    }
    this.current = shard;
    this.options.prepare?.(shard);
    const nowMs = this.options.clock.nowMs();
    this.run(shard.loaded(nowMs));
    if (records > 0) this.options.log.info(`${this.options.name} loaded`, { records, ...this.options.describeLoaded?.(shard) });
  }

  /** Creates the topic when missing (FindCoordinator, first write). */
  ensureTopic(): void {
    const { storage, topic, log } = this.options;
    if (storage.topic(topic.name) !== undefined) return;
    const key = topic.segmentBytes >= MIN_SEGMENT_BYTES ? 'segment.bytes' : 'internal.segment.bytes';
    storage.createTopic(topic.name, topic.partitions, { 'cleanup.policy': 'compact', ...topic.configs, [key]: String(topic.segmentBytes) }, { isInternal: true });
    log.info('created internal topic', { topic: topic.name, partitions: topic.partitions });
    this.options.topicCreated?.();
  }

  /** The topic's partition count (the configured one until it exists). */
  get partitions(): number {
    return this.options.storage.topic(this.options.topic.name)?.partitions ?? this.options.topic.partitions;
  }

  /**
   * Runs one request through the shard. Resolves with the response when the shard answers
   * (possibly in a later result: a parked request) and its records are durable. When the
   * connection closes first, the request is forgotten and the promise never settles.
   */
  submit<Reply>(signal: AbortSignal, call: (shard: S, requestId: RequestId, nowMs: number) => Res, errorResponse: (errorCode: number) => Reply, what: unknown): Promise<Reply> {
    const requestId = this.nextRequestId++;
    return new Promise<Reply>((resolve) => {
      if (this.stopped || this.reloading !== null) {
        resolve(errorResponse(ErrorCode.NOT_COORDINATOR));
        return;
      }
      this.parked.expect(requestId, signal, resolve as (response: unknown) => void, errorResponse);
      let result: Res;
      try {
        result = call(this.current, requestId, this.options.clock.nowMs());
      } catch (err) {
        this.options.log.error(`${this.options.name} failed`, { api: what, err });
        if (err instanceof CoordinatorStateLostError) {
          this.failStop(err);
          return;
        }
        this.parked.parkExpected();
        // Behind earlier replies, like any other answer.
        if (this.options.pipelined) void this.tail.then(() => this.parked.fail(requestId, ErrorCode.UNKNOWN_SERVER_ERROR));
        else this.parked.fail(requestId, ErrorCode.UNKNOWN_SERVER_ERROR);
        return;
      }
      this.run(result, what);
      this.parked.parkExpected();
    });
  }

  /**
   * Runs an operation that is not a request (Kafka's scheduleWriteOperation): at once, or,
   * while the shard is unloaded, once it is loaded again (the load may have replayed its
   * effect already: the operation then finds nothing to do).
   */
  execute(what: string, op: (shard: S, nowMs: number) => Res, queueWhileUnloaded = true): void {
    if (this.stopped) return;
    if (this.reloading !== null) {
      if (queueWhileUnloaded) this.whileUnloaded.push(op);
      return;
    }
    try {
      this.run(op(this.current, this.options.clock.nowMs()));
    } catch (err) {
      this.options.log.error(`${this.options.name} ${what} failed`, { err });
      if (err instanceof CoordinatorStateLostError) this.failStop(err);
    }
  }

  /**
   * Appends a COMMIT or ABORT marker of `producerId` to one partition of the topic, behind
   * everything given to the runtime before (see the module comment); resolves once durable
   * with NONE, else the storage's own error code (WriteTxnMarkers answers it per partition,
   * and the marker's sender decides what to retry). The storage refuses a marker of an older
   * producer epoch.
   */
  appendMarker(partition: number, producerId: bigint, producerEpoch: number, commit: boolean, coordinatorEpoch: number, transactionVersion: number): Promise<number> {
    const outcome = this.appender.appendMarker(partition, producerId, producerEpoch, commit, coordinatorEpoch, transactionVersion);
    this.tail = this.tail.then(() => outcome.then(() => undefined));
    return outcome;
  }

  /** Tracks work outside results (a marker retry loop), awaited at stop. */
  track(promise: Promise<unknown>): void {
    const tracked = promise.catch((err: unknown) => this.options.log.error(`${this.options.name} failed`, { err }));
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * Sleeps on the runtime's clock (a retry backoff of work it tracks); ends early, without
   * an error, when the runtime stops, so that stop never waits out a backoff (nor, on a
   * manual clock, waits for a test to move time).
   */
  backoff(delayMs: number): Promise<void> {
    return this.options.clock.sleep(delayMs, this.stopping.signal).catch(() => undefined);
  }

  /** Shutdown: the shard unloads, timers stop, requests still parked get NOT_COORDINATOR; resolves once appends settle. */
  async stop(): Promise<void> {
    if (this.stopped) return this.tail;
    const { unload } = this.current;
    if (this.reloading === null && unload !== undefined) {
      try {
        this.run(unload.call(this.current, this.options.clock.nowMs()));
      } catch (err) {
        this.options.log.error(`${this.options.name} unload failed`, { err });
      }
    }
    this.stopped = true;
    this.stopping.abort();
    // What lingers (the unload's records too) goes now, not at the next turn.
    this.appender.flushAll();
    this.timers.stop();
    await this.tail;
    this.parked.failAll(ErrorCode.NOT_COORDINATOR);
    await Promise.allSettled([...this.background]);
  }

  /**
   * Carries out one result: timers at once, records appended, replies released in order.
   * Pipelined, a result's replies wait for every earlier append too: until its records and
   * every earlier result's are durable, or, when `repliesOnAppend` says so (membership, as
   * Kafka, which replies once a record is in the log and never waits for an fsync), only
   * until they are appended. An append that fails fails its own replies and those of every
   * result that came while it was pending: the shard then reverts them (settle), as Kafka's
   * runtime reverts the shard to its last committed state, failing the writes in flight.
   * An fsync that fails once replies built on what it covered went out cannot be undone that
   * way: the shard fails stop and is loaded again from the log, which the storage has cut
   * back to what is durable (as Kafka unloads its coordinators on a log directory failure).
   */
  run(result: Res, api?: unknown): void {
    for (const t of result.timers) {
      if ('schedule' in t) this.timers.schedule(t.schedule, t.atMs);
      else this.timers.cancel(t.cancel);
    }
    this.options.ran?.(result);
    const { token, records, replies } = result;
    if (records.length === 0 && replies.length === 0 && token === null) return;
    if (!this.options.pipelined) return this.runAlone(result);
    if (records.length === 0 && this.inFlight === 0) {
      // Nothing to write and nothing pending before it (a heartbeat that changed nothing):
      // settled and answered now, without a trip through the promise chains.
      if (token !== null) {
        this.options.settled?.(result, ErrorCode.NONE);
        this.settle(token, ErrorCode.NONE, null);
      }
      if (replies.length > 0) this.parked.deliver(replies, ErrorCode.NONE);
      return;
    }
    const epoch = this.loadEpoch;
    // A shard that tracks where its records lie (`written`) gets their positions.
    const own = records.length > 0 ? this.appender.appendRecords(records, this.current.written !== undefined) : NOTHING_APPENDED;
    // Nothing in flight: an old failure does not concern this result.
    const fresh = this.inFlight === 0;
    this.inFlight++;
    const appended = fresh ? own.appended : chained(this.appendedChain, own.appended);
    const durable = fresh ? own.durable : chained(this.durableChain, own.durable);
    this.appendedChain = appended;
    this.durableChain = durable;
    let answered = false;
    if (replies.length > 0 && this.options.repliesOnAppend?.(result, api) === true) {
      void appended.then((errorCode) => {
        // A failed append is answered with its revert, once durability settles.
        if (errorCode !== ErrorCode.NONE || epoch !== this.loadEpoch) return;
        answered = true;
        this.answeredEarly++;
        this.parked.deliver(replies, ErrorCode.NONE);
      });
    }
    const settled = durable.then((errorCode) => {
      this.inFlight--;
      const before = this.answeredEarly;
      if (answered) this.answeredEarly--;
      // Its shard was unloaded (fail-stop) and its requests answered then.
      if (epoch !== this.loadEpoch) return;
      if (errorCode !== ErrorCode.NONE && before > 0) {
        // This result, or one after it that the revert would undo too, was answered already.
        this.failStop(new Error(`${this.options.topic.name} records whose results were answered are not durable (error ${errorCode})`));
        return;
      }
      if (errorCode === ErrorCode.NONE && own.positions !== undefined) this.written(records, own.positions());
      // Results settle in order (each waits for the one before), as the shard needs.
      if (token !== null) {
        this.options.settled?.(result, errorCode);
        this.settle(token, errorCode, null);
      }
      if (replies.length > 0 && !answered) this.parked.deliver(replies, errorCode);
    });
    this.tail = this.tail.then(() => settled);
  }

  /** A result of a shard that is not pipelined: replies at once; the token settles with each record's outcome. */
  private runAlone(result: Res): void {
    if (result.replies.length > 0) this.parked.deliver(result.replies, ErrorCode.NONE);
    const { token, records } = result;
    if (records.length === 0) {
      if (token !== null) this.settle(token, ErrorCode.NONE, []);
      return;
    }
    const epoch = this.loadEpoch;
    const settled = this.appender.appendEach(records).then((codes) => {
      if (epoch !== this.loadEpoch || this.stopped || token === null) return;
      const errorCode = codes.find((c) => c !== ErrorCode.NONE) ?? ErrorCode.NONE;
      this.options.settled?.(result, errorCode);
      this.settle(token, errorCode, codes);
    });
    this.tail = this.tail.then(() => settled);
  }

  /**
   * Tells the shard how a result's records fared. Pipelined, the first failure reverts
   * everything pending, so results run after it are built on durable state only: they start
   * a new chain instead of inheriting that failure.
   */
  private settle(token: ResultToken, errorCode: number, recordErrors: readonly number[] | null): void {
    let next: Res | undefined;
    try {
      next = this.current.settle(token, errorCode, this.options.clock.nowMs(), recordErrors);
    } catch (err) {
      // Half-reverted memory must not serve: load it again from the log.
      this.failStop(err);
      return;
    }
    if (next === undefined) return;
    if (this.options.pipelined && errorCode !== ErrorCode.NONE) this.resetChains();
    this.run(next);
  }

  /** Tells the shard where its durable records lie; a shard that throws here fails stop, as on a settle. */
  private written(records: Res['records'], positions: RecordPosition[]): void {
    try {
      this.current.written?.(records, positions);
    } catch (err) {
      this.failStop(err);
    }
  }

  /**
   * The shard's memory may no longer match its log (a revert, or the undo of a failed
   * operation, threw): fail-stop, as Kafka's runtime fails a shard and loads it again. The
   * shard is unloaded at once: parked requests, and every request until it is loaded again,
   * get NOT_COORDINATOR (clients look for the coordinator and retry), its timers stop and
   * lingering batches are dropped unwritten. Once every append already issued has settled, a
   * new shard is loaded from the log, the only record of what is durable.
   */
  private failStop(err: unknown): void {
    if (this.reloading !== null || this.stopped) return;
    this.options.log.error(`${this.options.name} state may not match ${this.options.topic.name}: unloading it and loading it again from the log`, { err });
    this.loadEpoch++;
    this.timers.clear();
    this.appender.dropAll(ErrorCode.NOT_COORDINATOR);
    this.parked.failAll(ErrorCode.NOT_COORDINATOR);
    this.resetChains();
    this.reloading = this.reload();
  }

  /** After a revert or a fail-stop: later results neither inherit the failure nor wait for what failed. */
  private resetChains(): void {
    this.durableChain = Promise.resolve(ErrorCode.NONE);
    this.appendedChain = this.durableChain;
  }

  private async reload(): Promise<void> {
    await this.tail;
    for (;;) {
      if (this.stopped) return;
      try {
        this.loadInto(this.options.newShard());
        break;
      } catch (err) {
        this.options.log.warn(`loading the ${this.options.name} failed; retrying`, { err, retryInMs: RELOAD_BACKOFF_MS });
        await this.backoff(RELOAD_BACKOFF_MS);
      }
    }
    this.reloading = null;
    const ops = this.whileUnloaded;
    this.whileUnloaded = [];
    for (const op of ops) this.execute('queued operation', op);
  }
}
