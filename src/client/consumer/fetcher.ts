/**
 * The prefetching fetcher (Java's Fetcher): while the application processes records, it
 * keeps one Fetch in flight per leader broker for every assigned, unpaused partition with
 * a valid position. Responses are buffered per partition as PartitionRecords; poll()
 * drains them. Unlike Java, a partition whose data is still being given out is fetched
 * again from the end of that data (as librdkafka and franz-go prefetch), so the next
 * response is on its way while the application processes this one. Memory stays bounded:
 * at most two responses per partition (each at most max.partition.fetch.bytes, each Fetch
 * at most fetch.max.bytes). Each broker's Fetch runs in an incremental fetch session
 * (fetch-session.ts): only partitions that are new or whose fetch offset moved are sent.
 * A partition holding two responses is left out of the next Fetch. When everything that
 * Fetch would carry is at its end, it would wait at the broker for up to fetch.max.wait.ms
 * and keep back that partition's next fetch; it goes out with that fetch instead, once the
 * partition's buffered data is given out (sendFetches).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Cluster } from '../cluster.js';
import { ZERO_UUID } from '../cluster.js';
import type { Logger } from '../../util/log.js';
import { fetchChannel, type FetchMessage } from '../diagnostics.js';
import { RecordDeserializationError } from './errors.js';
import type { ConsumerMetricsRecorder } from './metrics.js';
import type { ResolvedConsumerOptions } from './options.js';
import { FETCH_SESSION_MIN_VERSION, FINAL_EPOCH, FetchSessionHandler, type SessionPartition, type SessionRequest } from './fetch-session.js';
import type { ConsumerRecordView } from './record-view.js';
import { PartitionRecords, type ConsumerRecord, type RawRecord, type RawRecordVisitor } from './record-decoding.js';
import { tpKey, type SubscriptionState, type TopicPartitionState } from './subscription-state.js';

/** Errors after which the partition's leader must be looked up again. */
const METADATA_ERRORS = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.UNKNOWN_TOPIC_ID,
  ErrorCode.INCONSISTENT_TOPIC_ID, ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.OFFSET_NOT_AVAILABLE,
  ErrorCode.REPLICA_NOT_AVAILABLE,
]);

/** Items grouped by topic (in first-seen order), named by id or by name as the request version wants. */
function byTopic<T>(partitions: readonly SessionPartition[], useIds: boolean, item: (p: SessionPartition) => T): { topic: string; topicId: string; items: T[] }[] {
  const topics = new Map<string, { topic: string; topicId: string; items: T[] }>();
  for (const p of partitions) {
    let t = topics.get(p.topic);
    if (!t) topics.set(p.topic, t = { topic: useIds ? '' : p.topic, topicId: useIds ? p.topicId : ZERO_UUID, items: [] });
    t.items.push(item(p));
  }
  return [...topics.values()];
}

