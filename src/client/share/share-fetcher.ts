/**
 * ShareFetch and ShareAcknowledge for the share consumer (Kafka's ShareConsumeRequestManager):
 * one share session per leader (share-session.ts), one ShareFetch in flight per session,
 * sent for a leader's assigned partitions once the records fetched from it were given out.
 * Acknowledgements wait here per partition until the next request of the session that
 * acquired the records: piggybacked on its next ShareFetch, or sent by ShareAcknowledge
 * for a commit, for a leader no fetch goes to, and with the final epoch on close. RENEW
 * goes by ShareAcknowledge with IsRenewAck. Every acknowledgement sent ends as an
 * AcknowledgementCommit (the commit callback's and commitSync()'s results).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError, isRetriable } from '../../protocol/errors.js';
import type { ShareFetchRequestData, ShareFetchResponseData } from '../../protocol/messages/share-fetch.js';
import type { Logger } from '../../util/log.js';
import type { Cluster } from '../cluster.js';
import { GroupError } from '../consumer/errors.js';
import { AcknowledgeTypeCode, PartitionAcknowledgements, type AcknowledgementCommit } from './acknowledgements.js';
import type { ResolvedShareConsumerOptions } from './options.js';
import { ShareCompletedFetch, type ShareConsumerRecord } from './share-completed-fetch.js';
import type { SharePartition } from './share-membership.js';
import { FINAL_SHARE_SESSION_EPOCH, ShareSession, sharePartitionKey } from './share-session.js';

/** Partition errors after which the leader is looked up again. */
const STALE_LEADER = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.LEADER_NOT_AVAILABLE,
]);

export interface ShareFetcherHooks {
  /** Records arrived or acknowledgements completed. */
  wake(): void;
  reportError(err: Error): void;
}

function byTopic<T extends { topicId: string; partition: number }, I>(items: readonly T[], item: (t: T) => I): { topicId: string; partitions: I[] }[] {
  const topics = new Map<string, I[]>();
  for (const t of items) {
    let list = topics.get(t.topicId);
    if (list === undefined) topics.set(t.topicId, (list = []));
    list.push(item(t));
  }
  return [...topics].map(([topicId, partitions]) => ({ topicId, partitions }));
}

export class ShareFetcher {
  private readonly sessions = new Map<number, ShareSession>();
  private readonly buffered: ShareCompletedFetch[] = [];
  private readonly pending = new Map<string, PartitionAcknowledgements>();
  /** Acknowledgement outcomes not yet given to the commit callback. */
  private results: AcknowledgementCommit[] = [];
  /** Requests carrying acknowledgements, until answered: a commit waits for them too, whichever request took its acknowledgements. */
  private readonly carrying = new Set<Promise<AcknowledgementCommit[]>>();
  private backoffUntilMs = 0;
  private refreshingMetadata = false;
  /** Set by the consumer: the member id the share sessions are for. */
  memberId = '';
  /** group.share.record.lock.duration.ms, from the last ShareFetch or ShareAcknowledge answer. */
  acquisitionLockTimeoutMs: number | null = null;

  constructor(
    private readonly cluster: Cluster,
    private readonly options: ResolvedShareConsumerOptions,
    private readonly logger: Logger,
    private readonly hooks: ShareFetcherHooks,
  ) {}

  private session(nodeId: number): ShareSession {
    let s = this.sessions.get(nodeId);
    if (s === undefined) this.sessions.set(nodeId, (s = new ShareSession(nodeId)));
    return s;
  }

  // ---- acknowledgements ----------------------------------------------------------------

  acknowledge(partition: SharePartition, nodeId: number, offset: number, code: number): void {
    const key = sharePartitionKey(partition);
    let acks = this.pending.get(key);
    if (acks === undefined || acks.nodeId !== nodeId) this.pending.set(key, (acks = new PartitionAcknowledgements(partition.topic, partition.topicId, partition.partition, nodeId)));
    acks.add(offset, code);
  }

