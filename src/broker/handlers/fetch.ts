/**
 * Fetch: stored batch bytes straight from the log, never re-encoded, read into pooled
 * buffers (storage/read-buffer-pool.ts) that are reused once the response is written. A
 * fetch that finds fewer than `minBytes` parks until an append to one of its partitions or
 * `maxWaitMs`, then reads again (Kafka's DelayedFetch). It also answers, with what it has, as soon as a
 * later request on the same connection has its response ready (see connection.ts).
 *
 * isolation_level=read_committed (1) reads stop at the last stable offset and carry the
 * aborted transactions overlapping what was read (storage's PartitionLog.read).
 *
 * Fetch sessions (KIP-227, ../fetch-sessions.ts): a full request with epoch 0 may open a
 * session over its partitions; an incremental request reads every partition of its session
 * (with the request parameters it last sent for each) and is answered with only the
 * partitions that changed.
 *
 * v18 (KIP-1166) adds the high watermark a follower knows to each partition, which only
 * replica fetches carry (Kafka uses it to answer a follower sooner); a consumer's v18 fetch
 * means what its v17 fetch does.
 */
import { Api } from '../../protocol/messages/index.js';
import type { FetchRequestData, FetchResponseData, FetchableTopicResponse, FetchResponsePartitionData } from '../../protocol/messages/fetch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { EMPTY_BUFFER, ZERO_UUID } from '../../protocol/messages/runtime.js';
import { StorageError } from '../../storage/errors.js';
import { AclOperation, ResourceType, filterAuthorized, authorizes } from '../authorization.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { partitionKey } from '../append-notifier.js';
import {
  FINAL_EPOCH, INITIAL_EPOCH, nextEpoch, partitionKey as sessionPartitionKey, type CachedPartition, type FetchSession,
} from '../fetch-sessions.js';

const READ_COMMITTED = 1;
const DEFAULT_MAX_BYTES = 0x7fffffff;

interface Wanted {
  readonly topic: string | undefined;
  readonly topicId: string;
  readonly partitions: FetchRequestData['topics'][number]['partitions'];
}

/**
 * A partition answered with an error and no data. Kafka answers a partition it cannot find
 * (unknown topic, topic id or partition) before reading, with its schema defaults: an empty
 * aborted-transactions list. An error met while reading (offset out of range, leader epoch)
 * comes from its log read result instead: null aborted transactions. The offsets are -1
 * either way.
 */
export function emptyPartition(partitionIndex: number, errorCode: number, whileReading: boolean): FetchResponsePartitionData {
  return {
    partitionIndex, errorCode, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n,
    // Kafka sends empty records, never null; librdkafka rejects a null record set.
    abortedTransactions: whileReading ? null : [], preferredReadReplica: -1, records: EMPTY_BUFFER,
  };
}

/** The topic a fetched topic entry names: by name up to v12, by topic id from v13 (whose `topic` decodes as ''). */
function topicName(ctx: RequestContext, w: Wanted): string | undefined {
  if (ctx.apiVersion < 13) return w.topic;
  return w.topicId === ZERO_UUID ? undefined : ctx.broker.storage.topicById(w.topicId)?.name;
}

/** One pass over every requested partition; returns the response and the bytes it carries. */
function readAll(ctx: RequestContext, request: FetchRequestData, wanted: Wanted[], readable: ReadonlySet<string> | null, allocate: (length: number) => Buffer): { topics: FetchableTopicResponse[]; bytes: number; anyError: boolean } {
  const { storage } = ctx.broker;
  const readCommitted = (request.isolationLevel ?? 0) === READ_COMMITTED;
  let remaining = ctx.apiVersion >= 3 ? (request.maxBytes ?? DEFAULT_MAX_BYTES) : DEFAULT_MAX_BYTES;
  let bytes = 0;
  let anyError = false;
  const topics = wanted.map((w): FetchableTopicResponse => {
    const name = topicName(ctx, w);
    const unknown = ctx.apiVersion >= 13 ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    // Kafka: an unknown topic id first, then READ on the topic, then the partition.
    const denied = name !== undefined && readable !== null && !readable.has(name);
    const partitions = w.partitions.map((p): FetchResponsePartitionData => {
      if (denied) {
        anyError = true;
        return emptyPartition(p.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED, false);
      }
      const log = name === undefined ? undefined : storage.partition(name, p.partition);
      if (!log) {
        anyError = true;
        return emptyPartition(p.partition, name === undefined ? unknown : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, false);
      }
      if (ctx.broker.controls.offlinePartitions.has(name!, p.partition)) {
        anyError = true;
        return emptyPartition(p.partition, ErrorCode.NOT_LEADER_OR_FOLLOWER, true);
      }
      // Brook's single leader is always at epoch 0.
      if ((p.currentLeaderEpoch ?? -1) > 0) {
        anyError = true;
        return emptyPartition(p.partition, ErrorCode.UNKNOWN_LEADER_EPOCH, true);
      }
      try {
        const result = log.read(p.fetchOffset, Math.min(p.partitionMaxBytes, remaining), { minOneBatch: bytes === 0, allocate, readCommitted });
        remaining -= result.bytes;
        bytes += result.bytes;
        const records = result.records.length === 0 ? EMPTY_BUFFER : result.records.length === 1 ? result.records[0]! : Buffer.concat(result.records);
        return {
          partitionIndex: p.partition, errorCode: ErrorCode.NONE, highWatermark: result.highWatermark,
          lastStableOffset: result.lastStableOffset, logStartOffset: result.logStartOffset,
          abortedTransactions: result.abortedTransactions?.map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset })) ?? null,
          preferredReadReplica: -1, records,
        };
      } catch (err) {
        if (!(err instanceof StorageError)) throw err;
        anyError = true;
        // As Kafka: an error read result carries no offsets (-1), not the log's.
        return emptyPartition(p.partition, err.errorCode, true);
      }
    });
    return ctx.apiVersion >= 13 ? { topicId: w.topicId, partitions } : { topic: w.topic ?? '', partitions };
  });
  return { topics, bytes, anyError };
}

