/**
 * The public consumer: subscribe (topics or a pattern) or assign, poll / async iteration,
 * commits, positions and seeks, pause/resume, close. It holds the pieces: Cluster
 * (connections, metadata), with a groupId the GroupMember (group/group-member.ts: the group
 * membership of its groupProtocol, the coordinator look-up and the OffsetCommitter), Fetcher
 * (prefetch) and AutoCommitTask. All timing goes through the injected Scheduler. Errors
 * from background work are thrown by the next poll().
 *
 * Commits never claim a record the application has not finished with: what poll() returned
 * counts as consumed at the next poll() (or close()); a record the async iterator gave out
 * counts once the loop asks for the next one. Calls that talk to the cluster end by their
 * `timeoutMs` (default default.api.timeout.ms) with TimeoutError.
 */
import type { PartitionAssignor, TopicPartition } from '../../assignors/types.js';
import { Cluster } from '../cluster.js';
import { linkedSignal, withTimeLimit } from '../deadline.js';
import { callTimeoutMs } from '../options.js';
import type { Logger } from '../../util/log.js';
import { resolveAssignors } from './assignor-registry.js';
import { AutoCommitTask } from './auto-commit.js';
import { ConsumerAbortedError, IllegalConsumerStateError } from './errors.js';
import { Fetcher } from './fetcher.js';
import { GroupMember } from './group/group-member.js';
import { ConsumerInstrumentation } from './instrumentation.js';
import type { ConsumerMetrics } from './metrics.js';
import type { CommitCallback, OffsetCommitter, OffsetToCommit } from './offset-committer.js';
import { resetPositions } from './offset-reset.js';
import { resolveConsumerOptions, type ConsumerOptions, type GroupProtocol, type ResolvedConsumerOptions } from './options.js';
import type { ConsumerRecord, RawRecordVisitor } from './record-decoding.js';
import type { ConsumerRecordView } from './record-view.js';
import { SubscriptionState, tpKey, type RebalanceListener, type TopicPartitionState } from './subscription-state.js';

export interface PollOptions {
  /** How long to wait for records (default 1000 ms here; Java has no default). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** For calls that talk to the cluster: `timeoutMs` overrides defaultApiTimeoutMs; `signal` aborts the call. */
export interface CallOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface CloseOptions {
  /** The longest close() takes (commit, revocation listener, LeaveGroup): default 30 s, as Java. */
  readonly timeoutMs?: number;
}

/** Java's default close timeout. */
const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;

/**
 * K, V and H are the types the `deserializers` option gives keys, values and header values
 * (Buffer without it): `new Consumer({ ..., deserializers: { value: jsonDeserializer<Order>() } })`
 * is a `Consumer<Buffer, Order>`.
 */
export class Consumer<K = Buffer, V = Buffer, H = Buffer> implements AsyncIterable<ConsumerRecord<K, V, H>> {
  readonly options: ResolvedConsumerOptions;
  private readonly cluster: Cluster;
  private readonly subscriptions: SubscriptionState;
  private readonly logger: Logger;
  private readonly fetcher: Fetcher;
  private readonly membership: GroupMember | null;
  private readonly committer: OffsetCommitter | null;
  private readonly autoCommit: AutoCommitTask | null;
  private readonly instrumentation: ConsumerInstrumentation;
  private pendingError: Error | null = null;
  private assignorError: Error | null = null;
  private closed = false;
  private closing: Promise<void> | null = null;
  /** Who gave out the records in the application's hands: close() counts poll()'s as consumed, not the iterator's current one. */
  private handedOutBy: 'poll' | 'iterator' | null = null;
  private readonly closeController = new AbortController();
  private waiters: (() => void)[] = [];