  /** Removes and returns the acknowledgements waiting for `nodeId`'s session. */
  private takeAcks(nodeId: number): PartitionAcknowledgements[] {
    const out = [...this.pending.values()].filter((a) => a.nodeId === nodeId && a.size > 0);
    for (const a of out) this.pending.delete(sharePartitionKey(a));
    return out;
  }

  private complete(acks: readonly PartitionAcknowledgements[], errorOf: (a: PartitionAcknowledgements) => Error | null): AcknowledgementCommit[] {
    const done = acks.map((a) => ({ topic: a.topic, topicId: a.topicId, partition: a.partition, offsets: a.offsets(), error: errorOf(a) }));
    this.results.push(...done);
    if (done.length > 0) this.hooks.wake();
    return done;
  }

  /** The outcomes since the last call (for the commit callback). */
  drainResults(): AcknowledgementCommit[] {
    const out = this.results;
    this.results = [];
    return out;
  }

  get hasPendingAcknowledgements(): boolean {
    return [...this.pending.values()].some((a) => a.size > 0);
  }

  /**
   * Sends every waiting acknowledgement by ShareAcknowledge (commitSync, commitAsync) and
   * resolves with their outcomes and those of acknowledgements already on their way (a
   * ShareFetch in flight may have taken some first).
   */
  async commit(signal?: AbortSignal): Promise<AcknowledgementCommit[]> {
    const nodes = new Set([...this.pending.values()].filter((a) => a.size > 0).map((a) => a.nodeId));
    // Taken now: a ShareFetch about to go must not take them from under this commit.
    const sent = [...nodes].map((nodeId) => {
      const acks = this.takeAcks(nodeId);
      return this.session(nodeId).run(() => this.sendAcknowledge(nodeId, acks, false, signal));
    });
    const outcomes = await Promise.all([...this.carrying, ...sent]);
    return outcomes.flat();
  }

  /** Registers a request's acknowledgement outcomes (see `carrying`). */
  private carry(outcomes: Promise<AcknowledgementCommit[]>): void {
    this.carrying.add(outcomes);
    void outcomes.finally(() => this.carrying.delete(outcomes));
  }

  /**
   * One ShareAcknowledge of `nodeId`'s session (`final`: with epoch -1, closing it). A session
   * not opened yet cannot take acknowledgements: the records were acquired by a session the
   * broker has since dropped, and with it their acquisition.
   */
  private async sendAcknowledge(nodeId: number, acks: PartitionAcknowledgements[], final: boolean, signal?: AbortSignal): Promise<AcknowledgementCommit[]> {
    const session = this.session(nodeId);
    if (session.initial) return this.complete(acks, () => new KafkaProtocolError(ErrorCode.SHARE_SESSION_NOT_FOUND, 'the share session that acquired the records is gone'));
    if (acks.length === 0 && !final) return [];
    let requested = false;
    try {
      const connection = await this.cluster.connectionToNode(nodeId, signal);
      session.use(connection);
      if (session.initial) return this.complete(acks, () => new KafkaProtocolError(ErrorCode.SHARE_SESSION_NOT_FOUND, 'the connection of the share session closed'));
      const renew = acks.some((a) => a.hasRenew);
      if (renew && (connection.supportedVersion(Api.ShareAcknowledge) ?? 0) < 2) throw new KafkaProtocolError(ErrorCode.UNSUPPORTED_VERSION, 'RENEW needs ShareAcknowledge v2');
      requested = true;
      const response = await connection.request(Api.ShareAcknowledge, {
        groupId: this.options.groupId, memberId: this.memberId, shareSessionEpoch: final ? FINAL_SHARE_SESSION_EPOCH : session.epoch, isRenewAck: renew,
        topics: byTopic(acks, (a) => ({ partitionIndex: a.partition, acknowledgementBatches: a.batches() })),
      // Not aborted by the caller's time limit: a request cut off would leave the session's epoch
      // unknown and the session lost; it ends by request.timeout.ms, the caller stops waiting sooner.
      });
      if (final) session.reset();
      if (response.errorCode !== ErrorCode.NONE) {
        if (this.isSessionError(response.errorCode)) session.reset();
        const err = new KafkaProtocolError(response.errorCode, response.errorMessage ?? 'ShareAcknowledge');
        return this.complete(acks, () => err);
      }
      if (!final) session.advance([], []);
      if (response.acquisitionLockTimeoutMs !== undefined && response.acquisitionLockTimeoutMs > 0) this.acquisitionLockTimeoutMs = response.acquisitionLockTimeoutMs;
      const errors = new Map<string, number>();
      for (const t of response.responses) for (const p of t.partitions) errors.set(sharePartitionKey({ topicId: t.topicId, partition: p.partitionIndex }), p.errorCode);
      return this.complete(acks, (a) => {
        const code = errors.get(sharePartitionKey(a)) ?? ErrorCode.NONE;
        return code === ErrorCode.NONE ? null : new KafkaProtocolError(code, `ShareAcknowledge ${a.topic}-${a.partition}`);
      });
    } catch (err) {
      // Without an answer the session's epoch is unknown; a connection never reached leaves it as it was.
      if (requested) session.reset();
      return this.complete(acks, () => err as Error);
    }
  }

