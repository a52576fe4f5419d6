/**
 * The runtime around the group coordinator (src/coordinator/, a pure state machine): it
 * gives the coordinator the broker's clock, runs its timers, appends its records to
 * `__consumer_offsets` and releases its replies once those records are durable, answering
 * the handlers' parked promises by request id. See src/coordinator/README.md, "What
 * `run(result)` must do".
 *
 * Deliberate differences from Kafka:
 * - `__consumer_offsets` has a single partition (Kafka: offsets.topic.num.partitions = 50,
 *   group to partition by abs(hashCode(groupId)) % 50). With one node coordinating every
 *   group there is nothing to spread; one partition keeps replay in plain log order.
 * - The topic is created (cleanup.policy=compact, internal) at the first group
 *   FindCoordinator or the first coordinator write, not at start-up, so a broker that never
 *   served a group has no `__consumer_offsets`, as in Kafka. Creation is synchronous, so
 *   FindCoordinator never answers COORDINATOR_NOT_AVAILABLE while it loads.
 * - The storage's log cleaner compacts the topic (the broker runs it every
 *   log.cleaner.backoff.ms); replay reads whatever is left, gaps included.
 */
import { ErrorCode } from '../protocol/errors.js';
import { encodeRecordBatch } from '../protocol/records/index.js';
import { CoordinatorStateLostError, GroupCoordinator } from '../coordinator/index.js';
import type {
  CoordinatorRecord,
  CoordinatorReply,
  GroupCoordinatorConfig,
  CoordinatorResult,
  RequestContext as CoordinatorRequestContext,
  RequestId,
  ResultToken,
  TimerKey,
} from '../coordinator/index.js';
import { StorageError } from '../storage/index.js';
import type { Storage } from '../storage/types.js';
import type { Logger } from '../util/log.js';
import type { Scheduler } from './broker-context.js';
import type { RequestContext } from './handler.js';
import { KeyedTimers } from './keyed-timers.js';
import { GroupLifecycle } from './group-lifecycle.js';
import { readForReplay } from './offsets-replay.js';
import { AclOperation, ResourceType, authorize } from './authorization.js';

export const CONSUMER_OFFSETS_TOPIC = '__consumer_offsets';
/** See the module comment: one partition instead of Kafka's 50. */
export const CONSUMER_OFFSETS_PARTITIONS = 1;
/** Kafka's segment.bytes minimum (KIP-1030); smaller sizes (tests) go through internal.segment.bytes. */
const MIN_SEGMENT_BYTES = 1024 * 1024;

function consumerOffsetsConfigs(segmentBytes: number): Record<string, string> {
  const key = segmentBytes >= MIN_SEGMENT_BYTES ? 'segment.bytes' : 'internal.segment.bytes';
  return { 'cleanup.policy': 'compact', [key]: String(segmentBytes) };
}

/**
 * What a failed `__consumer_offsets` append answers, as Kafka's coordinator maps log append
 * errors (GroupCoordinatorService / GroupMetadataManager): a storage error makes the
 * client look for the coordinator again; a missing partition is "not available"; anything
 * else is an internal error.
 */
