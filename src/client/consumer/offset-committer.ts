/**
 * OffsetCommit and OffsetFetch against the group coordinator (Java's commitOffsetsSync /
 * commitOffsetsAsync / fetchCommittedOffsets). Every response is handled, awaited or not:
 * on success each partition's **committed** offset is updated. Errors are classified once,
 * in ../coordinator-errors.ts. Time limits come from the caller's signal.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { ZERO_UUID, type Cluster } from '../cluster.js';
import { coordinatorErrorAction, coordinatorFailureAction, isRetriableCoordinatorFailure } from '../coordinator-errors.js';
import { withTimeLimit } from '../deadline.js';
import { ConnectionError } from '../errors.js';
import type { Logger } from '../../util/log.js';
import type { CoordinatorLookup } from './coordinator-lookup.js';
import { CommitFailedError, FencedInstanceIdError, RebalanceInProgressError } from './errors.js';
import { tpKey, type SubscriptionState } from './subscription-state.js';

export interface OffsetToCommit {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly leaderEpoch?: number;
  readonly metadata?: string;
}

/** The member identity a commit carries; generation -1 and '' for simple (assign()) commits. */
export interface CommitIdentity {
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

export interface CommitGroupHooks {
  /**
   * Name topics by id (OffsetCommit and OffsetFetch v10) when the cluster metadata has every
   * topic's id and the coordinator speaks v10, as Java's consumer-protocol consumer does (its
   * classic consumer names them).
   */
  readonly topicIds?: boolean;
  /** Identity to commit with, or an error when the group is rebalancing. */
  identity(): CommitIdentity | Error;
  /**
   * Consumer protocol: the member id and epoch OffsetFetch v9+ carries while the member is in
   * the group (Java's CommitRequestManager sends them with requireStable); null otherwise.
   */
  fetchIdentity?(): { memberId: string; memberEpoch: number } | null;
  /**
   * Consumer protocol, after STALE_MEMBER_EPOCH: waits for the next heartbeat response (which
   * brings the newer epoch); false when the member is out of the group, so a retry is pointless.
   */
  awaitNewerEpoch?(signal?: AbortSignal): Promise<boolean>;
  /** REBALANCE_IN_PROGRESS: rejoin. */
  requestRejoin(reason: string): void;
  /** UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION: the membership (or only its generation) is gone. */
  resetGeneration(reason: string, keepMemberId: boolean): void;
  fatal(err: Error): void;
}

/** OffsetCommit and OffsetFetch v10 name topics by id. */
const TOPIC_IDS_VERSION = 10;

export type CommitCallback = (error: Error | null, offsets: readonly OffsetToCommit[]) => void;

/** Told of every commit operation that had offsets to commit, once it ended (instrumentation). */
export type CommitObserver = (offsets: readonly OffsetToCommit[], durationMs: number, error: Error | null) => void;

export class OffsetCommitter {
  /** Completion chain of async commits: callbacks run in commit order. */
  private lastAsync: Promise<void> = Promise.resolve();
  /** Numbers commits as they are sent: a late response must not overwrite a newer commit's offset. */
  private commitsSent = 0;
  /** Per partition key, the number of the newest commit whose success has been applied. */
  private readonly newestApplied = new Map<string, number>();

  constructor(
    private readonly cluster: Cluster,
    private readonly lookup: CoordinatorLookup,
    private readonly subscriptions: SubscriptionState,
    private readonly group: CommitGroupHooks,
    private readonly logger: Logger,
    private readonly observer: CommitObserver = () => undefined,
  ) {}

