/**
 * What a request names, for matching an injected fault's filters: its topics and partitions
 * (topic ids resolved to names), its group ids and its transactional ids. An API listed here
 * without one of them cannot be filtered on it (injectFault refuses the filter).
 */
import type { ApiName } from '../../protocol/messages/index.js';
import type * as M from '../../protocol/messages/index.js';
import type { Storage } from '../../storage/types.js';
import { topicNameById } from '../topic-ids.js';

/** One topic a request names, with the partitions it names (null: every partition, e.g. OffsetFetch of all). */
export interface TargetTopic {
  readonly topic: string;
  readonly partitions: readonly number[] | null;
}

interface Targets {
  topics?(request: never, version: number, storage: Storage): TargetTopic[];
  groupIds?(request: never, version: number): (string | null | undefined)[];
  transactionalIds?(request: never, version: number): (string | null | undefined)[];
}

const GROUP_KEY = 0;
const TRANSACTION_KEY = 1;

function named(storage: Storage, name: string | undefined, topicId: string | undefined): string {
  return name !== undefined && name !== '' ? name : topicNameById(storage, topicId);
}

function coordinatorKeys(request: M.FindCoordinatorRequestData, keyType: number): (string | undefined)[] {
  if ((request.keyType ?? GROUP_KEY) !== keyType) return [];
  return request.coordinatorKeys !== undefined && request.coordinatorKeys.length > 0 ? request.coordinatorKeys : [request.key];
}

const groupOnly: Targets = { groupIds: (request: { groupId: string }) => [request.groupId] };

export const FAULT_TARGETS: Partial<Record<ApiName, Targets>> = {
  Produce: {
    topics: (request: M.ProduceRequestData, _v, storage) => request.topicData.map((t) => ({ topic: named(storage, t.name, t.topicId), partitions: t.partitionData.map((p) => p.index) })),
    transactionalIds: (request: M.ProduceRequestData) => [request.transactionalId],
  },
  Fetch: {
    topics: (request: M.FetchRequestData, _v, storage) => request.topics.map((t) => ({ topic: named(storage, t.topic, t.topicId), partitions: t.partitions.map((p) => p.partition) })),
  },
  ListOffsets: {
    topics: (request: M.ListOffsetsRequestData) => request.topics.map((t) => ({ topic: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })),
  },
  OffsetCommit: {
    topics: (request: M.OffsetCommitRequestData, _v, storage) => request.topics.map((t) => ({ topic: named(storage, t.name, t.topicId), partitions: t.partitions.map((p) => p.partitionIndex) })),
    groupIds: (request: M.OffsetCommitRequestData) => [request.groupId],
  },
  OffsetFetch: {
    topics: (request: M.OffsetFetchRequestData, _v, storage) => request.groups !== undefined && request.groups.length > 0
      ? request.groups.flatMap((g) => (g.topics ?? []).map((t) => ({ topic: named(storage, t.name, t.topicId), partitions: t.partitionIndexes })))
      : (request.topics ?? []).map((t) => ({ topic: t.name, partitions: t.partitionIndexes })),
    groupIds: (request: M.OffsetFetchRequestData) => request.groups !== undefined && request.groups.length > 0 ? request.groups.map((g) => g.groupId) : [request.groupId],
  },
  TxnOffsetCommit: {
    topics: (request: M.TxnOffsetCommitRequestData, _v, storage) => request.topics.map((t) => ({ topic: named(storage, t.name, t.topicId), partitions: t.partitions.map((p) => p.partitionIndex) })),
    groupIds: (request: M.TxnOffsetCommitRequestData) => [request.groupId],
    transactionalIds: (request: M.TxnOffsetCommitRequestData) => [request.transactionalId],
  },
  FindCoordinator: {
    groupIds: (request: M.FindCoordinatorRequestData) => coordinatorKeys(request, GROUP_KEY),
    transactionalIds: (request: M.FindCoordinatorRequestData) => coordinatorKeys(request, TRANSACTION_KEY),
  },
  JoinGroup: groupOnly,
  SyncGroup: groupOnly,
  Heartbeat: groupOnly,
  LeaveGroup: groupOnly,
  ConsumerGroupHeartbeat: groupOnly,
  ShareGroupHeartbeat: groupOnly,
  StreamsGroupHeartbeat: groupOnly,
  InitProducerId: { transactionalIds: (request: M.InitProducerIdRequestData) => [request.transactionalId] },
  AddPartitionsToTxn: {
    topics: (request: M.AddPartitionsToTxnRequestData) => [...(request.v3AndBelowTopics ?? []), ...(request.transactions ?? []).flatMap((t) => t.topics)]
      .map((t) => ({ topic: t.name, partitions: t.partitions })),
    transactionalIds: (request: M.AddPartitionsToTxnRequestData) => request.transactions !== undefined && request.transactions.length > 0
      ? request.transactions.map((t) => t.transactionalId)
      : [request.v3AndBelowTransactionalId],
  },
  AddOffsetsToTxn: {
    groupIds: (request: M.AddOffsetsToTxnRequestData) => [request.groupId],
    transactionalIds: (request: M.AddOffsetsToTxnRequestData) => [request.transactionalId],
  },
  EndTxn: { transactionalIds: (request: M.EndTxnRequestData) => [request.transactionalId] },
};

/** The filters a fault on this API may carry. */
export function filtersOf(api: ApiName): { topic: boolean; groupId: boolean; transactionalId: boolean } {
  const t = FAULT_TARGETS[api];
  return { topic: t?.topics !== undefined, groupId: t?.groupIds !== undefined, transactionalId: t?.transactionalIds !== undefined };
}

export interface FaultFilter {
  readonly topic?: string;
  readonly partition?: number;
  readonly groupId?: string;
  readonly transactionalId?: string;
}

/** Whether the request names everything the filter asks for (a filter with nothing in it matches every request). */
export function requestMatches(api: ApiName, filter: FaultFilter, request: unknown, version: number, storage: Storage): boolean {
  const targets = FAULT_TARGETS[api];
  if (filter.topic !== undefined) {
    const topics = targets?.topics?.(request as never, version, storage) ?? [];
    const hit = topics.some((t) => t.topic === filter.topic && (filter.partition === undefined || t.partitions === null || t.partitions.includes(filter.partition)));
    if (!hit) return false;
  }
  if (filter.groupId !== undefined && !(targets?.groupIds?.(request as never, version) ?? []).includes(filter.groupId)) return false;
  if (filter.transactionalId !== undefined && !(targets?.transactionalIds?.(request as never, version) ?? []).includes(filter.transactionalId)) return false;
  return true;
}
