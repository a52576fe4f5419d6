/**
 * ShareFetch (KIP-932): a share group member's fetch. It carries the member's share session
 * epoch (0 opens a session, -1 closes it), acknowledgements of records it fetched before,
 * applied and made durable first, then acquires records of the session's share-partitions
 * for the member (../share/share-partition-manager.ts), up to MaxRecords, each with its
 * delivery count and an acquisition lock of `group.share.record.lock.duration.ms`.
 *
 * With nothing to acquire it parks until an append to one of the partitions, a release of
 * records (an acknowledgement, a lock timeout), or MaxWaitMs (real time, as Fetch). It answers
 * as soon as anything was acquired: a parked request holds no locks.
 *
 * Checks, as Kafka's KafkaApis: a group id (INVALID_REQUEST), READ on the group, a member id
 * of 1 to 36 characters (INVALID_REQUEST), acknowledgements only in a session
 * (INVALID_REQUEST with epoch 0), the session's epoch (SHARE_SESSION_NOT_FOUND,
 * INVALID_SHARE_SESSION_EPOCH), READ on each topic (TOPIC_AUTHORIZATION_FAILED).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type {
  ShareFetchRequestData, ShareFetchResponseData, ShareFetchResponsePartitionData, ShareFetchableTopicResponse,
} from '../../protocol/messages/share-fetch.js';
import { EMPTY_BUFFER } from '../../protocol/messages/runtime.js';
import { AclOperation, ResourceType, authorizes, filterAuthorized } from '../authorization.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { partitionKey } from '../append-notifier.js';
import { SharePartitionManager, type ShareFetchPartitionResult } from '../share/share-partition-manager.js';
import { FINAL_SHARE_SESSION_EPOCH, INITIAL_SHARE_SESSION_EPOCH, sharePartitionRefKey, type ShareSession } from '../share/share-sessions.js';
import { acknowledgeAll, checkShareRequest, leader, type AcknowledgeOutcome } from '../share/share-requests.js';

/** ShareAcquireMode 1: stop at MaxRecords exactly (KIP-1206); 0, batch-optimized, may pass it to a batch's end. */
const RECORD_LIMIT_MODE = 1;

function topLevel(errorCode: number, errorMessage: string | null): ShareFetchResponseData {
  return { throttleTimeMs: 0, errorCode, errorMessage, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] };
}

function partitionData(partitionIndex: number, fetched: ShareFetchPartitionResult | null, ack: AcknowledgeOutcome | undefined): ShareFetchResponsePartitionData {
  const records = fetched === null || fetched.records.length === 0 ? EMPTY_BUFFER : fetched.records.length === 1 ? fetched.records[0]! : Buffer.concat(fetched.records);
  return {
    partitionIndex,
    errorCode: fetched?.errorCode ?? ErrorCode.NONE,
    errorMessage: fetched?.errorMessage ?? null,
    acknowledgeErrorCode: ack?.errorCode ?? ErrorCode.NONE,
    acknowledgeErrorMessage: ack?.errorMessage ?? null,
    currentLeader: leader(),
    records,
    acquiredRecords: (fetched?.acquiredRecords ?? []).map((a) => ({ firstOffset: BigInt(a.firstOffset), lastOffset: BigInt(a.lastOffset), deliveryCount: a.deliveryCount })),
  };
}