export function coordinatorError(err: unknown): number {
  if (!(err instanceof StorageError)) return ErrorCode.UNKNOWN_SERVER_ERROR;
  switch (err.errorCode) {
    case ErrorCode.KAFKA_STORAGE_ERROR:
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    default:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}


/**
 * A lingering batch holding about this many key and value bytes is appended at once rather
 * than at the end of the turn (Kafka's coordinator caps its batches by the topic's
 * max.message.bytes, 1 MiB by default).
 */
const MAX_LINGER_BATCH_BYTES = 512 * 1024;

/** How long a failed load of the coordinator (the log offline while it recovers) waits before it is tried again. */
const RELOAD_BACKOFF_MS = 500;

/** Records of the results run in this turn, appended together (see append()). */
interface LingerBatch {
  readonly records: CoordinatorRecord[];
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

export interface CoordinatorRuntimeOptions {
  readonly storage: Storage;
  /** The broker's clock: the coordinator's time and timers. */
  readonly clock: Scheduler;
  readonly log: Logger;
  /** The coordinator's settings (group.*, offsets.retention.*); Kafka's defaults for the rest. */
  readonly coordinator: Partial<GroupCoordinatorConfig>;
  /** offsets.topic.segment.bytes for `__consumer_offsets` when this runtime creates it. */
  readonly offsetsTopicSegmentBytes: number;
}

export class CoordinatorRuntime {
  /** The coordinator loaded now: a new one after a fail-stop (see failStop()). */
  private current: GroupCoordinator;
  private readonly config: Partial<GroupCoordinatorConfig>;
  /** The groups' lifecycle log lines and rebalance counts. */
  readonly lifecycle: GroupLifecycle;
  private readonly storage: Storage;
  private readonly clock: Scheduler;
  private readonly log: Logger;
  private readonly offsetsTopicSegmentBytes: number;
  private readonly timers: KeyedTimers<TimerKey>;
  private readonly parked = new Map<RequestId, Parked>();
  private readonly bySignal = new WeakMap<AbortSignal, Set<RequestId>>();
  private nextRequestId = 1;
  /** Settles (never rejects) when every append so far is durable or failed. */
  private tail: Promise<void> = Promise.resolve();
  /**
   * The error code of the newest result's appends and of those before it (NONE when all
   * durable), since the last revert: results after a revert are built on durable state.
   */
  private chain: Promise<number> = Promise.resolve(ErrorCode.NONE);
  /** Results whose appends (or earlier ones) are not settled yet. */
  private inFlight = 0;
  private lingering: LingerBatch | null = null;
  private stopped = false;
  /**
   * Kafka's coordinator epoch: counts the loads of the coordinator. Results of an earlier
   * load settle without touching the coordinator loaded since.
   */
  private coordinatorEpoch = 0;
  /** Set from a fail-stop until the coordinator is loaded again: requests answer NOT_COORDINATOR. */
  private reloading: Promise<void> | null = null;
  /** Transactions that ended while the coordinator was unloaded, applied once it is loaded. */
  private completionsWhileUnloaded: { producerId: bigint; commit: boolean }[] = [];

  private constructor(options: CoordinatorRuntimeOptions) {
    this.storage = options.storage;
    this.clock = options.clock;
    this.log = options.log;
    this.timers = new KeyedTimers(options.clock, (key) => {
      if (this.reloading !== null) return;
      try {
        this.run(this.current.onTimer(key, this.clock.nowMs()));
      } catch (err) {
        this.log.error('group coordinator timer failed', { key, err });
        if (err instanceof CoordinatorStateLostError) this.failStop(err);
      }
    });
    this.offsetsTopicSegmentBytes = options.offsetsTopicSegmentBytes;
    this.config = options.coordinator;
    this.current = new GroupCoordinator(options.coordinator);
    this.lifecycle = new GroupLifecycle(options.log, options.clock);
  }

  /** Replays `__consumer_offsets` (when it exists) and arms the coordinator's timers. */
  static start(options: CoordinatorRuntimeOptions): CoordinatorRuntime {
    const runtime = new CoordinatorRuntime(options);
    runtime.load(runtime.current);
    return runtime;
  }

  /** The group coordinator as loaded now (a new instance after a fail-stop). */
  get coordinator(): GroupCoordinator {
    return this.current;
  }

  /** Replays the log into `coordinator`, makes it the current one and arms its timers. */
  private load(coordinator: GroupCoordinator): void {
    const replayed = this.replay(coordinator);
    this.current = coordinator;
    // Consumer groups need the topics before loading (their regexes are resolved then).
    this.topicsChanged();
    this.run(coordinator.loaded(this.clock.nowMs()));
    if (replayed > 0) this.log.info('group coordinator loaded', { records: replayed, groups: coordinator.groupIds().length });
  }

  /**
   * The coordinator's memory may no longer match `__consumer_offsets` (a revert, or the undo
   * of a failed operation, threw): fail-stop, as Kafka's runtime fails a shard and loads it
   * again. The coordinator is unloaded at once: parked requests, and every request until it
   * is loaded again, get NOT_COORDINATOR (clients look for the coordinator and retry), its
   * timers stop and the lingering batch is dropped unwritten. Once every append already
   * issued has settled, a new coordinator is loaded from the log, the only record of what is
   * durable.
   */
  private failStop(err: unknown): void {
    if (this.reloading !== null || this.stopped) return;
    this.log.error('group coordinator state may not match __consumer_offsets: unloading it and loading it again from the log', { err });
    this.coordinatorEpoch++;
    this.timers.clear();
    const lingering = this.lingering;
    this.lingering = null;
    lingering?.resolve(ErrorCode.NOT_COORDINATOR);
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
        this.load(new GroupCoordinator(this.config));
        break;
      } catch (err) {
        // The log may be offline while the storage recovers it (a failed fsync).
        this.log.warn('loading the group coordinator failed; retrying', { err, retryInMs: RELOAD_BACKOFF_MS });
        await this.clock.sleep(RELOAD_BACKOFF_MS);
      }
    }
    this.reloading = null;
    const completions = this.completionsWhileUnloaded;
    this.completionsWhileUnloaded = [];
    for (const c of completions) this.completeTransaction(c.producerId, c.commit);
  }

  /** Creates `__consumer_offsets` when missing (FindCoordinator for a group, first write). */
  ensureTopic(): void {
    if (this.storage.topic(CONSUMER_OFFSETS_TOPIC) !== undefined) return;
    this.storage.createTopic(CONSUMER_OFFSETS_TOPIC, CONSUMER_OFFSETS_PARTITIONS, consumerOffsetsConfigs(this.offsetsTopicSegmentBytes), {
      isInternal: true,
    });
    this.log.info('created internal topic', { topic: CONSUMER_OFFSETS_TOPIC, partitions: CONSUMER_OFFSETS_PARTITIONS });
    this.topicsChanged();
  }

  /**
   * Tells the coordinator the broker's topics, after any was created, deleted or resized:
   * consumer groups (KIP-848) assign from them and notice changes to what they subscribe to
   * (Kafka's coordinator gets every new metadata image). Every topic, internal ones too.
   */
  topicsChanged(): void {
    // A coordinator being loaded gets the topics as it loads.
    if (this.reloading !== null) return;
    try {
      this.current.onMetadataChange(this.storage.topics().map((t) => ({ name: t.name, topicId: t.topicId, numPartitions: t.partitions })));
    } catch (err) {
      this.log.error('group coordinator metadata update failed', { err });
    }
  }

  /**
   * Runs one request through the coordinator. The promise resolves with the response when
   * the coordinator answers (possibly in a later result, for parked JoinGroup/SyncGroup)
   * and everything appended so far is durable. When the connection closes first, the
   * request is forgotten and the promise never settles (the connection drops it anyway).
   */
  submit<Res>(
    ctx: RequestContext,
    call: (coordinator: GroupCoordinator, cctx: CoordinatorRequestContext) => CoordinatorResult,
    errorResponse: (errorCode: number) => Res,
  ): Promise<Res> {
    const requestId = this.nextRequestId++;
    return new Promise<Res>((resolve) => {
      if (this.stopped || this.reloading !== null) {
        resolve(errorResponse(ErrorCode.NOT_COORDINATOR));
        return;
      }
      const ids = this.parkedOn(ctx.signal);
      ids.add(requestId);
      this.parked.set(requestId, {
        resolve: resolve as (response: unknown) => void,
        errorResponse,
        detach: () => ids.delete(requestId),
      });
      if (ctx.signal.aborted) this.take(requestId);
      const cctx: CoordinatorRequestContext = {
        requestId,
        apiVersion: ctx.apiVersion,
        clientId: ctx.header.clientId ?? '',
        clientHost: ctx.clientHost,
        nowMs: this.clock.nowMs(),
      };
      if (ctx.broker.acls !== null) cctx.mayDescribeTopic = (topic) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
      let result: CoordinatorResult;
      try {
        result = call(this.current, cctx);
      } catch (err) {
        this.log.error('group coordinator failed', { api: ctx.header.requestApiKey, err });
        if (err instanceof CoordinatorStateLostError) {
          this.failStop(err);
          return;
        }
        // Behind earlier replies, like any other answer.
        const parked = this.take(requestId);
        if (parked) void this.tail.then(() => parked.resolve(parked.errorResponse(ErrorCode.UNKNOWN_SERVER_ERROR)));
        return;
      }
      this.run(result);
    });
  }

  /**
   * The transaction of `producerId` ended and its marker is durable in `__consumer_offsets`
   * (the transaction coordinator's marker path calls this): its pending transactional
   * offsets become committed (`commit`) or are dropped. While the coordinator is unloaded it
   * waits for the load (which may have replayed the marker already: then it finds nothing).
   */
  completeTransaction(producerId: bigint, commit: boolean): void {
    if (this.stopped) return;
    if (this.reloading !== null) {
      this.completionsWhileUnloaded.push({ producerId, commit });
      return;
    }
    try {
      this.run(this.current.completeTransaction(producerId, commit, this.clock.nowMs()));
    } catch (err) {
      this.log.error('group coordinator failed to complete a transaction', { producerId, err });
      if (err instanceof CoordinatorStateLostError) this.failStop(err);
    }
  }

  /** Shutdown: parked requests get NOT_COORDINATOR, timers stop; resolves once appends settle. */
  async stop(): Promise<void> {
    if (this.stopped) return this.tail;
    if (this.reloading === null) {
      try {
        this.run(this.current.unload(this.clock.nowMs()));
      } catch (err) {
        this.log.error('group coordinator unload failed', { err });
      }
    }
    this.stopped = true;
    // Unload's records (and any lingering ones) go now, not at the next turn.
    if (this.lingering !== null) this.appendLingering(this.lingering);
    this.timers.stop();
    await this.tail;
  }

  /**
   * Carries out one result: timers at once, records appended, replies after durability.
   * Replies wait for every earlier append too. An append that fails fails its own replies
   * and those of every result that came while it was pending: their state was built on
   * records that may be lost. The coordinator then reverts them (settle()), as Kafka's
   * runtime reverts the shard to its last committed state, failing the writes in flight.
   */
  private run(result: CoordinatorResult): void {
    for (const t of result.timers) {
      if ('schedule' in t) this.timers.schedule(t.schedule, t.atMs);
      else this.timers.cancel(t.cancel);
    }
    const { token, events } = result;
    const epoch = this.coordinatorEpoch;
    // Without a token the result cannot be reverted: what it tells has happened.
    if (token === null && events.length > 0) this.lifecycle.handle(events);
    if (result.records.length === 0 && result.replies.length === 0 && token === null) return;
    const appended = result.records.length > 0 ? this.appendRecords(result.records) : Promise.resolve(ErrorCode.NONE);
    // Nothing in flight: an old failure does not concern this result.
    const previous = this.inFlight === 0 ? Promise.resolve(ErrorCode.NONE) : this.chain;
    this.inFlight++;
    const ready = previous.then((earlier) => appended.then((own) => (earlier !== ErrorCode.NONE ? earlier : own)));
    this.chain = ready;
    const settled = ready.then((errorCode) => {
      this.inFlight--;
      // Its coordinator was unloaded (fail-stop) and its requests answered then.
      if (epoch !== this.coordinatorEpoch) return;
      if (token !== null && events.length > 0) {
        if (errorCode === ErrorCode.NONE) this.lifecycle.handle(events);
        else this.log.debug('group events reverted', { events: events.length, errorCode });
      }
      // Results settle in order (each waits for the one before), as the coordinator needs.
      if (token !== null) this.settle(token, errorCode);
      if (result.replies.length > 0) this.deliver(result.replies, errorCode);
    });
    this.tail = this.tail.then(() => settled);
  }

  /**
   * Tells the coordinator how a result's records fared: durable, or failed (its own or an
   * earlier pending append), when it reverts the result and every later one. The first
   * failure reverts everything pending, so results run after it are built on durable state
   * only: they start a new chain instead of inheriting that failure.
   */
  private settle(token: ResultToken, errorCode: number): void {
    if (errorCode === ErrorCode.NONE) {
      this.current.committed(token);
      return;
    }
    let reverted: CoordinatorResult | undefined;
    try {
      reverted = this.current.revert(token, errorCode, this.clock.nowMs());
    } catch (err) {
      // Half-reverted memory must not serve: load it again from the log.
      this.failStop(err);
      return;
    }
    if (reverted === undefined) return; // reverted with an earlier result
    this.chain = Promise.resolve(ErrorCode.NONE);
    this.run(reverted);
  }

  /**
   * Appends a result's records in order: records of a transaction (TxnOffsetCommit) go in a
   * transactional batch of their producer, after whatever lingers; the rest linger.
   */
  private appendRecords(records: CoordinatorRecord[]): Promise<number> {
    if (records.every((r) => r.producerId === undefined)) return this.append(records);
    const outcomes: Promise<number>[] = [];
    let i = 0;
    while (i < records.length) {
      const producerId = records[i]!.producerId;
      let j = i + 1;
      while (j < records.length && records[j]!.producerId === producerId && records[j]!.producerEpoch === records[i]!.producerEpoch) j++;
      const run = records.slice(i, j);
      if (producerId === undefined) {
        outcomes.push(this.append(run));
      } else {
        if (this.lingering !== null) this.appendLingering(this.lingering);
        outcomes.push(this.appendTransactional(run, producerId, run[0]!.producerEpoch ?? 0));
      }
      i = j;
    }
    return Promise.all(outcomes).then((codes) => codes.find((c) => c !== ErrorCode.NONE) ?? ErrorCode.NONE);
  }

  /** One transactional batch of `producerId` (no sequence: Kafka's coordinator writes none); resolves as append's. */
  private appendTransactional(records: CoordinatorRecord[], producerId: bigint, producerEpoch: number): Promise<number> {
    try {
      this.ensureTopic();
      const log = this.storage.partition(CONSUMER_OFFSETS_TOPIC, 0);
      if (log === undefined) throw new Error(`${CONSUMER_OFFSETS_TOPIC} partition 0 is missing`);
      const nowMs = this.clock.nowMs();
      const encoded = encodeRecordBatch({
        records: records.map((r) => ({ key: r.key, value: r.value, timestamp: nowMs })),
        producerId, producerEpoch, baseSequence: -1, isTransactional: true,
      });
      return log.append(encoded, { nowMs, origin: 'coordinator' }).durable.then(() => ErrorCode.NONE, (err: unknown) => {
        this.log.error('group coordinator records are not durable', { err });
        return coordinatorError(err);
      });
    } catch (err) {
      this.log.error('group coordinator transactional append failed', { err });
      return Promise.resolve(coordinatorError(err));
    }
  }

  /**
   * Queues the records for the next `__consumer_offsets` append; resolves with NONE once
   * they are durable, else the error the replies carry. Results that come in the same turn
   * of the event loop (the requests read from every connection) share one batch, one write
   * and one fsync, as Kafka's coordinator runtime accumulates records into one batch per
   * append (its append linger): per-commit writes and batch framing otherwise cost more than
   * the commits themselves. Order is unchanged: a batch holds results in run() order, and
   * replies still wait for every earlier batch (the chain in run()).
   */
  private append(records: CoordinatorRecord[]): Promise<number> {
    let batch = this.lingering;
    if (batch === null) {
      let resolve!: (errorCode: number) => void;
      const outcome = new Promise<number>((res) => {
        resolve = res;
      });
      const created: LingerBatch = { records: [], bytes: 0, outcome, resolve };
      this.lingering = batch = created;
      setImmediate(() => this.appendLingering(created));
    }
    for (const r of records) {
      batch.records.push(r);
      batch.bytes += r.key.length + (r.value?.length ?? 0);
    }
    const outcome = batch.outcome;
    if (batch.bytes >= MAX_LINGER_BATCH_BYTES) this.appendLingering(batch);
    return outcome;
  }

  /** Appends a lingering batch (once: at its immediate, or earlier when it grew full). */
  private appendLingering(batch: LingerBatch): void {
    if (this.lingering !== batch) return;
    this.lingering = null;
    try {
      this.ensureTopic();
      const log = this.storage.partition(CONSUMER_OFFSETS_TOPIC, 0);
      if (log === undefined) throw new Error(`${CONSUMER_OFFSETS_TOPIC} partition 0 is missing`);
      const nowMs = this.clock.nowMs();
      const encoded = encodeRecordBatch({ records: batch.records.map((r) => ({ key: r.key, value: r.value, timestamp: nowMs })) });
      const { durable } = log.append(encoded, { nowMs, origin: 'coordinator' });
      durable.then(
        () => batch.resolve(ErrorCode.NONE),
        (err: unknown) => {
          this.log.error('group coordinator records are not durable', { err });
          batch.resolve(coordinatorError(err));
        },
      );
    } catch (err) {
      // The results that wrote these records are reverted when their replies fail (settle()).
      this.log.error('group coordinator append failed', { err });
      batch.resolve(coordinatorError(err));
    }
  }

  private deliver(replies: CoordinatorReply[], errorCode: number): void {
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

  /**
   * Replays `__consumer_offsets`: the last record of each key, in log order (offsets-replay.ts
   * says why that gives the same state); returns how many records the log held.
   */
  private replay(coordinator: GroupCoordinator): number {
    const log = this.storage.partition(CONSUMER_OFFSETS_TOPIC, 0);
    if (log === undefined) return 0;
    const latest = readForReplay(log);
    for (const record of latest.toReplay()) coordinator.replay(record);
    // Offsets of transactions still open at the log end: pending until their marker.
    for (const record of latest.openTransactionRecords()) coordinator.replay(record);
    return latest.records;
  }
}
