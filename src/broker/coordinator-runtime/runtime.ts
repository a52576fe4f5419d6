/**
 * One runtime for the coordinators that keep their state in an internal topic, as Kafka's
 * coordinator-common CoordinatorRuntime: the group coordinator (`__consumer_offsets`) and
 * the transaction coordinator (`__transaction_state`) run on it as shards (shard.ts), and
 * share-group state would be a third. It owns, for its shard:
 * - the topic: created (compacted, internal) at the first need, not at start-up, as Kafka;
 * - load: replay of every partition at start-up, then `loaded`; and again after a fail-stop;
 * - append: the records of every result run in one turn of the event loop go to each
 *   partition as one batch, one write and one fsync (sooner past 512 KiB), as Kafka's
 *   runtime lingers its appends; records of a producer (TxnOffsetCommit) go in a
 *   transactional batch of their own, and transaction markers through `appendMarker`;
 * - durability: replies go out once the records are durable (see `pipelined`), tokens are
 *   settled in order, a failed append is mapped once (append-errors.ts);
 * - timers, on the broker's clock (KeyedTimers);
 * - fail-stop: a settle that throws, or an operation whose undo failed
 *   (CoordinatorStateLostError), unloads the shard (NOT_COORDINATOR meanwhile) and loads a
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
import { ControlRecordType, encodeEndTxnMarkerBatch, encodeRecordBatch } from '../../protocol/records/index.js';
import { CoordinatorStateLostError } from '../../coordinator/index.js';
import type { RequestId, ResultToken, TimerKey } from '../../coordinator/types.js';
import type { PartitionLog, Storage } from '../../storage/types.js';
import { StorageError } from '../../storage/index.js';
import type { Scheduler } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import { KeyedTimers } from '../keyed-timers.js';
import { readForReplay } from '../offsets-replay.js';
import { appendErrorCode } from './append-errors.js';
import type { CoordinatorShard, ShardRecord, ShardReply, ShardResult } from './shard.js';

/** Kafka's segment.bytes minimum (KIP-1030); smaller sizes (tests) go through internal.segment.bytes. */
const MIN_SEGMENT_BYTES = 1024 * 1024;
/**
 * A lingering batch holding about this many key and value bytes is appended at once rather
 * than at the end of the turn (Kafka's runtime caps its batches by max.message.bytes).
 */
const MAX_LINGER_BATCH_BYTES = 512 * 1024;
/** How long a failed load (the log offline while the storage recovers it) waits before it is tried again. */
const RELOAD_BACKOFF_MS = 500;

export interface InternalTopic {
  readonly name: string;
  readonly partitions: number;
  readonly segmentBytes: number;
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

interface LingerBatch {
  readonly partition: number;
  readonly records: ShardRecord[];
  bytes: number;
  readonly outcome: Promise<number>;
  resolve(errorCode: number): void;
}

interface Parked {
  resolve(response: unknown): void;
  /** The request's answer with this error everywhere (append failure, internal error). */
  errorResponse(errorCode: number): unknown;
  detach(): void;
}

export class CoordinatorRuntime<S extends CoordinatorShard<Res>, Res extends ShardResult> {
  private current: S;
  private readonly timers: KeyedTimers<TimerKey>;
  private readonly parked = new Map<RequestId, Parked>();
  private readonly bySignal = new WeakMap<AbortSignal, Set<RequestId>>();
  private nextRequestId = 1;
  /** Settles (never rejects) when every append so far is durable or failed. */
  private tail: Promise<void> = Promise.resolve();
  /** Pipelined: the error code of the newest result's appends and those before it, since the last revert. */
  private chain: Promise<number> = Promise.resolve(ErrorCode.NONE);
  /** Results whose appends (or earlier ones) are not settled yet. */
  private inFlight = 0;
  /** The lingering batch of each partition. */
  private readonly lingering: (LingerBatch | null)[] = [];
  /** Work outside results (marker retries), awaited at stop. */
  private readonly background = new Set<Promise<unknown>>();
  private stopped = false;
  /** Kafka's coordinator epoch: counts loads; results of an earlier load settle without touching the shard loaded since. */
  private loadEpoch = 0;
  /** Set from a fail-stop until the shard is loaded again: requests answer NOT_COORDINATOR. */
  private reloading: Promise<void> | null = null;
  /** Operations that came while the shard was unloaded, run once it is loaded. */
  private whileUnloaded: ((shard: S, nowMs: number) => Res)[] = [];