export const shareFetchHandler = defineHandler<ShareFetchRequestData, ShareFetchResponseData>({
  api: Api.ShareFetch,
  authorization: authorizes({ GROUP: ['READ'], TOPIC: ['READ'] }),
  minVersion: 1,
  maxVersion: Api.ShareFetch.request.highestVersion,
  async handle(ctx, request) {
    const shares = ctx.broker.shares;
    const checked = checkShareRequest(ctx, request.groupId, request.memberId);
    if ('errorCode' in checked) return topLevel(checked.errorCode, null);
    const { groupId, memberId } = checked;
    // A renewing fetch (v2, IsRenewAck) only acknowledges: it must ask for nothing.
    const renew = request.isRenewAck ?? false;
    if (renew && (request.maxBytes !== 0 || request.minBytes !== 0 || request.maxRecords !== 0 || request.maxWaitMs !== 0)) return topLevel(ErrorCode.INVALID_REQUEST, null);
    const epoch = request.shareSessionEpoch;
    const hasAcknowledgements = request.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length > 0));
    const requested = request.topics.flatMap((t) => t.partitions.map((p) => ({ topicId: t.topicId, partition: p.partitionIndex })));

    let session: ShareSession;
    if (epoch === INITIAL_SHARE_SESSION_EPOCH) {
      if (hasAcknowledgements) return topLevel(ErrorCode.INVALID_REQUEST, null);
      const opened = shares.sessions.open(groupId, memberId, ctx.signal);
      if ('errorCode' in opened) return topLevel(opened.errorCode, null);
      session = opened.session;
      shares.watchConnection(ctx.signal);
    } else {
      const found = shares.sessions.next(groupId, memberId, epoch);
      if ('errorCode' in found) return topLevel(found.errorCode, null);
      session = found.session;
    }
    // Partitions this request adds to the session are listed in its answer even without news.
    const added = new Set(requested.map(sharePartitionRefKey).filter((k) => epoch === INITIAL_SHARE_SESSION_EPOCH || !session.partitions.has(k)));
    if (epoch !== FINAL_SHARE_SESSION_EPOCH) {
      session.add(requested);
      session.forget(request.forgottenTopicsData.flatMap((f) => f.partitions.map((partition) => ({ topicId: f.topicId, partition }))));
    }

    // Acknowledgements are applied at once and written while the fetch acquires, as Kafka
    // does: records they release become acquirable only once durable, so not by this fetch
    // unless it waits.
    const acking = acknowledgeAll(ctx, groupId, memberId, request.topics.flatMap((t) => t.partitions.map((p) => ({
      topicId: t.topicId, partition: p.partitionIndex, batches: p.acknowledgementBatches,
    }))), { renewVersion: ctx.apiVersion >= 2, isRenewAck: renew });

    const settings = shares.settingsOf(groupId);
    const byTopic = new Map<string, ShareFetchableTopicResponse>();
    const add = (topicId: string, data: ShareFetchResponsePartitionData): void => {
      let topic = byTopic.get(topicId);
      if (topic === undefined) byTopic.set(topicId, (topic = { topicId, partitions: [] }));
      topic.partitions.push(data);
    };

    if (epoch === FINAL_SHARE_SESSION_EPOCH) {
      const acks = await acking;
      // The member is done: the session goes, and what it still holds is released.
      shares.sessions.remove(session);
      await shares.releaseMember(groupId, memberId, [...session.partitions.values()]);
      for (const r of requested) add(r.topicId, partitionData(r.partition, null, acks.get(sharePartitionRefKey(r))));
      return { ...topLevel(ErrorCode.NONE, null), acquisitionLockTimeoutMs: settings.recordLockDurationMs, responses: [...byTopic.values()] };
    }

    const [results, acks] = await Promise.all([fetchSession(ctx, request, session), acking]);
    for (const { ref, result } of results) {
      const ack = acks.get(sharePartitionRefKey(ref));
      // A later request of the session only hears of partitions with news (Kafka's incremental answer).
      const news = result.acquiredRecords.length > 0 || result.errorCode !== ErrorCode.NONE || ack !== undefined || added.has(sharePartitionRefKey(ref));
      if (epoch !== INITIAL_SHARE_SESSION_EPOCH && !news) continue;
      add(ref.topicId, partitionData(ref.partition, result, ack));
    }
    // Acknowledged partitions the session no longer fetches still get their outcome.
    for (const [key, ack] of acks) {
      if (session.partitions.has(key)) continue;
      const [topicId, partition] = splitRefKey(key);
      add(topicId, partitionData(partition, null, ack));
    }
    return { ...topLevel(ErrorCode.NONE, null), acquisitionLockTimeoutMs: settings.recordLockDurationMs, responses: [...byTopic.values()] };
  },
});

interface Fetched {
  readonly ref: { readonly topicId: string; readonly partition: number };
  readonly result: ShareFetchPartitionResult;
}

/** Acquires from every share-partition of the session, parking while there is nothing. */
async function fetchSession(ctx: RequestContext, request: ShareFetchRequestData, session: ShareSession): Promise<Fetched[]> {
  const { storage } = ctx.broker;
  const shares = ctx.broker.shares;
  const groupId = session.groupId;
  const refs = [...session.partitions.values()].map((r) => ({ ...r, topic: storage.topicById(r.topicId)?.name }));
  const names = refs.flatMap((r) => (r.topic === undefined ? [] : [r.topic]));
  const readable = ctx.broker.acls === null ? null : filterAuthorized(ctx, AclOperation.READ, ResourceType.TOPIC, names);
  const denied = (r: (typeof refs)[number]): boolean => readable !== null && r.topic !== undefined && !readable.has(r.topic);
  const allowed = refs.filter((r) => !denied(r));

  const lease = ctx.broker.readBuffers.lease();
  ctx.onResponseWritten(() => lease.release());
  const limits = {
    maxRecords: request.maxRecords, batchSize: Math.max(1, request.batchSize),
    recordLimit: (request.shareAcquireMode ?? 0) === RECORD_LIMIT_MODE, maxBytes: request.maxBytes,
  };
  const pass = (): Promise<ShareFetchPartitionResult[]> => shares.acquire(groupId, session.memberId, allowed, limits, lease.allocate);
  let results = await pass();
  const acquiredAny = (): boolean => results.some((r) => r.acquiredRecords.length > 0 || r.errorCode !== ErrorCode.NONE);
  if (!acquiredAny() && request.maxWaitMs > 0 && allowed.length > 0) {
    const deadline = performance.now() + request.maxWaitMs;
    const keys = allowed.flatMap((r) => [
      SharePartitionManager.wakeKey(groupId, r.topicId, r.partition),
      ...(r.topic === undefined ? [] : [partitionKey(r.topic, r.partition)]),
    ]);
    const stop = (wake: () => void): void => ctx.whenAnswerSoon(wake);
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0 || ctx.signal.aborted || ctx.mustAnswerSoon) break;
      await ctx.broker.appends.waitForAppend(keys, left, stop);
      // The session may have moved on (closed, or a newer request) while this one waited.
      if (shares.sessions.get(groupId, session.memberId) !== session) break;
      results = await pass();
      if (acquiredAny()) break;
    }
  }
  const out: Fetched[] = [];
  let k = 0;
  for (const r of refs) {
    if (denied(r)) out.push({ ref: r, result: { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null, records: [], bytes: 0, acquiredRecords: [] } });
    else out.push({ ref: r, result: results[k++]! });
  }
  return out;
}

function splitRefKey(key: string): [string, number] {
  const at = key.lastIndexOf(':');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}