  /** One OffsetCommit attempt; throws the error classified (retriable ones as KafkaProtocolError with retriable set). */
  async commitOnce(offsets: readonly OffsetToCommit[], signal?: AbortSignal): Promise<void> {
    if (offsets.length === 0) return;
    const identity = this.group.identity();
    if (identity instanceof Error) throw identity;
    let connection;
    try {
      connection = await this.lookup.connection(signal);
    } catch (err) {
      throw err instanceof KafkaProtocolError ? err : new ConnectionError(`no group coordinator: ${(err as Error).message}`, { cause: err });
    }
    const topics = new Map<string, { name: string; topicId?: string; partitions: { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; committedMetadata: string }[] }>();
    for (const o of offsets) {
      let t = topics.get(o.topic);
      if (!t) topics.set(o.topic, t = { name: o.topic, partitions: [] });
      t.partitions.push({ partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: o.leaderEpoch ?? -1, committedMetadata: o.metadata ?? '' });
    }
    const ids = this.topicIdsOf(topics.keys());
    const version = connection.supportedVersion(Api.OffsetCommit, { topicIds: ids !== null });
    const names = version !== undefined && version >= TOPIC_IDS_VERSION ? ids : null;
    if (names !== null) for (const [id, name] of names) topics.get(name)!.topicId = id;
    // A partition sought while the commit was in flight keeps the consumed offset the seek gave it.
    const sentEpochs = offsets.map((o) => this.subscriptions.stateOf(o.topic, o.partition)?.epoch);
    const sequence = ++this.commitsSent;
    let response;
    try {
      response = await connection.request(Api.OffsetCommit, {
        groupId: this.lookup.groupId,
        generationIdOrMemberEpoch: identity.generationId,
        memberId: identity.memberId,
        groupInstanceId: identity.groupInstanceId,
        retentionTimeMs: -1n,
        topics: [...topics.values()],
      }, { signal, version });
    } catch (err) {
      if (coordinatorFailureAction(err) === 'find-coordinator') this.lookup.markUnknown('OffsetCommit failed');
      throw err;
    }
    let failure: Error | null = null;
    for (const t of response.topics) {
      const name = names === null ? (t.name ?? '') : (names.get(t.topicId ?? '') ?? '');
      for (const p of t.partitions) {
        const code = p.errorCode;
        if (code === ErrorCode.NONE) {
          const i = offsets.findIndex((o) => o.topic === name && o.partition === p.partitionIndex);
          const state = this.subscriptions.stateOf(name, p.partitionIndex);
          if (i < 0 || !state) continue;
          const committed = offsets[i]!;
          const key = tpKey(name, p.partitionIndex);
          if ((this.newestApplied.get(key) ?? 0) > sequence) continue;
          this.newestApplied.set(key, sequence);
          state.committed = committed.offset;
          // The application committed this offset itself: what comes before it is finished.
          if (state.epoch === sentEpochs[i]) state.markConsumed(committed.offset, committed.leaderEpoch ?? -1);
          continue;
        }
        failure ??= this.classify(code, `${name}-${p.partitionIndex}`);
      }
    }
    if (failure) throw failure;
  }

  /**
   * With `topicIds`: each topic's id by name, as id → name, when the cluster metadata has
   * every one of them; otherwise null (the request names topics).
   */
  private topicIdsOf(topics: Iterable<string>): Map<string, string> | null {
    if (this.group.topicIds !== true) return null;
    const names = new Map<string, string>();
    for (const topic of topics) {
      const id = this.cluster.topic(topic)?.topicId;
      if (id === undefined || id === ZERO_UUID) return null;
      names.set(id, topic);
    }
    return names;
  }

  private classify(code: number, where: string): Error {
    const failure = new KafkaProtocolError(code, `OffsetCommit ${where}`);
    const action = coordinatorErrorAction(code);
    switch (action) {
      case 'find-coordinator':
        this.lookup.markUnknown(`OffsetCommit: ${failure.errorName}`);
        return failure;
      case 'rejoin':
        this.group.requestRejoin('OffsetCommit: rebalance in progress');
        return new RebalanceInProgressError('the commit cannot be completed: the group is rebalancing; poll() to rejoin, then commit again', { cause: failure });
      case 'reset-generation':
      case 'reset-member':
        this.group.resetGeneration(`OffsetCommit: ${failure.errorName}`, action === 'reset-generation');
        return new CommitFailedError('the commit cannot be completed: the group already rebalanced and assigned the partitions to another member (the time between polls may exceed max.poll.interval.ms)', { cause: failure });
      case 'fenced': {
        const err = new FencedInstanceIdError(`another consumer with the same group.instance.id took over (${where})`);
        this.group.fatal(err);
        return err;
      }
      case 'stale-epoch':
        // As Java's commitSync: the epoch moved on while the commit was in flight; only the
        // commit before a revocation retries (commitSync's retryStaleEpoch).
        return new CommitFailedError('the commit carried a stale member epoch; the group moved on while it was sent', { cause: failure });
      default:
        return failure;
    }
  }

  /**
   * commitSync: retries retriable failures (after retry.backoff.ms) until success, a fatal
   * error, or `signal` (its time limit). With `retryStaleEpoch` (the consumer protocol's
   * commit before a revocation, as Java's maybeAutoCommitSyncBeforeRebalance) a stale member
   * epoch is retried too, once the next heartbeat response brought the current one.
   */
  async commitSync(offsets: readonly OffsetToCommit[], signal?: AbortSignal, options: { retryStaleEpoch?: boolean } = {}): Promise<void> {
    if (offsets.length === 0) return;
    const started = this.cluster.scheduler.nowMs();
    try {
      await this.commitSyncRetrying(offsets, signal, options);
    } catch (err) {
      this.observer(offsets, this.cluster.scheduler.nowMs() - started, err as Error);
      throw err;
    }
    this.observer(offsets, this.cluster.scheduler.nowMs() - started, null);
  }

  private async commitSyncRetrying(offsets: readonly OffsetToCommit[], signal: AbortSignal | undefined, options: { retryStaleEpoch?: boolean }): Promise<void> {
    for (;;) {
      try {
        await this.commitOnce(offsets, signal);
        return;
      } catch (err) {
        if (!signal?.aborted && options.retryStaleEpoch && isStaleEpoch(err) && await this.group.awaitNewerEpoch?.(signal)) {
          this.logger.debug('commit carried a stale member epoch; retrying with the new one', { error: err as Error });
          continue;
        }
        if (signal?.aborted || !isRetriableCoordinatorFailure(err)) throw err;
        this.logger.debug('commit failed; retrying', { error: err as Error });
        await this.cluster.backoff(signal);
      }
    }
  }