/** The bytes each topic's response carries, for the metrics (only the pass that is sent counts). */
function countBytesOut(ctx: RequestContext, wanted: readonly Wanted[], topics: readonly FetchableTopicResponse[]): void {
  for (let i = 0; i < topics.length; i++) {
    let bytes = 0;
    for (const p of topics[i]!.partitions) bytes += p.records?.length ?? 0;
    if (bytes === 0) continue;
    const name = topicName(ctx, wanted[i]!);
    if (name !== undefined) ctx.broker.metrics.topic(name).bytesOut += bytes;
  }
}

/**
 * What a request reads, by its session metadata (Kafka's FetchManager.newContext): the
 * request's partitions (no session, or a full request that may open one), or every
 * partition of the session it continues; or the session error to answer.
 */
type SessionPlan =
  | { readonly wanted: Wanted[]; readonly session: null; readonly createSession: boolean }
  | { readonly wanted: Wanted[]; readonly session: FetchSession; readonly cached: CachedPartition[]; readonly expectedEpoch: number }
  | { readonly error: number };

function sessionPlan(ctx: RequestContext, request: FetchRequestData): SessionPlan {
  const requested: Wanted[] = request.topics.map((t) => ({ topic: t.topic, topicId: t.topicId ?? ZERO_UUID, partitions: t.partitions }));
  // Before v7 the fields are absent: (0, -1), a fetch without a session.
  const sessionId = request.sessionId ?? 0;
  const epoch = request.sessionEpoch ?? FINAL_EPOCH;
  const cache = ctx.broker.fetchSessions;
  if (epoch === INITIAL_EPOCH || epoch === FINAL_EPOCH) {
    // A full request closes the session it names; epoch 0 asks for a new one.
    if (sessionId !== 0) cache.remove(sessionId);
    return { wanted: requested, session: null, createSession: epoch === INITIAL_EPOCH };
  }
  const session = cache.get(sessionId);
  if (session === undefined) return { error: ErrorCode.FETCH_SESSION_ID_NOT_FOUND };
  if (session.epoch !== epoch) return { error: ErrorCode.INVALID_FETCH_SESSION_EPOCH };
  const usesTopicIds = ctx.apiVersion >= 13;
  if (session.usesTopicIds !== usesTopicIds) return { error: ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR };
  const forgotten: string[] = [];
  for (const f of request.forgottenTopicsData ?? []) {
    for (const partition of f.partitions) forgotten.push(sessionPartitionKey(usesTopicIds, f.topic, f.topicId ?? ZERO_UUID, partition));
  }
  session.update(cachedPartitions(ctx, requested, null), forgotten);
  if (session.size === 0) {
    cache.remove(session.id);
    return { wanted: requested, session: null, createSession: false };
  }
  cache.touch(session, ctx.broker.clock.nowMs());
  session.epoch = nextEpoch(session.epoch);
  // The session's partitions in its order, consecutive partitions of a topic in one entry.
  const cached = [...session.partitions.values()];
  const wanted: Wanted[] = [];
  let last: CachedPartition | null = null;
  for (const c of cached) {
    if (last === null || last.topicId !== c.topicId || last.topic !== c.topic) wanted.push({ topic: c.topic, topicId: c.topicId, partitions: [] });
    wanted[wanted.length - 1]!.partitions.push(c.request);
    last = c;
  }
  return { wanted, session, cached, expectedEpoch: session.epoch };
}

/** The requested partitions as a session caches them, with what was answered (or nothing yet). */
function cachedPartitions(ctx: RequestContext, wanted: readonly Wanted[], topics: readonly FetchableTopicResponse[] | null): CachedPartition[] {
  const out: CachedPartition[] = [];
  for (let i = 0; i < wanted.length; i++) {
    const w = wanted[i]!;
    const topic = ctx.apiVersion >= 13 ? topicName(ctx, w) : w.topic ?? '';
    for (let j = 0; j < w.partitions.length; j++) {
      const answered = topics?.[i]?.partitions[j];
      out.push({
        topic, topicId: w.topicId, partition: w.partitions[j]!.partition, request: w.partitions[j]!,
        highWatermark: answered?.highWatermark ?? -1n, logStartOffset: answered?.logStartOffset ?? -1n,
      });
    }
  }
  return out;
}