  private isSessionError(code: number): boolean {
    return code === ErrorCode.SHARE_SESSION_NOT_FOUND || code === ErrorCode.INVALID_SHARE_SESSION_EPOCH;
  }

  // ---- fetching ------------------------------------------------------------------------

  /**
   * A ShareFetch to every leader of `assignment` with none in flight and nothing buffered;
   * acknowledgements for other leaders go by ShareAcknowledge.
   */
  sendFetches(assignment: readonly SharePartition[]): void {
    const now = this.cluster.scheduler.nowMs();
    const byLeader = new Map<number, SharePartition[]>();
    let unknownLeader = false;
    for (const p of assignment) {
      const leader = this.cluster.topic(p.topic)?.partitions[p.partition]?.leaderId ?? -1;
      if (leader < 0) {
        unknownLeader = true;
        continue;
      }
      let list = byLeader.get(leader);
      if (list === undefined) byLeader.set(leader, (list = []));
      list.push(p);
    }
    if (unknownLeader) this.refreshMetadata(assignment);
    const fetchingFrom = new Set<number>();
    if (now >= this.backoffUntilMs) {
      for (const [nodeId, partitions] of byLeader) {
        const session = this.session(nodeId);
        if (session.fetching || this.buffered.some((b) => b.nodeId === nodeId)) continue;
        session.fetching = true;
        fetchingFrom.add(nodeId);
        void session.run(() => this.fetch(session, partitions)).finally(() => {
          session.fetching = false;
          this.hooks.wake();
        });
      }
    }
    for (const nodeId of new Set([...this.pending.values()].filter((a) => a.size > 0).map((a) => a.nodeId))) {
      if (fetchingFrom.has(nodeId) || this.session(nodeId).fetching) continue;
      const acks = this.takeAcks(nodeId);
      this.carry(this.session(nodeId).run(() => this.sendAcknowledge(nodeId, acks, false)));
    }
  }

  private refreshMetadata(assignment: readonly SharePartition[]): void {
    if (this.refreshingMetadata) return;
    this.refreshingMetadata = true;
    void this.cluster.refreshMetadata([...new Set(assignment.map((p) => p.topic))])
      .catch((err: unknown) => this.logger.debug('metadata refresh for share partition leaders failed', { error: err as Error }))
      .then(() => this.cluster.backoff())
      .finally(() => {
        this.refreshingMetadata = false;
        this.hooks.wake();
      });
  }