  constructor(private readonly options: CoordinatorRuntimeOptions<S, Res>) {
    this.timers = new KeyedTimers(options.clock, (key) => this.execute(`timer ${key}`, (shard, nowMs) => shard.onTimer(key, nowMs), false));
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
      const latest = readForReplay(log);
      for (const record of latest.toReplay()) shard.replay(record);
      // Records of transactions still open at the log end: pending until their marker.
      for (const record of latest.openTransactionRecords()) shard.replay(record);
      records += latest.records;
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
    storage.createTopic(topic.name, topic.partitions, { 'cleanup.policy': 'compact', [key]: String(topic.segmentBytes) }, { isInternal: true });
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
      const ids = this.parkedOn(signal);
      ids.add(requestId);
      this.parked.set(requestId, { resolve: resolve as (response: unknown) => void, errorResponse, detach: () => ids.delete(requestId) });
      if (signal.aborted) this.take(requestId);
      let result: Res;
      try {
        result = call(this.current, requestId, this.options.clock.nowMs());
      } catch (err) {
        this.options.log.error(`${this.options.name} failed`, { api: what, err });
        if (err instanceof CoordinatorStateLostError) {
          this.failStop(err);
          return;
        }
        const parked = this.take(requestId);
        if (parked === undefined) return;
        // Behind earlier replies, like any other answer.
        if (this.options.pipelined) void this.tail.then(() => parked.resolve(parked.errorResponse(ErrorCode.UNKNOWN_SERVER_ERROR)));
        else parked.resolve(parked.errorResponse(ErrorCode.UNKNOWN_SERVER_ERROR));
        return;
      }
      this.run(result);
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
  appendMarker(partition: number, producerId: bigint, producerEpoch: number, commit: boolean, coordinatorEpoch: number): Promise<number> {
    const nowMs = this.options.clock.nowMs();
    const batch = encodeEndTxnMarkerBatch({
      producerId, producerEpoch, coordinatorEpoch, timestampMs: nowMs, type: commit ? ControlRecordType.Commit : ControlRecordType.Abort,
    });
    let durable: Promise<void>;
    try {
      const log = this.partitionLog(partition);
      this.flushLingering(partition);
      durable = log.append(batch, { nowMs, origin: 'coordinator' }).durable;
    } catch (err) {
      durable = Promise.reject(err);
    }
    const outcome = durable.then(() => ErrorCode.NONE, (err: unknown) => {
      if (err instanceof StorageError) return err.errorCode;
      this.options.log.error('transaction marker append failed', { topic: this.options.topic.name, partition, err });
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    });
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
    // What lingers (the unload's records too) goes now, not at the next turn.
    for (const batch of this.lingering) if (batch !== undefined && batch !== null) this.appendLingering(batch);
    this.timers.stop();
    await this.tail;
    for (const requestId of [...this.parked.keys()]) {
      const parked = this.take(requestId);
      parked?.resolve(parked.errorResponse(ErrorCode.NOT_COORDINATOR));
    }
    await Promise.allSettled([...this.background]);
  }

  /**
   * Carries out one result: timers at once, records appended, replies after durability.
   * Pipelined, replies wait for every earlier append too, and an append that fails fails
   * its own replies and those of every result that came while it was pending: the shard
   * then reverts them (settle), as Kafka's runtime reverts the shard to its last committed
   * state, failing the writes in flight.
   */
  run(result: Res): void {
    for (const t of result.timers) {
      if ('schedule' in t) this.timers.schedule(t.schedule, t.atMs);
      else this.timers.cancel(t.cancel);
    }
    this.options.ran?.(result);
    const { token, records, replies } = result;
    if (records.length === 0 && replies.length === 0 && token === null) return;
    if (!this.options.pipelined) return this.runAlone(result);
    const epoch = this.loadEpoch;
    const appended = records.length > 0 ? this.appendRecords(records) : Promise.resolve(ErrorCode.NONE);
    // Nothing in flight: an old failure does not concern this result.
    const previous = this.inFlight === 0 ? Promise.resolve(ErrorCode.NONE) : this.chain;
    this.inFlight++;
    const ready = previous.then((earlier) => appended.then((own) => (earlier !== ErrorCode.NONE ? earlier : own)));
    this.chain = ready;
    const settled = ready.then((errorCode) => {
      this.inFlight--;
      // Its shard was unloaded (fail-stop) and its requests answered then.
      if (epoch !== this.loadEpoch) return;
      // Results settle in order (each waits for the one before), as the shard needs.
      if (token !== null) {
        this.options.settled?.(result, errorCode);
        this.settle(token, errorCode, null);
      }
      if (replies.length > 0) this.deliver(replies, errorCode);
    });
    this.tail = this.tail.then(() => settled);
  }

  /** A result of a shard that is not pipelined: replies at once; the token settles with each record's outcome. */
  private runAlone(result: Res): void {
    if (result.replies.length > 0) this.deliver(result.replies, ErrorCode.NONE);
    const { token, records } = result;
    if (records.length === 0) {
      if (token !== null) this.settle(token, ErrorCode.NONE, []);
      return;
    }
    const epoch = this.loadEpoch;
    const outcomes = records.map((r) => (r.producerId === undefined ? this.append([r]) : this.appendTransactional([r], r.producerId, r.producerEpoch ?? 0)));
    const settled = Promise.all(outcomes).then((codes) => {
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
    if (this.options.pipelined && errorCode !== ErrorCode.NONE) this.chain = Promise.resolve(ErrorCode.NONE);
    this.run(next);
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
    for (let p = 0; p < this.lingering.length; p++) {
      const batch = this.lingering[p] ?? null;
      this.lingering[p] = null;
      batch?.resolve(ErrorCode.NOT_COORDINATOR);
    }
    for (const requestId of [...this.parked.keys()]) {
      const parked = this.take(requestId);
      parked?.resolve(parked.errorResponse(ErrorCode.NOT_COORDINATOR));
    }
    this.chain = Promise.resolve(ErrorCode.NONE);
    this.reloading = this.reload();
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
        await this.options.clock.sleep(RELOAD_BACKOFF_MS);
      }
    }
    this.reloading = null;
    const ops = this.whileUnloaded;
    this.whileUnloaded = [];
    for (const op of ops) this.execute('queued operation', op);
  }

  /**
   * Appends a result's records in order: runs of records of one producer go in a
   * transactional batch of that producer (after what lingers); the rest linger.
   */
  private appendRecords(records: readonly ShardRecord[]): Promise<number> {
    if (records.every((r) => r.producerId === undefined)) return this.append(records);
    const outcomes: Promise<number>[] = [];
    let i = 0;
    while (i < records.length) {
      const producerId = records[i]!.producerId;
      let j = i + 1;
      while (j < records.length && records[j]!.producerId === producerId && records[j]!.producerEpoch === records[i]!.producerEpoch) j++;
      const run = records.slice(i, j);
      outcomes.push(producerId === undefined ? this.append(run) : this.appendTransactional(run, producerId, run[0]!.producerEpoch ?? 0));
      i = j;
    }
    return Promise.all(outcomes).then((codes) => codes.find((c) => c !== ErrorCode.NONE) ?? ErrorCode.NONE);
  }

  /** One transactional batch of `producerId` (no sequence: Kafka's coordinator writes none), behind what lingers. */
  private appendTransactional(records: readonly ShardRecord[], producerId: bigint, producerEpoch: number): Promise<number> {
    const partition = records[0]!.partition ?? 0;
    try {
      const log = this.partitionLog(partition);
      this.flushLingering(partition);
      const nowMs = this.options.clock.nowMs();
      const encoded = encodeRecordBatch({
        records: records.map((r) => ({ key: r.key, value: r.value, timestamp: nowMs })),
        producerId, producerEpoch, baseSequence: -1, isTransactional: true,
      });
      return log.append(encoded, { nowMs, origin: 'coordinator' }).durable.then(() => ErrorCode.NONE, (err: unknown) => this.appendFailed(err));
    } catch (err) {
      return Promise.resolve(this.appendFailed(err));
    }
  }

  /**
   * Queues records for their partition's next append; resolves with NONE once they are
   * durable, else the error the replies carry. Results run in the same turn of the event
   * loop (the requests read from every connection) share one batch, one write and one fsync
   * per partition, as Kafka's runtime accumulates records into one batch per append: per-
   * commit writes and batch framing otherwise cost more than the commits themselves.
   */
  private append(records: readonly ShardRecord[]): Promise<number> {
    let last: LingerBatch | null = null;
    let outcomes: Promise<number>[] | null = null;
    for (const r of records) {
      const partition = r.partition ?? 0;
      let batch = this.lingering[partition] ?? null;
      if (batch === null) batch = this.newBatch(partition);
      batch.records.push(r);
      batch.bytes += r.key.length + (r.value?.length ?? 0);
      if (last !== null && batch !== last) (outcomes ??= [last.outcome]).push(batch.outcome);
      last = batch;
      if (batch.bytes >= MAX_LINGER_BATCH_BYTES) this.appendLingering(batch);
    }
    if (last === null) return Promise.resolve(ErrorCode.NONE);
    if (outcomes === null) return last.outcome;
    return Promise.all(outcomes).then((codes) => codes.find((c) => c !== ErrorCode.NONE) ?? ErrorCode.NONE);
  }

  private newBatch(partition: number): LingerBatch {
    let resolve!: (errorCode: number) => void;
    const outcome = new Promise<number>((res) => {
      resolve = res;
    });
    const batch: LingerBatch = { partition, records: [], bytes: 0, outcome, resolve };
    this.lingering[partition] = batch;
    setImmediate(() => this.appendLingering(batch));
    return batch;
  }

  private flushLingering(partition: number): void {
    const batch = this.lingering[partition];
    if (batch !== undefined && batch !== null) this.appendLingering(batch);
  }

  /** Appends a lingering batch (once: at its immediate, or earlier when it grew full or must go first). */
  private appendLingering(batch: LingerBatch): void {
    if (this.lingering[batch.partition] !== batch) return;
    this.lingering[batch.partition] = null;
    try {
      const log = this.partitionLog(batch.partition);
      const nowMs = this.options.clock.nowMs();
      const encoded = encodeRecordBatch({ records: batch.records.map((r) => ({ key: r.key, value: r.value, timestamp: nowMs })) });
      log.append(encoded, { nowMs, origin: 'coordinator' }).durable.then(
        () => batch.resolve(ErrorCode.NONE),
        (err: unknown) => batch.resolve(this.appendFailed(err)),
      );
    } catch (err) {
      // The results that wrote these records are reverted when their replies fail (settle()).
      batch.resolve(this.appendFailed(err));
    }
  }

  private appendFailed(err: unknown): number {
    this.options.log.error(`${this.options.name} records are not durable`, { topic: this.options.topic.name, err });
    return appendErrorCode(err);
  }

  private partitionLog(partition: number): PartitionLog {
    this.ensureTopic();
    const log = this.options.storage.partition(this.options.topic.name, partition);
    if (log === undefined) throw new StorageError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${this.options.topic.name} partition ${partition} is missing`);
    return log;
  }

  private deliver(replies: readonly ShardReply[], errorCode: number): void {
    for (const reply of replies) {
      const parked = this.take(reply.requestId);
      if (parked === undefined) continue; // its connection closed
      parked.resolve(errorCode === ErrorCode.NONE ? reply.response : parked.errorResponse(errorCode));
    }
  }

  /**
   * The ids parked by one connection, forgotten together when it closes: one abort listener
   * per connection, not one per request (pipelined requests would pile listeners up).
   */
  private parkedOn(signal: AbortSignal): Set<RequestId> {
    let ids = this.bySignal.get(signal);
    if (ids === undefined) {
      const set = new Set<RequestId>();
      ids = set;
      this.bySignal.set(signal, set);
      signal.addEventListener('abort', () => {
        for (const id of set) this.parked.delete(id);
        set.clear();
      }, { once: true });
    }
    return ids;
  }

  private take(requestId: RequestId): Parked | undefined {
    const parked = this.parked.get(requestId);
    if (parked === undefined) return undefined;
    this.parked.delete(requestId);
    parked.detach();
    return parked;
  }
}
