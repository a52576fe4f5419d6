/**
 * The share consumer (Kafka's KafkaShareConsumer, KIP-932): a member of a share group,
 * reading records the broker acquires for it, each held under an acquisition lock until
 * the member acknowledges it (ACCEPT, RELEASE for another delivery, REJECT, RENEW to extend
 * the lock) or the lock times out and the record goes to another delivery. It holds the
 * Cluster (connections, metadata), the ShareMembership (heartbeats, assignment) and the
 * ShareFetcher (share sessions, acquired records, acknowledgements).
 *
 * Acknowledgement modes (share.acknowledgement.mode): 'implicit' accepts every record a
 * poll() returned at the next poll(), commitSync(), commitAsync() or close(); 'explicit'
 * has the application acknowledge() each one, and a poll() with records of the previous one
 * unacknowledged throws, as Kafka's IllegalStateException. Nothing is acknowledged before
 * the application had the record: at-least-once. Calls that talk to the cluster end by
 * their `timeoutMs` with TimeoutError; background errors are thrown by the next poll().
 */
import { linkedSignal, withTimeLimit } from '../deadline.js';
import { Cluster } from '../cluster.js';
import { callTimeoutMs } from '../options.js';
import type { Logger } from '../../util/log.js';
import { ConsumerAbortedError, GroupError, IllegalConsumerStateError } from '../consumer/errors.js';
import { AcknowledgeTypeCode, acknowledgeTypeCode, type AcknowledgeType, type AcknowledgementCommit, type AcknowledgementCommitCallback } from './acknowledgements.js';
import { resolveShareConsumerOptions, type ResolvedShareConsumerOptions, type ShareConsumerOptions } from './options.js';
import type { ShareConsumerRecord } from './share-completed-fetch.js';
import { ShareFetcher } from './share-fetcher.js';
import { ShareMembership, type SharePartition } from './share-membership.js';
import { sharePartitionKey } from './share-session.js';
import type { CallOptions, CloseOptions, PollOptions } from '../consumer/consumer.js';

/** Kafka's default close timeout. */
const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;

/** A record given out by the last poll(), until it is acknowledged. */
interface Delivered {
  readonly partition: SharePartition;
  readonly nodeId: number;
  /** RENEW was sent for it: it is still the application's to acknowledge finally. */
  renewed: boolean;
}

function deliveredKey(topic: string, partition: number, offset: bigint): string {
  return `${topic}\u0000${partition}\u0000${offset}`;
}

export class ShareConsumer<K = Buffer, V = Buffer, H = Buffer> {
  readonly options: ResolvedShareConsumerOptions;
  private readonly cluster: Cluster;
  private readonly logger: Logger;
  private readonly membership: ShareMembership;
  private readonly fetcher: ShareFetcher;
  private readonly delivered = new Map<string, Delivered>();
  private callback: AcknowledgementCommitCallback | null;
  private pendingError: Error | null = null;
  /** An error that ended the membership (GroupError): every later poll() throws it. */
  private fatalError: Error | null = null;
  private closed = false;
  private closing: Promise<void> | null = null;
  private readonly closeController = new AbortController();
  private waiters: (() => void)[] = [];

  private constructor(options: ShareConsumerOptions<K, V, H>) {
    const o = this.options = resolveShareConsumerOptions(options);
    this.logger = o.logger.child('share-consumer');
    this.callback = options.onAcknowledgementCommit ?? null;
    this.cluster = new Cluster({
      bootstrapServers: o.bootstrapServers, clientId: o.clientId, requestTimeoutMs: o.requestTimeoutMs, connectTimeoutMs: o.connectTimeoutMs,
      retryBackoffMs: o.retryBackoffMs, tls: o.tls, sasl: o.sasl, scheduler: o.scheduler, logger: o.logger, connectionFactory: o.connectionFactory,
    });
    const reportError = (err: Error): void => {
      if (err instanceof GroupError) this.fatalError ??= err;
      else this.pendingError ??= err;
      this.wake();
    };
    this.fetcher = new ShareFetcher(this.cluster, o, this.logger, { wake: () => this.wake(), reportError });
    this.membership = new ShareMembership(this.cluster, o, this.logger, {
      // No revocation in share groups: records of partitions no longer assigned go back to the group at once.
      assigned: (partitions) => {
        const keep = new Set(partitions.map(sharePartitionKey));
        this.fetcher.releaseBuffered((p) => keep.has(sharePartitionKey(p)));
        this.wake();
      },
      reportError,
    });
    this.fetcher.memberId = this.membership.memberId;
    o.signal?.addEventListener('abort', () => { void this.close(); }, { once: true });
  }

  /** Creates a share consumer and reads the cluster's brokers; fails when none answers within `timeoutMs` (default default.api.timeout.ms). */
  static async connect<K = Buffer, V = Buffer, H = Buffer>(options: ShareConsumerOptions<K, V, H>, call: CallOptions = {}): Promise<ShareConsumer<K, V, H>> {
    const consumer = new ShareConsumer(options);
    try {
      await consumer.withCallLimit('connect', call, (signal) => consumer.cluster.refreshMetadata([], signal));
    } catch (err) {
      await consumer.close({ timeoutMs: 0 });
      throw err;
    }
    return consumer;
  }