  constructor(options: ConsumerOptions<K, V, H>) {
    const o = this.options = resolveConsumerOptions(options);
    this.logger = o.logger.child('consumer');
    this.cluster = new Cluster({
      bootstrapServers: o.bootstrapServers, clientId: o.clientId, requestTimeoutMs: o.requestTimeoutMs, connectTimeoutMs: o.connectTimeoutMs,
      retryBackoffMs: o.retryBackoffMs, tls: o.tls, sasl: o.sasl, scheduler: o.scheduler, logger: o.logger, connectionFactory: o.connectionFactory,
    });
    this.subscriptions = new SubscriptionState(o.autoOffsetReset);
    const instrumentation = this.instrumentation = new ConsumerInstrumentation(o.scheduler, o.clientId, o.groupId, this.subscriptions, () => ({
      groupProtocol: o.groupProtocol, memberId: this.membership?.memberId ?? '', generationId: this.membership?.generationId ?? -1,
    }));
    const wake = (): void => this.wake();
    this.fetcher = new Fetcher(this.cluster, this.subscriptions, o, this.logger, instrumentation.metrics, wake);
    if (o.groupId === null) {
      this.membership = this.committer = this.autoCommit = null;
    } else {
      const member = this.membership = new GroupMember({
        cluster: this.cluster, subscriptions: this.subscriptions, options: o, logger: this.logger,
        withCallLimit: (what, timeoutMs, operation) => this.withCallLimit(what, { timeoutMs }, operation),
        rebalanceStarted: () => instrumentation.rebalanceStarted(),
        onAssigned: () => {
          instrumentation.rebalanceCompleted();
          this.fetcher.clearStale();
          if (o.enableAutoCommit) this.autoCommit?.start();
        },
        dropFetched: () => this.fetcher.clearStale(),
        wake,
        reportError: (err) => {
          this.pendingError ??= err;
          wake();
        },
        commitCompleted: (offsets, durationMs, error) => instrumentation.commitCompleted(offsets, durationMs, error),
      }, o.groupId, this.classicAssignors());
      this.committer = member.committer;
      this.autoCommit = o.enableAutoCommit
        ? new AutoCommitTask(o.scheduler, o.autoCommitIntervalMs, member.committer, this.subscriptions, this.logger, () => member.active || !this.subscriptions.usesGroup)
        : null;
    }
    o.signal?.addEventListener('abort', () => { void this.close(); }, { once: true });
  }

  /**
   * The classic protocol's assignors. They matter only to subscribe(): assign() and offset
   * look-ups work without them (as Java ignores the strategy then), so a bad one is thrown by
   * subscribe(). The consumer protocol has none (the broker assigns).
   */
  private classicAssignors(): PartitionAssignor[] {
    if (this.options.groupProtocol !== 'classic') return [];
    try {
      return resolveAssignors(this.options.assignors);
    } catch (err) {
      this.assignorError = err as Error;
      return [];
    }
  }

  // ---- subscription -------------------------------------------------------------------

  /** Subscribes to topics (or a pattern matched against all topics) with group management. */
  subscribe(topics: readonly string[] | RegExp, listener: RebalanceListener = {}): void {
    this.ensureOpen();
    if (!this.membership) throw new IllegalConsumerStateError('subscribe() needs a groupId; use assign() without a group');
    if (this.assignorError) throw this.assignorError;
    if (topics instanceof RegExp) this.subscriptions.subscribePattern(topics, listener);
    else this.subscriptions.subscribe(topics, listener);
    this.membership.subscriptionChanged();
  }

  /** Manual assignment: no group membership; commits (with a groupId) are simple commits. */
  assign(partitions: readonly TopicPartition[]): void {
    this.ensureOpen();
    this.subscriptions.assignManually(partitions);
    this.fetcher.clearStale();
    if (this.options.enableAutoCommit && partitions.length > 0) this.autoCommit?.start();
  }

  unsubscribe(): void {
    this.ensureOpen();
    if (this.subscriptions.usesGroup) this.membership?.unsubscribed();
    this.subscriptions.unsubscribe();
    this.fetcher.clearStale();
  }

  /** The partitions of a topic, from fresh metadata (Java's partitionsFor); empty when the topic does not exist. */
  async partitionsFor(topic: string, options: CallOptions = {}): Promise<TopicPartition[]> {
    this.ensureOpen();
    const [meta] = await this.withCallLimit('partitionsFor', options, (signal) => this.cluster.refreshMetadata([topic], signal));
    if (!meta || meta.errorCode !== 0) return [];
    return meta.partitions.map((p) => ({ topic, partition: p.partition }));
  }