  private async fetch(session: ShareSession, partitions: readonly SharePartition[]): Promise<void> {
    let acks: PartitionAcknowledgements[] = [];
    let settle: (outcomes: AcknowledgementCommit[]) => void = () => undefined;
    try {
      const connection = await this.cluster.connectionToNode(session.nodeId);
      session.use(connection);
      const version = connection.supportedVersion(Api.ShareFetch);
      if (version === undefined) throw new GroupError('the cluster does not support share groups (ShareFetch)', { cause: new KafkaProtocolError(ErrorCode.UNSUPPORTED_VERSION, 'ShareFetch') });
      acks = this.takeAcks(session.nodeId);
      if (acks.length > 0) this.carry(new Promise((resolve) => { settle = resolve; }));
      const renewing = acks.filter((a) => a.hasRenew);
      if (session.initial || renewing.length > 0) {
        // Not piggybacked: a new session takes none, and RENEW needs IsRenewAck, which does not fetch.
        settle(await this.sendAcknowledge(session.nodeId, acks, false));
        acks = [];
        session.use(connection);
      }
      const wanted = new Map(partitions.map((p) => [sharePartitionKey(p), p]));
      const send = [...wanted.values()].filter((p) => session.initial || !session.held.has(sharePartitionKey(p)));
      for (const a of acks) if (!wanted.has(sharePartitionKey(a)) || session.held.has(sharePartitionKey(a))) send.push({ topic: a.topic, topicId: a.topicId, partition: a.partition });
      // Partitions no longer fetched leave the session; so do ones named only to carry acknowledgements.
      const forgotten = [...session.held.values(), ...acks].filter((p) => !wanted.has(sharePartitionKey(p)));
      const ackOf = new Map(acks.map((a) => [sharePartitionKey(a), a]));
      const sent = [...new Map(send.map((p) => [sharePartitionKey(p), p])).values()];
      const request: ShareFetchRequestData = {
        groupId: this.options.groupId, memberId: this.memberId, shareSessionEpoch: session.epoch,
        maxWaitMs: this.options.fetchMaxWaitMs, minBytes: this.options.fetchMinBytes, maxBytes: this.options.fetchMaxBytes,
        maxRecords: this.options.maxPollRecords, batchSize: this.options.maxPollRecords, isRenewAck: false,
        topics: byTopic(sent, (p) => ({ partitionIndex: p.partition, acknowledgementBatches: ackOf.get(sharePartitionKey(p))?.batches() ?? [] })),
        forgottenTopicsData: byTopic([...new Map(forgotten.map((p) => [sharePartitionKey(p), p])).values()], (p) => p.partition),
      };
      const response = await connection.request(Api.ShareFetch, request, { timeoutMs: this.cluster.requestTimeoutMs + this.options.fetchMaxWaitMs });
      settle(this.onResponse(session, response, wanted, sent, forgotten, acks));
    } catch (err) {
      session.reset();
      settle(this.complete(acks, () => err as Error));
      this.backoffUntilMs = this.cluster.scheduler.nowMs() + this.options.retryBackoffMs;
      if (err instanceof GroupError) this.hooks.reportError(err);
      else this.logger.debug('share fetch failed', { node: session.nodeId, error: err as Error });
    }
  }