export class Fetcher {
  /** Buffered responses, per partition key, in arrival order. */
  private readonly buffered = new Map<string, PartitionRecords>();
  /** Per partition key, the response fetched from the end of the buffered one (given out after it). */
  private readonly following = new Map<string, PartitionRecords>();
  private readonly inFlight = new Set<number>();
  /** Each broker's fetch session (KIP-227). */
  private readonly sessions = new Map<number, FetchSessionHandler>();
  /** Partitions that are part of an in-flight fetch. */
  private readonly fetching = new Set<string>();
  /**
   * Per partition key, where its log ended for this consumer at the latest fetch answer: the
   * high watermark, or under read_committed the last stable offset (a fetch from there waits
   * at the broker too). Absent until the first answer.
   */
  private readonly logEnd = new Map<string, bigint>();
  private metadataRefresh: Promise<void> | null = null;
  private backoffUntil = 0;
  private backoffTimer = false;
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly subscriptions: SubscriptionState,
    private readonly options: ResolvedConsumerOptions,
    private readonly logger: Logger,
    private readonly metrics: ConsumerMetricsRecorder,
    /** Called when data arrives or a partition needs an offset reset. */
    private readonly wake: () => void,
  ) {}

  get hasBufferedData(): boolean {
    return this.buffered.size > 0;
  }

  /**
   * Gives out up to `max` records from buffered responses, advancing positions. Data for a
   * partition no longer assigned, or fetched before a seek, is dropped. A record that
   * cannot be decoded or deserialized throws, unless records were taken before it: they
   * are given out first, and the next call throws. Either way the partition's position
   * stays at that record.
   */
  fetchedRecords(max: number): ConsumerRecord<unknown, unknown, unknown>[] {
    const out: ConsumerRecord<unknown, unknown, unknown>[] = [];
    this.giveOut(max, (pr, n) => pr.take(n, out));
    return out;
  }

  /** As fetchedRecords(), as views of the fetched bytes (ConsumerRecordView). */
  fetchedViews(max: number): ConsumerRecordView[] {
    const out: ConsumerRecordView[] = [];
    this.giveOut(max, (pr, n) => pr.takeViews(n, out));
    return out;
  }

  /**
   * As fetchedRecords(), but each record goes to `visitor` as a RawRecord
   * (PartitionRecords.visit), until one returns false; returns how many.
   */
  visitFetchedRecords(max: number, visitor: RawRecordVisitor): number {
    let stopped = false;
    const visit = (record: RawRecord): boolean => {
      if (visitor(record) !== false) return true;
      stopped = true;
      return false;
    };
    return this.giveOut(max, (pr, n) => (stopped ? 0 : pr.visit(n, visit)));
  }

  private giveOut(max: number, give: (pr: PartitionRecords, max: number) => number): number {
    let count = 0;
    let bytes = 0;
    for (const [key, pr] of this.buffered) {
      if (count >= max) break;
      const state = this.subscriptions.stateOf(pr.topic, pr.partition);
      if (!state || state.epoch !== pr.stateEpoch || state.position !== pr.nextFetchOffset) {
        this.buffered.delete(key);
        this.following.delete(key);
        continue;
      }
      if (state.paused || state.revoking) continue;
      const bytesBefore = pr.consumedBytes;
      try {
        count += give(pr, max - count);
      } catch (err) {
        // Nothing of this partition was given out: its position moves only past batches
        // left behind whole, never past the record that failed.
        state.position = pr.nextFetchOffset;
        bytes += pr.consumedBytes - bytesBefore;
        if (!(err instanceof RecordDeserializationError)) {
          // Corrupt data: fetched again (and failing again) rather than read on past it.
          this.buffered.delete(key);
          this.following.delete(key);
        }
        if (count > 0) break;
        this.metrics.consumed(0, bytes);
        throw err;
      }
      bytes += pr.consumedBytes - bytesBefore;
      state.position = pr.nextFetchOffset;
      if (pr.lastEpoch >= 0) state.positionLeaderEpoch = pr.lastEpoch;
      state.highWatermark = pr.highWatermark;
      if (pr.drained) {
        // Re-inserted at the end: the Map's iteration goes on to the other partitions first.
        this.buffered.delete(key);
        const next = this.following.get(key);
        if (next) {
          this.following.delete(key);
          this.buffered.set(key, next);
        }
      }
    }
    this.metrics.consumed(count, bytes);
    if (count > 0 || this.buffered.size === 0) this.sendFetches();
    return count;
  }

  /** Drops buffered data of partitions that are gone or were sought. */
  clearStale(): void {
    for (const [key, pr] of this.buffered) {
      const state = this.subscriptions.stateOf(pr.topic, pr.partition);
      if (!state || state.epoch !== pr.stateEpoch) this.buffered.delete(key);
    }
    const assigned = new Set([...this.subscriptions.states()].map((s) => tpKey(s.topic, s.partition)));
    for (const key of this.logEnd.keys()) if (!assigned.has(key)) this.logEnd.delete(key);
    for (const [key, pr] of this.following) {
      const state = this.subscriptions.stateOf(pr.topic, pr.partition);
      if (!state || state.epoch !== pr.stateEpoch || !this.buffered.has(key)) this.following.delete(key);
    }
  }

  /** Sends a Fetch to every leader that has fetchable partitions and no fetch in flight. */
  sendFetches(): void {
    if (this.closed) return;
    const now = this.cluster.scheduler.nowMs();
    if (now < this.backoffUntil) {
      if (!this.backoffTimer) {
        this.backoffTimer = true;
        this.cluster.scheduler.schedule(this.backoffUntil - now, () => { this.backoffTimer = false; this.sendFetches(); });
      }
      return;
    }
    const byLeader = new Map<number, { state: TopicPartitionState; offset: bigint; behind: PartitionRecords | null }[]>();
    let unknownLeader = false;
    /** Leaders of a partition whose next fetch, for data waiting at the broker, waits only for its buffered data to be given out. */
    const held = new Set<number>();
    for (const s of this.subscriptions.states()) {
      // A paused or revoking partition's data is not given out: it holds nothing back.
      if (!this.subscriptions.fetchable(s)) continue;
      const key = tpKey(s.topic, s.partition);
      if (this.fetching.has(key)) continue;
      const following = this.following.get(key);
      if (following !== undefined) {
        const leader = this.cluster.topic(s.topic)?.partitions[s.partition]?.leaderId ?? -1;
        if (leader >= 0 && !this.atLogEnd(key, following.endOffset())) held.add(leader);
        continue;
      }
      const behind = this.buffered.get(key) ?? null;
      // Buffered data that no longer matches the position is dropped by the next fetchedRecords().
      if (behind !== null && (behind.stateEpoch !== s.epoch || behind.nextFetchOffset !== s.position)) continue;
      const leader = this.cluster.topic(s.topic)?.partitions[s.partition]?.leaderId ?? -1;
      if (leader < 0) {
        unknownLeader = true;
        continue;
      }
      if (this.inFlight.has(leader)) continue;
      let list = byLeader.get(leader);
      if (!list) byLeader.set(leader, list = []);
      list.push({ state: s, offset: behind === null ? s.position! : behind.endOffset(), behind });
    }
    if (unknownLeader) this.refreshMetadata();
    for (const [leader, partitions] of byLeader) {
      // Only partitions at their end: this Fetch would wait at the broker for up to
      // fetch.max.wait.ms, and the held partition's next fetch could not go out before it
      // returned. They go out with that fetch instead, once its buffered data is given out;
      // records reaching them meanwhile wait at the broker until then.
      if (held.has(leader) && partitions.every((p) => this.atLogEnd(tpKey(p.state.topic, p.state.partition), p.offset))) continue;
      void this.fetchFrom(leader, partitions);
    }
  }

  /** True when a fetch from `offset` would find nothing at the latest answer (false while that is unknown). */
  private atLogEnd(key: string, offset: bigint): boolean {
    const end = this.logEnd.get(key);
    return end !== undefined && offset >= end;
  }

  private async fetchFrom(nodeId: number, partitions: { state: TopicPartitionState; offset: bigint; behind: PartitionRecords | null }[]): Promise<void> {
    this.inFlight.add(nodeId);
    const keys = partitions.map((p) => tpKey(p.state.topic, p.state.partition));
    for (const k of keys) this.fetching.add(k);
    const sent = new Map<string, { state: TopicPartitionState; offset: bigint; behind: PartitionRecords | null; epoch: number }>();
    for (let i = 0; i < partitions.length; i++) sent.set(keys[i]!, { ...partitions[i]!, epoch: partitions[i]!.state.epoch });
    let session: FetchSessionHandler | null = null;
    let request: SessionRequest | null = null;
    try {
      const connection = await this.cluster.connectionToNode(nodeId);
      const version = connection.supportedVersion(Api.Fetch) ?? 4;
      const useIds = version >= 13;
      const next = new Map<string, SessionPartition>();
      const byId = new Map<string, string>();
      for (const [key, { state, offset }] of sent) {
        const topicId = this.cluster.topic(state.topic)?.topicId ?? ZERO_UUID;
        byId.set(topicId, state.topic);
        next.set(key, {
          topic: state.topic, topicId, partition: state.partition, fetchOffset: offset, partitionMaxBytes: this.options.maxPartitionFetchBytes,
          currentLeaderEpoch: -1, lastFetchedEpoch: -1, logStartOffset: -1n,
        });
      }
      if (version >= FETCH_SESSION_MIN_VERSION) {
        session = this.sessions.get(nodeId) ?? null;
        if (session === null) this.sessions.set(nodeId, session = new FetchSessionHandler());
        request = session.build(next, useIds);
      }
      const response = await connection.request(Api.Fetch, {
        replicaId: -1,
        maxWaitMs: this.options.fetchMaxWaitMs,
        minBytes: this.options.fetchMinBytes,
        maxBytes: this.options.fetchMaxBytes,
        isolationLevel: this.options.isolationLevel === 'read_committed' ? 1 : 0,
        sessionId: request?.sessionId ?? 0,
        sessionEpoch: request?.sessionEpoch ?? FINAL_EPOCH,
        topics: byTopic(request?.toSend ?? [...next.values()], useIds, (p) => ({
          partition: p.partition, fetchOffset: p.fetchOffset, partitionMaxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: p.lastFetchedEpoch, logStartOffset: p.logStartOffset,
        })).map(({ topic, topicId, items }) => ({ topic, topicId, partitions: items })),
        forgottenTopicsData: byTopic(request?.toForget ?? [], useIds, (p) => p.partition).map(({ topic, topicId, items }) => ({ topic, topicId, partitions: items })),
        rackId: this.options.clientRack ?? '',
      }, { version, timeoutMs: this.options.requestTimeoutMs + this.options.fetchMaxWaitMs });
      const errorCode = response.errorCode ?? ErrorCode.NONE;
      if (session !== null && request !== null) {
        const answered: (string | undefined)[] = [];
        for (const t of response.responses) {
          const topic = useIds ? byId.get(t.topicId ?? '') : t.topic;
          for (const p of t.partitions) answered.push(topic === undefined ? undefined : tpKey(topic, p.partitionIndex));
        }
        if (!session.handleResponse(request, errorCode, response.sessionId ?? 0, answered)) {
          // Nothing of it is used; the next fetch (at once) is a full one.
          this.logger.debug('fetch session answer not used; the next fetch is a full one', { nodeId, errorCode });
          if (errorCode === ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR) this.refreshMetadata();
          response.responses = [];
        }
      } else if (errorCode !== ErrorCode.NONE) {
        throw new Error(`Fetch failed with error ${errorCode}`);
      }
      let needMetadata = false;
      for (const t of response.responses) {
        const topic = useIds ? byId.get(t.topicId ?? '') : t.topic;
        if (topic === undefined) continue;
        for (const p of t.partitions) {
          const key = tpKey(topic, p.partitionIndex);
          const entry = sent.get(key);
          if (!entry) continue;
          const current = this.subscriptions.stateOf(topic, p.partitionIndex);
          // Stale: unassigned, sought, or reset while the fetch was in flight.
          if (current !== entry.state || current.epoch !== entry.epoch) continue;
          // A fetch from the end of buffered data goes behind it while that is being given out;
          // once it is drained, the response is usable only if the position got to where it starts.
          const behind = entry.behind !== null && this.buffered.get(key) === entry.behind;
          if (!behind && (current.position !== entry.offset || this.buffered.has(key))) continue;
          if (p.errorCode === ErrorCode.NONE) {
            const readCommitted = this.options.isolationLevel === 'read_committed' && p.lastStableOffset >= 0n;
            this.logEnd.set(key, readCommitted ? p.lastStableOffset : p.highWatermark);
            if (!behind) current.highWatermark = p.highWatermark;
            if (p.records && p.records.length > 0) {
              const records = new PartitionRecords(
                topic, p.partitionIndex, entry.offset, entry.epoch, p.records, p.highWatermark,
                this.options.isolationLevel === 'read_committed', p.abortedTransactions ?? null, this.options.deserializers,
              );
              (behind ? this.following : this.buffered).set(key, records);
              if (fetchChannel.hasSubscribers) this.publishFetch(records);
            }
          } else if (p.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE && behind) {
            // Only the prefetch ahead of the position is out of range: the position is fine for now;
            // the partition is fetched again from it once the buffered data is given out.
          } else if (p.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
            this.logger.info('fetch offset out of range, resetting', { topic, partition: p.partitionIndex, offset: entry.offset });
            this.subscriptions.requestDefaultReset(current);
          } else if (METADATA_ERRORS.has(p.errorCode)) {
            needMetadata = true;
          } else {
            this.logger.warn('fetch error', { topic, partition: p.partitionIndex, errorCode: p.errorCode });
            needMetadata = true;
          }
        }
      }
      if (needMetadata) {
        this.backoffUntil = this.cluster.scheduler.nowMs() + this.options.retryBackoffMs;
        this.refreshMetadata();
      }
    } catch (err) {
      // No answer (or an unusable one): the broker's session may be anywhere, start a new one.
      session?.handleError();
      if (this.closed) return;
      this.logger.debug('fetch failed; backing off', { nodeId, error: err as Error });
      this.backoffUntil = this.cluster.scheduler.nowMs() + this.options.retryBackoffMs;
      this.refreshMetadata();
    } finally {
      this.inFlight.delete(nodeId);
      for (const k of keys) this.fetching.delete(k);
    }
    this.wake();
    this.sendFetches();
  }

  private publishFetch(records: PartitionRecords): void {
    const message: FetchMessage = {
      clientId: this.options.clientId, topic: records.topic, partition: records.partition, fetchOffset: records.fetchOffset,
      highWatermark: records.highWatermark, records: records.batchRecordCount(), bytes: records.sizeInBytes,
    };
    fetchChannel.publish(message);
  }

  /** One metadata refresh at a time for the assigned topics. */
  refreshMetadata(): void {
    if (this.metadataRefresh || this.closed) return;
    const topics = [...new Set([...this.subscriptions.states()].map((s) => s.topic))];
    this.metadataRefresh = this.cluster.refreshMetadata(topics).then(() => undefined, (err: unknown) => {
      this.logger.debug('metadata refresh failed', { error: err as Error });
      this.backoffUntil = this.cluster.scheduler.nowMs() + this.options.retryBackoffMs;
    }).finally(() => {
      this.metadataRefresh = null;
      this.sendFetches();
    });
  }

  /**
   * Closes every broker's fetch session (a full Fetch with epoch -1 and no partitions), as
   * Java's consumer does on close, so the broker frees the slot at once; errors are ignored.
   */
  async closeSessions(timeoutMs: number): Promise<void> {
    const closing: Promise<unknown>[] = [];
    for (const [nodeId, session] of this.sessions) {
      const sessionId = session.takeForClose();
      if (sessionId === null) continue;
      closing.push(this.cluster.connectionToNode(nodeId).then((connection) => connection.request(Api.Fetch, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: this.options.fetchMaxBytes, isolationLevel: 0, sessionId, sessionEpoch: FINAL_EPOCH,
        topics: [], forgottenTopicsData: [], rackId: this.options.clientRack ?? '',
      }, { timeoutMs })).catch((err: unknown) => this.logger.debug('closing the fetch session failed', { nodeId, error: err as Error })));
    }
    await Promise.all(closing);
  }

  close(): void {
    this.closed = true;
    this.buffered.clear();
    this.following.clear();
    this.logEnd.clear();
  }
}