/**
 * The response: all partitions without a session (a new session caches them); with one,
 * only the partitions that changed (Kafka's CachedPartition.maybeUpdateResponseData), those
 * that returned records moved to the end of the session.
 */
function answer(ctx: RequestContext, plan: Exclude<SessionPlan, { error: number }>, topics: FetchableTopicResponse[]): FetchResponseData {
  const usesTopicIds = ctx.apiVersion >= 13;
  if (plan.session === null) {
    let sessionId = 0;
    if (plan.createSession) {
      const session = ctx.broker.fetchSessions.maybeCreate(cachedPartitions(ctx, plan.wanted, topics), usesTopicIds, ctx.broker.clock.nowMs());
      sessionId = session?.id ?? 0;
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId, responses: topics };
  }
  const { session, cached } = plan;
  // Another request of the session came in while this one waited for data (a duplicate).
  if (session.epoch !== plan.expectedEpoch) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: session.id, responses: [] };
  }
  const responses: FetchableTopicResponse[] = [];
  let k = 0;
  let lastTopic: FetchableTopicResponse | null = null;
  let lastKey: string | undefined;
  for (let i = 0; i < topics.length; i++) {
    for (const p of topics[i]!.partitions) {
      const c = cached[k++]!;
      const hasRecords = (p.records?.length ?? 0) > 0;
      let mustRespond = hasRecords;
      if (c.highWatermark !== p.highWatermark) {
        mustRespond = true;
        c.highWatermark = p.highWatermark;
      }
      const logStartOffset = p.logStartOffset ?? -1n;
      if (c.logStartOffset !== logStartOffset) {
        mustRespond = true;
        c.logStartOffset = logStartOffset;
      }
      if (p.errorCode !== ErrorCode.NONE) {
        // Answered again once the error clears: the next high watermark differs from -1.
        c.highWatermark = -1n;
        mustRespond = true;
      }
      if (!mustRespond) continue;
      if (hasRecords) session.moveToEnd(c);
      // As Kafka: consecutive answered partitions of one topic share an entry.
      const w = plan.wanted[i]!;
      const key = usesTopicIds ? w.topicId : w.topic ?? '';
      if (lastTopic === null || lastKey !== key) {
        lastTopic = usesTopicIds ? { topicId: w.topicId, partitions: [] } : { topic: w.topic ?? '', partitions: [] };
        responses.push(lastTopic);
        lastKey = key;
      }
      lastTopic.partitions.push(p);
    }
  }
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: session.id, responses };
}

/** The fetched topics the client may READ (a consumer's fetch; Brook has no followers). */
function readableTopics(ctx: RequestContext, wanted: readonly Wanted[]): Set<string> {
  const names: string[] = [];
  for (const w of wanted) {
    const name = topicName(ctx, w);
    if (name !== undefined) names.push(name);
  }
  return filterAuthorized(ctx, AclOperation.READ, ResourceType.TOPIC, names);
}

export const fetchHandler = defineHandler<FetchRequestData, FetchResponseData>({
  api: Api.Fetch,
  authorization: authorizes({ TOPIC: ['READ'] }),
  // v0-3 return the legacy message formats (down-conversion), which Kafka 4 dropped too.
  minVersion: 4,
  maxVersion: Api.Fetch.request.highestVersion,
  async handle(ctx, request) {
    const plan = sessionPlan(ctx, request);
    if ('error' in plan) return { throttleTimeMs: 0, errorCode: plan.error, sessionId: 0, responses: [] };
    const { wanted } = plan;
    const respond = (topics: FetchableTopicResponse[]): FetchResponseData => {
      // Every partition with records is answered, in a session too: count before trimming.
      countBytesOut(ctx, wanted, topics);
      return answer(ctx, plan, topics);
    };

    // Reads are copied into pooled buffers, given back once the response is on its way.
    const readable = ctx.broker.acls === null ? null : readableTopics(ctx, wanted);
    const lease = ctx.broker.readBuffers.lease();
    ctx.onResponseWritten(() => lease.release());
    let pass = readAll(ctx, request, wanted, readable, lease.allocate);
    if (pass.bytes >= request.minBytes || pass.anyError || request.maxWaitMs <= 0 || wanted.length === 0) return respond(pass.topics);

    // Park until data arrives on one of our partitions or the wait is over. The wait keeps
    // real time, not the broker's clock: it is the client's socket I/O budget, and a manual
    // clock that stands still would otherwise park the fetch for good.
    const deadline = performance.now() + request.maxWaitMs;
    const keys = wanted.flatMap((w) => w.partitions.map((p) => partitionKey(topicName(ctx, w) ?? '', p.partition)));
    const stop = (wake: () => void): void => ctx.whenAnswerSoon(wake);
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0 || ctx.signal.aborted || ctx.mustAnswerSoon) break;
      await ctx.broker.appends.waitForAppend(keys, left, stop);
      pass = readAll(ctx, request, wanted, readable, lease.allocate);
      if (pass.bytes >= request.minBytes || pass.anyError) break;
    }
    return respond(pass.topics);
  },
});
