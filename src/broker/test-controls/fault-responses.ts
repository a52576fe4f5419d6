/**
 * The answer to a request an injected fault fails: the request's own response with the
 * error in every place that can carry one, as the broker itself answers a request it
 * refuses as a whole (per partition for the partition APIs, per group or per coordinator key
 * where the response has a list of them, else at the top). Built from the request alone:
 * the handler does not run, so the fault changes no state.
 */
import type { ApiName } from '../../protocol/messages/index.js';
import type * as M from '../../protocol/messages/index.js';
import { joinGroupError, syncGroupError, heartbeatResponse, leaveGroupResponse } from '../../coordinator/classic/responses.js';
import { consumerGroupHeartbeatError } from '../../coordinator/index.js';
import { everyPartition } from '../handlers/produce.js';
import { emptyPartition } from '../handlers/fetch.js';
import { offsetFetchError } from '../handlers/offset-fetch.js';
import { findCoordinatorError } from '../handlers/find-coordinator.js';
import { defaultShareGroupHeartbeatResponseData } from '../../protocol/messages/share-group-heartbeat.js';
import { defaultStreamsGroupHeartbeatResponseData } from '../../protocol/messages/streams-group-heartbeat.js';

type FaultResponse = (version: number, request: never, errorCode: number) => unknown;

function fetchError(version: number, request: M.FetchRequestData, errorCode: number): M.FetchResponseData {
  // Session id 0: a client with an incremental fetch session starts a new one, since this
  // request did not move the session's epoch.
  return {
    throttleTimeMs: 0, errorCode: 0, sessionId: 0,
    responses: request.topics.map((t) => ({
      ...(version >= 13 ? { topicId: t.topicId } : { topic: t.topic }),
      partitions: t.partitions.map((p) => emptyPartition(p.partition, errorCode, false)),
    })),
  };
}

function listOffsetsError(version: number, request: M.ListOffsetsRequestData, errorCode: number): M.ListOffsetsResponseData {
  return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode, timestamp: -1n, offset: -1n, leaderEpoch: -1 })),
    })),
  };
}

function offsetCommitError(_version: number, request: M.OffsetCommitRequestData, errorCode: number): M.OffsetCommitResponseData {
  return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
  };
}

function txnOffsetCommitError(_version: number, request: M.TxnOffsetCommitRequestData, errorCode: number): M.TxnOffsetCommitResponseData {
  return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
  };
}

function addPartitionsToTxnError(version: number, request: M.AddPartitionsToTxnRequestData, errorCode: number): M.AddPartitionsToTxnResponseData {
  const results = (topics: readonly M.AddPartitionsToTxnTopic[]): M.AddPartitionsToTxnTopicResult[] =>
    topics.map((t) => ({ name: t.name, resultsByPartition: t.partitions.map((partitionIndex) => ({ partitionIndex, partitionErrorCode: errorCode })) }));
  if (version <= 3) return { throttleTimeMs: 0, resultsByTopicV3AndBelow: results(request.v3AndBelowTopics ?? []) };
  return {
    throttleTimeMs: 0, errorCode: 0,
    resultsByTransaction: (request.transactions ?? []).map((t) => ({ transactionalId: t.transactionalId, topicResults: results(t.topics) })),
  };
}

/** The APIs an injected error can fail; delays and dropped connections work for every API. */
export const FAULT_RESPONSES: Partial<Record<ApiName, FaultResponse>> = {
  Produce: (_v, request: M.ProduceRequestData, errorCode) => everyPartition(request, errorCode),
  Fetch: fetchError,
  ListOffsets: listOffsetsError,
  OffsetCommit: offsetCommitError,
  OffsetFetch: offsetFetchError,
  TxnOffsetCommit: txnOffsetCommitError,
  FindCoordinator: findCoordinatorError,
  JoinGroup: (v, request: M.JoinGroupRequestData, errorCode) => joinGroupError(v, errorCode, request.memberId),
  SyncGroup: (v, _request, errorCode) => syncGroupError(v, errorCode),
  Heartbeat: (_v, _request, errorCode) => heartbeatResponse(errorCode),
  LeaveGroup: (v, _request, errorCode) => leaveGroupResponse(v, errorCode, []),
  ConsumerGroupHeartbeat: (_v, _request, errorCode) => consumerGroupHeartbeatError(errorCode),
  ShareGroupHeartbeat: (_v, _request, errorCode) => ({ ...defaultShareGroupHeartbeatResponseData(), errorCode }),
  StreamsGroupHeartbeat: (_v, _request, errorCode) => ({ ...defaultStreamsGroupHeartbeatResponseData(), errorCode }),
  InitProducerId: (_v, _request, errorCode): M.InitProducerIdResponseData => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 }),
  AddPartitionsToTxn: addPartitionsToTxnError,
  AddOffsetsToTxn: (_v, _request, errorCode): M.AddOffsetsToTxnResponseData => ({ throttleTimeMs: 0, errorCode }),
  EndTxn: (_v, _request, errorCode): M.EndTxnResponseData => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 }),
};
