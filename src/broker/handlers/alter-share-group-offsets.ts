/**
 * AlterShareGroupOffsets (KIP-932), as Kafka 4.4's KafkaApis and GroupCoordinatorService: new
 * start offsets for an Empty share group's share-partitions. The group coordinator records
 * them as initializing (share/offsets.ts), the share coordinator initializes their state
 * with the new start offsets (InitializeShareGroupState, the group epoch as state epoch,
 * which drops the state's in-flight batches), and then they are recorded as initialized.
 *
 * Authorization: READ on the group (else the whole request GROUP_AUTHORIZATION_FAILED); a
 * topic the client may not READ is TOPIC_AUTHORIZATION_FAILED and one that does not exist
 * UNKNOWN_TOPIC_OR_PARTITION, for each of its partitions, listed first. A group error (not a
 * share group, not Empty) answers the request with it alone.
 *
 * The broker's share-partitions of the group are dropped from memory once the share
 * coordinator answered, so the next ShareFetch loads the new state (Kafka fences the old
 * state by its state epoch instead).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import type { AlterShareGroupOffsetsRequestData, AlterShareGroupOffsetsResponseData } from '../../protocol/messages/alter-share-group-offsets.js';
import type { AlterShareGroupOffsetsStep } from '../../coordinator/share/offsets.js';
import type { ShareGroupStateInitialization } from '../../coordinator/index.js';
import { kafkaErrorMessage } from '../../coordinator/share-state/responses.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

type ResponseTopic = AlterShareGroupOffsetsResponseData['responses'][number];

function requestError(errorCode: number, errorMessage: string | null = kafkaErrorMessage(errorCode)): AlterShareGroupOffsetsResponseData {
  return { throttleTimeMs: 0, errorCode, errorMessage, responses: [] };
}

/** Kafka's AlterShareGroupOffsetsResponse.Builder: topics by name, in the order first seen. */
function merge(into: Map<string, ResponseTopic>, topic: ResponseTopic): void {
  const existing = into.get(topic.topicName);
  if (existing === undefined) into.set(topic.topicName, { ...topic, partitions: [...topic.partitions] });
  else existing.partitions.push(...topic.partitions);
}

/**
 * Kafka's persisterInitialize: the share coordinator initializes the new start offsets; a
 * partition it refused carries its error (Kafka's buildErrorResponse), a failed call fails
 * the request. Initialized partitions are recorded as such.
 */
async function initialize(ctx: RequestContext, step: AlterShareGroupOffsetsStep & { initialize: ShareGroupStateInitialization }): Promise<AlterShareGroupOffsetsResponseData> {
  const request = step.initialize;
  const data = {
    groupId: request.groupId,
    topics: request.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => ({ partition: p.partition, stateEpoch: p.stateEpoch, startOffset: p.startOffset })) })),
  };
  let answer;
  try {
    // Not tied to the connection: the group coordinator must learn how it ended.
    answer = await ctx.broker.shareState.initializeState(data);
  } catch {
    return requestError(ErrorCode.UNKNOWN_SERVER_ERROR);
  } finally {
    ctx.broker.shares.dropGroup(request.groupId);
  }
  const failed = new Map<string, { errorCode: number; errorMessage: string | null }>();
  for (const t of answer.results) {
    for (const p of t.partitions) if (p.errorCode !== ErrorCode.NONE) failed.set(`${t.topicId}:${p.partition}`, p);
  }
  if (failed.size > 0) {
    return {
      ...step.response,
      responses: step.response.responses.map((t) => ({
        ...t,
        partitions: t.partitions.map((p) => {
          const error = p.errorCode === ErrorCode.NONE ? failed.get(`${t.topicId}:${p.partitionIndex}`) : undefined;
          return error === undefined ? p : { partitionIndex: p.partitionIndex, errorCode: error.errorCode, errorMessage: error.errorMessage };
        }),
      })),
    };
  }
  ctx.broker.groups.shareGroupStateInitialized(request, true);
  return step.response;
}

export const alterShareGroupOffsetsHandler = defineHandler<AlterShareGroupOffsetsRequestData, AlterShareGroupOffsetsResponseData>({
  api: Api.AlterShareGroupOffsets,
  authorization: authorizes({ GROUP: ['READ'], TOPIC: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.AlterShareGroupOffsets.request.highestVersion,
  async handle(ctx, request) {
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return requestError(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const out = new Map<string, ResponseTopic>();
    const allowed: AlterShareGroupOffsetsRequestData['topics'] = [];
    for (const t of request.topics) {
      const refusal = !authorize(ctx, AclOperation.READ, ResourceType.TOPIC, t.topicName) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED
        : ctx.broker.storage.topic(t.topicName) === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : null;
      if (refusal === null) {
        allowed.push(t);
        continue;
      }
      const topicId = ctx.broker.storage.topic(t.topicName)?.topicId ?? ZERO_UUID;
      merge(out, { topicName: t.topicName, topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: refusal, errorMessage: kafkaErrorMessage(refusal) })) });
    }
    if (request.groupId === '') return requestError(ErrorCode.INVALID_GROUP_ID);
    const forCoordinator = { ...request, topics: allowed };
    const step = await ctx.broker.groups.submit<AlterShareGroupOffsetsStep>(
      ctx, (c, cctx) => c.alterShareGroupOffsets(cctx, forCoordinator), (errorCode) => ({ response: requestError(errorCode), initialize: null }),
    );
    const response = step.initialize === null ? step.response : await initialize(ctx, { ...step, initialize: step.initialize });
    if (response.errorCode !== ErrorCode.NONE) return requestError(response.errorCode, response.errorMessage);
    for (const t of response.responses) merge(out, t);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses: [...out.values()] };
  },
});