  /**
   * commitAsync: one attempt, not awaited by the caller, given up after request.timeout.ms
   * (finding the coordinator included); `callback` runs after every earlier async commit's.
   */
  commitAsync(offsets: readonly OffsetToCommit[], callback?: CommitCallback): Promise<Error | null> {
    const started = this.cluster.scheduler.nowMs();
    const attempt = withTimeLimit(this.cluster.scheduler, { what: 'commitAsync', timeoutMs: this.cluster.requestTimeoutMs }, (signal) => this.commitOnce(offsets, signal))
      .then(() => null, (err: unknown) => err as Error)
      .then((err) => {
        if (offsets.length > 0) this.observer(offsets, this.cluster.scheduler.nowMs() - started, err);
        return err;
      });
    const done = Promise.all([attempt, this.lastAsync]).then(([err]) => {
      try {
        callback?.(err, offsets);
      } catch (cbErr) {
        this.logger.warn('offset commit callback threw', { error: cbErr as Error });
      }
      return err;
    });
    this.lastAsync = done.then(() => undefined);
    return done;
  }

  /** Waits until every async commit sent so far has completed (and its callback ran). */
  flushAsync(): Promise<void> {
    return this.lastAsync;
  }

  /** OffsetFetch: the committed offset of each partition (null when none). */
  async fetchCommitted(partitions: readonly { topic: string; partition: number }[], signal?: AbortSignal): Promise<Map<string, bigint | null>> {
    const out = new Map<string, bigint | null>();
    if (partitions.length === 0) return out;
    const byTopic = new Map<string, number[]>();
    for (const tp of partitions) {
      let list = byTopic.get(tp.topic);
      if (!list) byTopic.set(tp.topic, list = []);
      list.push(tp.partition);
    }
    for (;;) {
      const connection = await this.lookup.connection(signal);
      const ids = this.topicIdsOf(byTopic.keys());
      const version = connection.supportedVersion(Api.OffsetFetch, { topicIds: ids !== null }) ?? 1;
      const names = version >= TOPIC_IDS_VERSION ? ids : null;
      const idOf = new Map([...names ?? []].map(([id, name]) => [name, id]));
      const topics = [...byTopic].map(([name, partitionIndexes]) => ({ name, topicId: idOf.get(name), partitionIndexes }));
      let retry: unknown = null;
      try {
        // v9+ carries the consumer protocol's member id and epoch (ignored below v9).
        const member = this.group.fetchIdentity?.() ?? { memberId: null, memberEpoch: -1 };
        const response = await connection.request(Api.OffsetFetch, version >= 8
          ? { groups: [{ groupId: this.lookup.groupId, ...member, topics }], requireStable: true }
          // RequireStable is v7+; like Java's consumer, older brokers are asked without it.
          : { groupId: this.lookup.groupId, topics, requireStable: version >= 7 }, { version, signal });
        const group = version >= 8 ? response.groups?.[0] : { errorCode: response.errorCode ?? 0, topics: response.topics ?? [] };
        const groupError = group?.errorCode ?? ErrorCode.NONE;
        if (groupError !== ErrorCode.NONE) {
          throw new KafkaProtocolError(groupError, `OffsetFetch ${this.lookup.groupId}`);
        } else {
          for (const t of group?.topics ?? []) {
            const name = names === null ? (t.name ?? '') : (names.get((t as { topicId?: string }).topicId ?? '') ?? '');
            for (const p of t.partitions) {
              if (p.errorCode !== ErrorCode.NONE) {
                const failure = new KafkaProtocolError(p.errorCode, `OffsetFetch ${name}-${p.partitionIndex}`);
                if (!isRetriableCoordinatorFailure(failure)) throw failure;
                retry = failure;
                continue;
              }
              out.set(`${name}:${p.partitionIndex}`, p.committedOffset >= 0n ? p.committedOffset : null);
            }
          }
        }
      } catch (err) {
        if (signal?.aborted) throw err;
        // As Java's CommitRequestManager: a stale epoch is retried while the member has a valid one.
        if (coordinatorFailureAction(err) === 'stale-epoch' && await this.group.awaitNewerEpoch?.(signal)) continue;
        if (!isRetriableCoordinatorFailure(err)) throw err;
        retry = err;
      }
      if (retry === null) return out;
      if (coordinatorFailureAction(retry) === 'find-coordinator') this.lookup.markUnknown('OffsetFetch failed');
      this.logger.debug('offset fetch failed; retrying', { error: retry as Error });
      await this.cluster.backoff(signal);
    }
  }
}

/** A commit refused because its member epoch was stale (consumer protocol). */
function isStaleEpoch(err: unknown): boolean {
  return err instanceof CommitFailedError && coordinatorFailureAction(err.cause) === 'stale-epoch';
}