  /** The member id this consumer generated for its lifetime (Kafka's KIP-1082 ids). */
  get memberId(): string {
    return this.membership.memberId;
  }

  /** Subscribes to topics (replacing an earlier subscription); the member joins the share group in the background. */
  subscribe(topics: readonly string[]): void {
    this.ensureOpen();
    if (topics.length === 0) {
      this.unsubscribe();
      return;
    }
    for (const t of topics) if (typeof t !== 'string' || t.trim() === '') throw new IllegalConsumerStateError('topic names must be non-empty strings');
    this.membership.subscribe(topics);
  }

  /** Acknowledges what is due (implicit mode), releases what was fetched but not given out, and leaves the group. */
  unsubscribe(): void {
    this.ensureOpen();
    this.acknowledgeImplicitly();
    this.fetcher.releaseBuffered();
    void this.membership.leave(this.closeController.signal);
    this.sendAcknowledgements();
  }

  subscription(): string[] {
    return [...this.membership.subscribed];
  }

  /** The partitions the coordinator assigned to this member. */
  assignment(): { topic: string; partition: number }[] {
    return this.membership.assignment.map((p) => ({ topic: p.topic, partition: p.partition }));
  }

  /** The setter of Kafka's setAcknowledgementCommitCallback (null removes it). */
  setAcknowledgementCommitCallback(callback: AcknowledgementCommitCallback | null): void {
    this.callback = callback;
  }

  /** group.share.record.lock.duration.ms as the broker said it (null before its first answer). */
  acquisitionLockTimeoutMs(): number | null {
    return this.fetcher.acquisitionLockTimeoutMs;
  }

  // ---- polling ------------------------------------------------------------------------

  /**
   * Up to maxPollRecords acquired records, waiting up to `timeoutMs` (default 1000 ms) when
   * none are fetched. In implicit mode the records of the previous poll() are accepted
   * first; in explicit mode they must all have been acknowledged (IllegalConsumerStateError).
   * The acknowledgements go with the next ShareFetch.
   */
  async poll(options: PollOptions = {}): Promise<ShareConsumerRecord<K, V, H>[]> {
    this.ensureOpen();
    if (this.options.acknowledgementMode === 'explicit') {
      // Renewed records count: RENEW only extends their lock.
      const unacknowledged = this.delivered.size;
      if (unacknowledged > 0) {
        throw new IllegalConsumerStateError(`all records from the previous poll must be acknowledged in explicit acknowledgement mode: ${unacknowledged} are not`);
      }
    }
    this.acknowledgeImplicitly();
    this.invokeCallback();
    if (this.membership.subscribed.length === 0) throw new IllegalConsumerStateError('the share consumer is not subscribed to any topics');
    const linked = linkedSignal([options.signal, this.closeController.signal]);
    try {
      return await this.pollUntil(options.timeoutMs ?? 1_000, linked.signal);
    } finally {
      linked.dispose();
      this.invokeCallback();
    }
  }

  private async pollUntil(timeoutMs: number, signal: AbortSignal): Promise<ShareConsumerRecord<K, V, H>[]> {
    const scheduler = this.options.scheduler;
    const deadline = scheduler.nowMs() + timeoutMs;
    for (;;) {
      this.throwPending();
      if (signal.aborted) throw new ConsumerAbortedError('poll aborted', { cause: signal.reason });
      const records = this.fetcher.take(this.options.maxPollRecords, (r, partition, nodeId) => {
        this.delivered.set(deliveredKey(r.topic, r.partition, r.offset), { partition, nodeId, renewed: false });
      }) as ShareConsumerRecord<K, V, H>[];
      if (records.length > 0) {
        // What was fetched while these were taken is fetched for again only once given out.
        this.fetcher.sendFetches(this.membership.assignment);
        return records;
      }
      this.fetcher.sendFetches(this.membership.assignment);
      if (scheduler.nowMs() >= deadline) return [];
      await this.waitUntil(deadline, signal);
    }
  }

