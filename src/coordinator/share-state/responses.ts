/**
 * The five share-state responses as Kafka's request classes build them
 * (InitializeShareGroupStateResponse.toResponseData, toErrorResponseData,
 * toGlobalErrorResponse and their Read/Write/Delete/ReadSummary counterparts): one result per
 * share-partition from the shard, a whole-request error from the broker.
 */
import type {
  DeleteShareGroupStateRequestData, DeleteShareGroupStateResponseData, InitializeShareGroupStateRequestData,
  InitializeShareGroupStateResponseData, ReadShareGroupStateRequestData, ReadShareGroupStateResponseData,
  ReadShareGroupStateSummaryRequestData, ReadShareGroupStateSummaryResponseData, WriteShareGroupStateRequestData,
  WriteShareGroupStateResponseData,
} from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { StateBatch } from './state-batches.js';

/**
 * Kafka's `Errors.message()` for the codes the share coordinator (and the share-group offset APIs) answer with: the text
 * Kafka puts in a response's errorMessage (Brook's own error table words some differently).
 */
const KAFKA_MESSAGES: ReadonlyMap<number, string> = new Map([
  [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.'],
  [ErrorCode.COORDINATOR_NOT_AVAILABLE, 'The coordinator is not available.'],
  [ErrorCode.NOT_COORDINATOR, 'This is not the correct coordinator.'],
  [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.'],
  [ErrorCode.INVALID_REQUEST, 'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.'],
  [ErrorCode.FENCED_LEADER_EPOCH, 'The leader epoch in the request is older than the epoch on the broker.'],
  [ErrorCode.FENCED_STATE_EPOCH, 'The coordinator rejected the request because the state epoch did not match.'],
  // And those the share-group offset APIs answer with (share/offsets.ts and their handlers).
  [ErrorCode.UNKNOWN_SERVER_ERROR, 'The server experienced an unexpected error when processing the request.'],
  [ErrorCode.INVALID_GROUP_ID, 'The group id is invalid.'],
  [ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.'],
  [ErrorCode.GROUP_AUTHORIZATION_FAILED, 'Group authorization failed.'],
  [ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.'],
  [ErrorCode.GROUP_ID_NOT_FOUND, 'The group id does not exist.'],
]);

export function kafkaErrorMessage(errorCode: number): string | null {
  return KAFKA_MESSAGES.get(errorCode) ?? null;
}

/** Initialize, Write and Delete answer a partition with its error alone. */
interface ErrorOnlyResponse {
  results: { topicId: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[];
}

function errorOnly(topicId: string, partition: number, errorCode: number, errorMessage: string | null): ErrorOnlyResponse {
  return { results: [{ topicId, partitions: [{ partition, errorCode, errorMessage }] }] };
}

export function initializeResponse(topicId: string, partition: number, errorCode: number = ErrorCode.NONE, errorMessage: string | null = null): InitializeShareGroupStateResponseData {
  return errorOnly(topicId, partition, errorCode, errorMessage);
}

export function writeResponse(topicId: string, partition: number, errorCode: number = ErrorCode.NONE, errorMessage: string | null = null): WriteShareGroupStateResponseData {
  return errorOnly(topicId, partition, errorCode, errorMessage);
}

export function deleteResponse(topicId: string, partition: number, errorCode: number = ErrorCode.NONE, errorMessage: string | null = null): DeleteShareGroupStateResponseData {
  return errorOnly(topicId, partition, errorCode, errorMessage);
}

/** ReadShareGroupStateResponse.toResponseData. */
export function readResponse(topicId: string, partition: number, startOffset: bigint, stateEpoch: number, batches: readonly StateBatch[]): ReadShareGroupStateResponseData {
  const stateBatches = batches.map((b) => ({ firstOffset: b.firstOffset, lastOffset: b.lastOffset, deliveryState: b.deliveryState, deliveryCount: b.deliveryCount }));
  return { results: [{ topicId, partitions: [{ partition, errorCode: ErrorCode.NONE, errorMessage: null, stateEpoch, startOffset, stateBatches }] }] };
}

/** ReadShareGroupStateResponse.toErrorResponseData: the other fields at their defaults. */
export function readErrorResponse(topicId: string, partition: number, errorCode: number, errorMessage: string | null): ReadShareGroupStateResponseData {
  return { results: [{ topicId, partitions: [{ partition, errorCode, errorMessage, stateEpoch: 0, startOffset: 0n, stateBatches: [] }] }] };
}

/** ReadShareGroupStateSummaryResponse.toResponseData. */
export function summaryResponse(
  topicId: string, partition: number, startOffset: bigint, deliveryCompleteCount: number, leaderEpoch: number, stateEpoch: number,
): ReadShareGroupStateSummaryResponseData {
  return { results: [{ topicId, partitions: [{ partition, errorCode: ErrorCode.NONE, errorMessage: null, stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount }] }] };
}

/** ReadShareGroupStateSummaryResponse.toErrorResponseData. */
export function summaryErrorResponse(topicId: string, partition: number, errorCode: number, errorMessage: string | null): ReadShareGroupStateSummaryResponseData {
  return { results: [{ topicId, partitions: [{ partition, errorCode, errorMessage, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: -1 }] }] };
}

type AnyRequest =
  | InitializeShareGroupStateRequestData | WriteShareGroupStateRequestData | DeleteShareGroupStateRequestData
  | ReadShareGroupStateRequestData | ReadShareGroupStateSummaryRequestData;

/**
 * Every partition of the request answered `errorCode` with Kafka's message for it (the
 * requests' toGlobalErrorResponse: CLUSTER_AUTHORIZATION_FAILED from the broker, or a
 * coordinator that is not available).
 */
export function globalErrorResults(request: AnyRequest, errorCode: number, errorMessage = kafkaErrorMessage(errorCode)): { topicId: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[] {
  return request.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode, errorMessage })) }));
}

export function initializeGlobalError(request: InitializeShareGroupStateRequestData, errorCode: number): InitializeShareGroupStateResponseData {
  return { results: globalErrorResults(request, errorCode) };
}

export function writeGlobalError(request: WriteShareGroupStateRequestData, errorCode: number): WriteShareGroupStateResponseData {
  return { results: globalErrorResults(request, errorCode) };
}

export function deleteGlobalError(request: DeleteShareGroupStateRequestData, errorCode: number): DeleteShareGroupStateResponseData {
  return { results: globalErrorResults(request, errorCode) };
}

export function readGlobalError(request: ReadShareGroupStateRequestData, errorCode: number): ReadShareGroupStateResponseData {
  return {
    results: globalErrorResults(request, errorCode).map((t) => ({
      topicId: t.topicId, partitions: t.partitions.map((p) => ({ ...p, stateEpoch: 0, startOffset: 0n, stateBatches: [] })),
    })),
  };
}

export function summaryGlobalError(request: ReadShareGroupStateSummaryRequestData, errorCode: number): ReadShareGroupStateSummaryResponseData {
  return {
    results: globalErrorResults(request, errorCode).map((t) => ({
      topicId: t.topicId, partitions: t.partitions.map((p) => ({ ...p, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: -1 })),
    })),
  };
}