  /** Every topic the cluster has, with its partitions (Java's listTopics). */
  async listTopics(options: CallOptions = {}): Promise<Map<string, TopicPartition[]>> {
    this.ensureOpen();
    const topics = await this.withCallLimit('listTopics', options, (signal) => this.cluster.refreshMetadata(null, signal));
    const out = new Map<string, TopicPartition[]>();
    for (const t of topics) {
      if (t.errorCode === 0) out.set(t.name, t.partitions.map((p) => ({ topic: t.name, partition: p.partition })));
    }
    return out;
  }

  assignment(): TopicPartition[] {
    return this.subscriptions.assignedPartitions();
  }

  subscription(): string[] {
    return [...this.subscriptions.topics];
  }

  // ---- polling ------------------------------------------------------------------------

  /**
   * Records from assigned partitions, at most maxPollRecords; waits up to `timeoutMs` when
   * none are buffered. Joins or rejoins the group when needed (the join keeps going in the
   * background if the timeout ends first). Calling it says the application finished with
   * what the previous poll() returned: from now on commits include those records.
   */
  async poll(options: PollOptions = {}): Promise<ConsumerRecord<K, V, H>[]> {
    this.ensureOpen();
    this.subscriptions.markPositionsConsumed();
    const records = await this.fetchRecords(options);
    if (records.length > 0) this.handedOutBy = 'poll';
    return records;
  }

  /**
   * poll() for readers that copy bytes straight out (`brook consume`): each record goes to
   * `visitor` as its spans in the fetched data (RawRecord: valid only during the call, keys
   * and values not deserialized), with nothing allocated per record. The poll ends early
   * after a record for which `visitor` returns false. Returns how many records were given
   * out (at most maxPollRecords); as with poll(), they count as consumed at the next call.
   */
  async pollRaw(visitor: RawRecordVisitor, options: PollOptions = {}): Promise<number> {
    this.ensureOpen();
    this.subscriptions.markPositionsConsumed();
    const max = this.options.maxPollRecords;
    const count = await this.untilRecords(options, () => this.fetcher.visitFetchedRecords(max, visitor), 0);
    if (count > 0) this.handedOutBy = 'poll';
    return count;
  }

  /**
   * poll() that gives each record as a view of the fetched bytes (ConsumerRecordView): its
   * offset, key, value and headers are made only when read, so a consumer that reads few
   * fields allocates little per record. Keys and values are the raw bytes (the consumer's
   * deserializers do not apply); spreading a view leaves out its lazy fields (`toRecord()`
   * gives a plain ConsumerRecord). Positions and commits work as with poll(): the records
   * count as consumed at the next call.
   */
  async pollViews(options: PollOptions = {}): Promise<ConsumerRecordView[]> {
    this.ensureOpen();
    this.subscriptions.markPositionsConsumed();
    const max = this.options.maxPollRecords;
    const views = await this.untilRecords(options, () => this.fetcher.fetchedViews(max), []);
    if (views.length > 0) this.handedOutBy = 'poll';
    return views;
  }

  private fetchRecords(options: PollOptions): Promise<ConsumerRecord<K, V, H>[]> {
    const max = this.options.maxPollRecords;
    // The fetcher applied this consumer's deserializers, which give K, V and H.
    return this.untilRecords(options, () => this.fetcher.fetchedRecords(max) as ConsumerRecord<K, V, H>[], []);
  }

  /** Calls `give` until it gives out records (a non-empty array or a positive count) or the poll's time is up (then `none`). */
  private async untilRecords<T extends number | unknown[]>(options: PollOptions, give: () => T, none: T): Promise<T> {
    const linked = linkedSignal([options.signal, this.closeController.signal]);
    try {
      return await this.fetchRecordsUntil(options.timeoutMs ?? 1_000, linked.signal, give, none);
    } finally {
      linked.dispose();
    }
  }

  private async fetchRecordsUntil<T extends number | unknown[]>(timeoutMs: number, signal: AbortSignal, give: () => T, none: T): Promise<T> {
    const scheduler = this.options.scheduler;
    const deadline = scheduler.nowMs() + timeoutMs;
    this.membership?.recordPoll();
    for (;;) {
      this.throwPending();
      if (signal.aborted) throw new ConsumerAbortedError('poll aborted', { cause: signal.reason });
      if (this.membership && this.subscriptions.usesGroup && this.membership.needsRejoin) {
        const joined = this.membership.ensureActiveGroup(signal, this.closeController.signal).then(() => true, (err: unknown) => {
          if (!this.closed) this.pendingError ??= err as Error;
          return true;
        });
        if (!(await this.raceDeadline(joined, deadline, signal))) return none;
        continue;
      }
      await this.updateFetchPositions(signal);
      const given = give();
      if (typeof given === 'number' ? given > 0 : given.length > 0) return given;
      this.fetcher.sendFetches();
      if (scheduler.nowMs() >= deadline) return none;
      await this.raceDeadline(new Promise<boolean>((resolve) => this.waiters.push(() => resolve(true))), deadline, signal);
    }
  }