  /** Waits for records, an acknowledgement outcome, an error or the deadline. */
  private async waitUntil(deadline: number, signal: AbortSignal): Promise<void> {
    const scheduler = this.options.scheduler;
    let timer: { cancel(): void } | null = null;
    let onAbort: (() => void) | null = null;
    await new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      timer = scheduler.schedule(Math.max(0, deadline - scheduler.nowMs()), resolve);
      onAbort = resolve;
      signal.addEventListener('abort', onAbort, { once: true });
    });
    (timer as { cancel(): void } | null)?.cancel();
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  // ---- acknowledging ------------------------------------------------------------------

  /**
   * Acknowledges a record of the last poll() (explicit mode only): 'ACCEPT' (default),
   * 'RELEASE' (deliver it again), 'REJECT' (never again), 'RENEW' (extend its acquisition
   * lock; it still needs one of the others later). Sent with the next poll() or commit.
   */
  acknowledge(record: { readonly topic: string; readonly partition: number; readonly offset: bigint }, type: AcknowledgeType = 'ACCEPT'): void {
    this.ensureOpen();
    if (this.options.acknowledgementMode !== 'explicit') throw new IllegalConsumerStateError('acknowledge() needs acknowledgementMode \'explicit\'');
    const code = acknowledgeTypeCode(type);
    const key = deliveredKey(record.topic, record.partition, record.offset);
    const d = this.delivered.get(key);
    if (d === undefined) throw new IllegalConsumerStateError(`the record at offset ${record.offset} of ${record.topic}-${record.partition} is not waiting to be acknowledged`);
    this.fetcher.acknowledge(d.partition, d.nodeId, Number(record.offset), code);
    if (code === AcknowledgeTypeCode.RENEW) d.renewed = true;
    else this.delivered.delete(key);
  }

  /** Implicit mode: everything the last poll() returned is accepted. */
  private acknowledgeImplicitly(): void {
    if (this.options.acknowledgementMode !== 'implicit') return;
    for (const [key, d] of this.delivered) {
      const offset = Number(key.slice(key.lastIndexOf('\u0000') + 1));
      this.fetcher.acknowledge(d.partition, d.nodeId, offset, AcknowledgeTypeCode.ACCEPT);
    }
    this.delivered.clear();
  }

  /**
   * Sends the acknowledgements made so far (in implicit mode, accepting the last poll's
   * records) and waits for the broker's answer: one result per partition, `error` null when
   * applied. Ends by `timeoutMs` (default default.api.timeout.ms) with TimeoutError.
   */
  async commitSync(options: CallOptions = {}): Promise<AcknowledgementCommit[]> {
    this.ensureOpen();
    this.acknowledgeImplicitly();
    try {
      return await this.withCallLimit('commitSync', options, (signal) => this.fetcher.commit(signal));
    } finally {
      this.invokeCallback();
    }
  }

  /** As commitSync() without waiting: the outcomes go to the acknowledgement commit callback. */
  commitAsync(): void {
    this.ensureOpen();
    this.acknowledgeImplicitly();
    this.sendAcknowledgements();
  }

  private sendAcknowledgements(): void {
    if (!this.fetcher.hasPendingAcknowledgements) return;
    void this.fetcher.commit().catch((err: unknown) => this.logger.debug('acknowledgement failed', { error: err as Error }));
  }

  /** Gives the acknowledgement outcomes to the callback, on the caller's turn as Kafka does; a callback that throws is logged. */
  private invokeCallback(): void {
    const results = this.fetcher.drainResults();
    const callback = this.callback;
    if (callback === null) return;
    for (const r of results) {
      try {
        callback(r);
      } catch (err) {
        this.logger.warn('the acknowledgement commit callback threw', { error: err as Error });
      }
    }
  }

  // ---- closing ------------------------------------------------------------------------

  /**
   * Accepts the last poll's records (implicit mode), releases what was fetched but not given
   * out, sends what is left to acknowledge with the final share session epoch (-1: the
   * broker releases anything else the member holds), leaves the group (heartbeat epoch -1)
   * and closes connections, within `timeoutMs` (default 30 s).
   */
  close(options: CloseOptions = {}): Promise<void> {
    const timeoutMs = callTimeoutMs(options.timeoutMs, DEFAULT_CLOSE_TIMEOUT_MS);
    this.closing ??= this.closeWithin(timeoutMs);
    return this.closing;
  }

  private async closeWithin(timeoutMs: number): Promise<void> {
    this.acknowledgeImplicitly();
    this.closed = true;
    this.fetcher.releaseBuffered();
    try {
      await withTimeLimit(this.options.scheduler, { what: 'ShareConsumer.close', timeoutMs }, async (signal) => {
        await this.fetcher.closeSessions(signal);
        await this.membership.leave(signal);
      });
    } catch (err) {
      this.logger.warn('close did not complete cleanly', { error: err as Error });
    } finally {
      this.membership.stop();
      this.closeController.abort(new ConsumerAbortedError('the share consumer was closed'));
      this.wake();
      this.cluster.close();
      this.invokeCallback();
    }
  }

  private withCallLimit<T>(what: string, options: CallOptions, operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = callTimeoutMs(options.timeoutMs, this.options.defaultApiTimeoutMs);
    return withTimeLimit(this.options.scheduler, {
      what: `ShareConsumer.${what}`, timeoutMs, signals: [options.signal, this.closeController.signal],
      aborted: (reason) => new ConsumerAbortedError(`${what} aborted`, { cause: reason }),
    }, operation);
  }

  private throwPending(): void {
    if (this.fatalError !== null) throw this.fatalError;
    const err = this.pendingError;
    if (err === null) return;
    this.pendingError = null;
    throw err;
  }

  private ensureOpen(): void {
    if (this.closed) throw new IllegalConsumerStateError('the share consumer is closed');
  }
}