  private onResponse(
    session: ShareSession, response: ShareFetchResponseData, wanted: Map<string, SharePartition>,
    sent: readonly SharePartition[], forgotten: readonly SharePartition[], acks: readonly PartitionAcknowledgements[],
  ): AcknowledgementCommit[] {
    if (response.errorCode !== ErrorCode.NONE) {
      const err = new KafkaProtocolError(response.errorCode, response.errorMessage ?? 'ShareFetch');
      this.backoffUntilMs = this.cluster.scheduler.nowMs() + this.options.retryBackoffMs;
      if (this.isSessionError(response.errorCode)) session.reset();
      else if (!isRetriable(response.errorCode)) this.hooks.reportError(err);
      return this.complete(acks, () => err);
    }
    session.advance(sent.filter((p) => wanted.has(sharePartitionKey(p))), forgotten);
    if (response.acquisitionLockTimeoutMs > 0) this.acquisitionLockTimeoutMs = response.acquisitionLockTimeoutMs;
    const ackErrors = new Map<string, KafkaProtocolError>();
    for (const t of response.responses) {
      for (const p of t.partitions) {
        const key = sharePartitionKey({ topicId: t.topicId, partition: p.partitionIndex });
        const partition = wanted.get(key) ?? acks.find((a) => sharePartitionKey(a) === key);
        if (partition === undefined) continue;
        const name = `${partition.topic}-${partition.partition}`;
        if (p.acknowledgeErrorCode !== ErrorCode.NONE) ackErrors.set(key, new KafkaProtocolError(p.acknowledgeErrorCode, p.acknowledgeErrorMessage ?? `ShareFetch acknowledgements ${name}`));
        if (p.errorCode !== ErrorCode.NONE) {
          const err = new KafkaProtocolError(p.errorCode, p.errorMessage ?? `ShareFetch ${name}`);
          if (STALE_LEADER.has(p.errorCode)) this.cluster.invalidateTopic(partition.topic);
          if (p.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED) this.hooks.reportError(err);
          else this.logger.debug('share fetch partition error', { partition: name, error: err });
          continue;
        }
        if (p.acquiredRecords.length > 0 && wanted.has(key)) {
          const owner = { topic: partition.topic, topicId: partition.topicId, partition: partition.partition };
          this.buffered.push(new ShareCompletedFetch(owner, session.nodeId, p.records, p.acquiredRecords, this.options.deserializers,
            (tp, offset, code) => this.acknowledge(tp, session.nodeId, offset, code)));
        }
      }
    }
    return this.complete(acks, (a) => ackErrors.get(sharePartitionKey(a)) ?? null);
  }

  /** Up to `max` acquired records from what was fetched, in the order it arrived. */
  take(max: number, taken: (record: ShareConsumerRecord<unknown, unknown, unknown>, partition: SharePartition, nodeId: number) => void): ShareConsumerRecord<unknown, unknown, unknown>[] {
    const out: ShareConsumerRecord<unknown, unknown, unknown>[] = [];
    while (out.length < max && this.buffered.length > 0) {
      const fetch = this.buffered[0]!;
      const from = out.length;
      try {
        fetch.take(max - out.length, out);
      } finally {
        for (let i = from; i < out.length; i++) taken(out[i]!, fetch.partition, fetch.nodeId);
        if (fetch.drained) this.buffered.shift();
      }
      if (!fetch.drained && out.length < max) break;
    }
    return out;
  }

  /** Releases the records fetched but not given out (close, unsubscribe, partitions no longer assigned). */
  releaseBuffered(keep: (p: SharePartition) => boolean = () => false): void {
    for (let i = this.buffered.length - 1; i >= 0; i--) {
      const fetch = this.buffered[i]!;
      if (keep(fetch.partition)) continue;
      for (const offset of fetch.remaining()) this.acknowledge(fetch.partition, fetch.nodeId, offset, AcknowledgeTypeCode.RELEASE);
      fetch.discard();
      this.buffered.splice(i, 1);
    }
  }

  /** close(): every session's last request, with epoch -1 and what is left to acknowledge. */
  async closeSessions(signal: AbortSignal): Promise<AcknowledgementCommit[]> {
    const nodes = new Set([...this.sessions.keys(), ...[...this.pending.values()].map((a) => a.nodeId)]);
    const outcomes = await Promise.all([...nodes].map((nodeId) => this.session(nodeId).run(() => this.sendAcknowledge(nodeId, this.takeAcks(nodeId), true, signal))));
    return outcomes.flat();
  }
}