  /**
   * Async iteration over records: `for await (const record of consumer)`; ends when the
   * consumer closes or `signal` aborts. A record counts as consumed (commits include it)
   * once the loop asks for the next one. Leaving the loop early — `break`, `return` or a
   * throw, which JavaScript reports to the iterator alike — leaves the record in hand
   * unfinished: it is not committed and is read again after a restart. To stop after
   * finishing a record, abort `signal`: the loop then asks for the next record and ends.
   */
  async *records(options: { signal?: AbortSignal } = {}): AsyncGenerator<ConsumerRecord<K, V, H>, void, undefined> {
    const signal = options.signal;
    while (!this.closed && !signal?.aborted) {
      // Everything given out so far was finished: the loop came back for more.
      this.subscriptions.markPositionsConsumed();
      let batch: ConsumerRecord<K, V, H>[];
      try {
        this.ensureOpen();
        batch = await this.fetchRecords({ timeoutMs: 1_000, signal });
      } catch (err) {
        if (this.closed || signal?.aborted) return;
        throw err;
      }
      if (batch.length === 0) continue;
      this.handedOutBy = 'iterator';
      // Each partition's state as the batch was taken: a record whose partition was revoked or
      // sought since then is not this loop's to process. A batch holds each partition's
      // records together, so states are looked up once per partition, not per record.
      const epochs = new Map<TopicPartitionState, number>();
      let state: TopicPartitionState | undefined;
      for (const record of batch) {
        if (state?.topic !== record.topic || state.partition !== record.partition) {
          state = this.subscriptions.stateOf(record.topic, record.partition);
          if (state && !epochs.has(state)) epochs.set(state, state.epoch);
        }
      }
      state = undefined;
      for (const record of batch) {
        if (state?.topic !== record.topic || state.partition !== record.partition) state = this.subscriptions.stateOf(record.topic, record.partition);
        if (!state || state.epoch !== epochs.get(state)) continue;
        yield record;
        if (state.epoch === epochs.get(state)) state.markConsumed(record.offset + 1n, record.leaderEpoch);
        if (this.closed || signal?.aborted) return;
      }
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<ConsumerRecord<K, V, H>> {
    return this.records();
  }

  /** True when `promise` settled first, false at the deadline. */
  private raceDeadline(promise: Promise<boolean>, deadline: number, signal: AbortSignal): Promise<boolean> {
    const delay = deadline - this.options.scheduler.nowMs();
    if (delay <= 0) return Promise.race([promise, Promise.resolve(false)]);
    return new Promise<boolean>((resolve) => {
      const timer = this.options.scheduler.schedule(delay, () => done(false));
      const onAbort = (): void => done(true);
      signal.addEventListener('abort', onAbort, { once: true });
      function done(v: boolean): void {
        timer.cancel();
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      }
      void promise.then(done);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /**
   * Runs a call that talks to the cluster with its time limit (its own `timeoutMs`, else
   * default.api.timeout.ms); close() and the caller's signal abort it.
   */
  private withCallLimit<T>(what: string, options: CallOptions, operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withTimeLimit(this.options.scheduler, {
      what: `Consumer.${what}`,
      timeoutMs: callTimeoutMs(options.timeoutMs, this.options.defaultApiTimeoutMs),
      signals: [options.signal, this.closeController.signal],
      aborted: (reason) => new ConsumerAbortedError(`${what} aborted`, { cause: reason }),
    }, operation);
  }

  /** Initial positions: the committed offset (OffsetFetch), else auto.offset.reset; then pending resets via ListOffsets. */
  private async updateFetchPositions(signal?: AbortSignal): Promise<void> {
    const missing = this.subscriptions.missingPositions();
    if (missing.length > 0) {
      if (this.committer) {
        const committed = await this.committer.fetchCommitted(missing, signal);
        for (const s of missing) {
          if (this.subscriptions.stateOf(s.topic, s.partition) !== s || s.position !== null) continue;
          const offset = committed.get(tpKey(s.topic, s.partition)) ?? null;
          s.committed = offset;
          if (offset !== null) s.seek(offset);
          else this.subscriptions.requestDefaultReset(s);
        }
      } else {
        for (const s of missing) this.subscriptions.requestDefaultReset(s);
      }
    }
    const resets = this.subscriptions.needingReset();
    if (resets.length > 0) {
      try {
        await resetPositions(this.cluster, this.options, resets, signal);
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_NO_OFFSET_FOR_PARTITION') throw err;
        this.logger.debug('offset reset failed; retrying', { error: err as Error });
        await this.cluster.backoff(signal);
      }
    }
  }

  private throwPending(): void {
    const err = this.pendingError ?? this.membership?.fatalError ?? null;
    if (err) {
      this.pendingError = null;
      throw err;
    }
    // A refused login is reported once per failed attempt (Java's poll throws it and goes on
    // trying): the next poll waits for the next attempt instead of failing on the old one.
    const refused = this.cluster.authenticationError;
    if (refused !== null && refused !== this.reportedAuthenticationError) {
      this.reportedAuthenticationError = refused;
      throw refused;
    }
  }

  private reportedAuthenticationError: Error | null = null;

  // ---- commits ------------------------------------------------------------------------

  private offsetsOrConsumed(offsets?: readonly OffsetToCommit[]): OffsetToCommit[] {
    return offsets ? [...offsets] : this.subscriptions.allConsumed();
  }

  private requireCommitter(): OffsetCommitter {
    if (!this.committer) throw new IllegalConsumerStateError('commits need a groupId');
    return this.committer;
  }

  /**
   * Commits and waits; retries retriable errors until `timeoutMs` (default
   * defaultApiTimeoutMs: TimeoutError); CommitFailedError when the group moved on. Without
   * `offsets` it commits every partition's consumed offset (records the application
   * finished with); `offsets` commits exactly those, each the offset of the next record
   * to read (`record.offset + 1n`).
   */
  async commitSync(offsets?: readonly OffsetToCommit[], options: CallOptions = {}): Promise<void> {
    this.ensureOpen();
    const committer = this.requireCommitter();
    const list = this.offsetsOrConsumed(offsets);
    await this.withCallLimit('commitSync', options, (signal) => committer.commitSync(list, signal));
  }

  /**
   * Sends a commit without waiting (default: every consumed offset); `callback` runs once it
   * completes, in commit order. No retries; it fails after requestTimeoutMs.
   */
  commitAsync(offsets?: readonly OffsetToCommit[] | CommitCallback, callback?: CommitCallback): void {
    this.ensureOpen();
    const list = typeof offsets === 'function' ? undefined : offsets;
    const cb = typeof offsets === 'function' ? offsets : callback;
    void this.requireCommitter().commitAsync(this.offsetsOrConsumed(list), cb);
  }

  /** Committed offsets of the partitions (null when none), from the coordinator. */
  async committed(partitions: readonly TopicPartition[], options: CallOptions = {}): Promise<Map<string, bigint | null>> {
    this.ensureOpen();
    const committer = this.requireCommitter();
    const out = await this.withCallLimit('committed', options, (signal) => committer.fetchCommitted(partitions, signal));
    for (const tp of partitions) {
      const s = this.subscriptions.stateOf(tp.topic, tp.partition);
      if (s) s.committed = out.get(tpKey(tp.topic, tp.partition)) ?? null;
    }
    return out;
  }

  // ---- positions ----------------------------------------------------------------------

  /** The offset of the next record poll() will give for this partition (looked up when unknown). */
  async position(tp: TopicPartition, options: CallOptions = {}): Promise<bigint> {
    this.ensureOpen();
    const s = this.subscriptions.assignedState(tp);
    return this.withCallLimit('position', options, async (signal) => {
      while (!s.hasValidPosition) {
        await this.updateFetchPositions(signal);
        if (this.subscriptions.stateOf(tp.topic, tp.partition) !== s) throw new IllegalConsumerStateError(`partition ${tp.topic}-${tp.partition} was unassigned`);
      }
      return s.position!;
    });
  }

  seek(tp: TopicPartition, offset: bigint | number): void {
    this.ensureOpen();
    this.subscriptions.assignedState(tp).seek(BigInt(offset));
    this.fetcher.clearStale();
    this.wake();
  }

  seekToBeginning(partitions: readonly TopicPartition[] = this.assignment()): void {
    for (const tp of partitions) this.subscriptions.assignedState(tp).requestReset('earliest');
    this.fetcher.clearStale();
    this.wake();
  }

  seekToEnd(partitions: readonly TopicPartition[] = this.assignment()): void {
    for (const tp of partitions) this.subscriptions.assignedState(tp).requestReset('latest');
    this.fetcher.clearStale();
    this.wake();
  }

  pause(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.subscriptions.assignedState(tp).paused = true;
  }

  resume(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.subscriptions.assignedState(tp).paused = false;
    this.fetcher.sendFetches();
    this.wake();
  }

  paused(): TopicPartition[] {
    return [...this.subscriptions.states()].filter((s) => s.paused).map((s) => ({ topic: s.topic, partition: s.partition }));
  }

  /**
   * Member id and generation (Java's groupMetadata()); with the consumer protocol the
   * generation is the member epoch (-1 outside the group) and the member id is the one the
   * consumer generated for its lifetime. `protocol` is the classic group's assignor.
   */
  groupMetadata(): { groupId: string | null; memberId: string; generationId: number; groupInstanceId: string | null; protocol: string | null; groupProtocol: GroupProtocol } {
    return {
      groupId: this.options.groupId, memberId: this.membership?.memberId ?? '', generationId: this.membership?.generationId ?? -1,
      groupInstanceId: this.options.groupInstanceId, protocol: this.membership?.protocolName ?? null, groupProtocol: this.options.groupProtocol,
    };
  }

  /**
   * Whether the group has work for this member that the next poll() does: a rebalance began (or
   * the member must join again). A long-running handler may stop early when it is true, so the
   * group does not wait for this member (KafkaJS's heartbeat() throws REBALANCE_IN_PROGRESS then).
   */
  rebalancePending(): boolean {
    return this.membership?.needsRejoin ?? false;
  }

  /** The classic group's leader in the current generation ('' before a join); null without a group or with the consumer protocol. */
  groupLeaderId(): string | null {
    return this.membership?.leaderId ?? null;
  }

  /**
   * A snapshot of the consumer's metrics: records and bytes consumed, commit latency,
   * rebalances (rates and latencies over the last 30 s of the consumer's clock), and the
   * lag of every assigned partition.
   */
  metrics(): ConsumerMetrics {
    return this.instrumentation.snapshot();
  }

  // ---- closing ------------------------------------------------------------------------

  /**
   * Commits consumed offsets when auto-commit is on (what poll() returned counts as
   * consumed; the iterator's record in hand does not), revokes through the listener, sends
   * LeaveGroup (not for static members, as Java), and closes connections — within
   * `timeoutMs` (default 30 s); what did not finish by then is logged and abandoned.
   */
  close(options: CloseOptions = {}): Promise<void> {
    const timeoutMs = callTimeoutMs(options.timeoutMs, DEFAULT_CLOSE_TIMEOUT_MS);
    this.closing ??= this.closeWithin(timeoutMs);
    return this.closing;
  }

  private async closeWithin(timeoutMs: number): Promise<void> {
    this.closed = true;
    this.autoCommit?.stop();
    this.fetcher.close();
    this.membership?.stopBackground();
    if (this.handedOutBy === 'poll') this.subscriptions.markPositionsConsumed();
    const membership = this.membership;
    try {
      const sessionsClosed = this.fetcher.closeSessions(timeoutMs);
      await withTimeLimit(this.options.scheduler, { what: 'Consumer.close', timeoutMs }, async (signal) => {
        await Promise.all([membership?.leave(signal), sessionsClosed]);
      });
    } catch (err) {
      this.logger.warn('close did not complete cleanly', { error: err as Error });
    } finally {
      membership?.close();
      this.closeController.abort(new ConsumerAbortedError('the consumer was closed'));
      this.wake();
      this.cluster.close();
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new IllegalConsumerStateError('the consumer is closed');
  }
}
