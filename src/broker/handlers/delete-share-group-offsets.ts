/**
 * DeleteShareGroupOffsets (KIP-932), as Kafka 4.4's KafkaApis and GroupCoordinatorService:
 * an Empty share group's share state for whole topics goes. The group coordinator moves the
 * topics from initialized to deleting (share/offsets.ts), the share coordinator deletes their
 * state (DeleteShareGroupState), and the group coordinator takes the deleted topics off
 * deleting. A topic the group has no share state for is UNKNOWN_TOPIC_OR_PARTITION ("There
 * is no offset information to delete."); one whose deletion failed carries the error.
 *
 * Authorization: DELETE on the group (else the whole request GROUP_AUTHORIZATION_FAILED);
 * topics the client may not READ are TOPIC_AUTHORIZATION_FAILED, listed first. A group error
 * (not found, not a share group, not Empty) answers the request with it alone.
 *
 * The broker's share-partitions of the group are dropped from memory once the share
 * coordinator answered, so nothing keeps serving the deleted state.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type {
  DeleteShareGroupOffsetsRequestData, DeleteShareGroupOffsetsResponseData, DeleteShareGroupOffsetsResponseTopic,
} from '../../protocol/messages/delete-share-group-offsets.js';
import type { DeleteShareGroupOffsetsStep } from '../../coordinator/share/offsets.js';
import { kafkaErrorMessage } from '../../coordinator/share-state/responses.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';

function requestError(errorCode: number, errorMessage: string | null = kafkaErrorMessage(errorCode)): DeleteShareGroupOffsetsResponseData {
  return { throttleTimeMs: 0, errorCode, errorMessage, responses: [] };
}

function answer(responses: DeleteShareGroupOffsetsResponseTopic[]): DeleteShareGroupOffsetsResponseData {
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
}

/**
 * Kafka's deleteShareGroupOffsetsState and handleDeleteShareGroupOffsetStateResult: the share
 * coordinator deletes the state; topics it deleted entirely go off deleting (their answers
 * first), the others answer with their first partition's error.
 */
async function deleteState(ctx: RequestContext, groupId: string, step: DeleteShareGroupOffsetsStep): Promise<DeleteShareGroupOffsetsResponseData> {
  if (step.errorCode !== ErrorCode.NONE) return requestError(step.errorCode, step.errorMessage);
  const errorTopics = [...step.errorTopics];
  if (step.deleteState === null) return answer(errorTopics);
  let result;
  try {
    // Not tied to the connection: the group coordinator must learn how it ended.
    result = await ctx.broker.shareState.deleteState(step.deleteState);
  } catch {
    return requestError(ErrorCode.UNKNOWN_SERVER_ERROR);
  } finally {
    ctx.broker.shares.dropGroup(groupId);
  }
  const deleted = new Map<string, string>();
  for (const t of result.results) {
    const topicName = ctx.broker.storage.topicById(t.topicId)?.name ?? '';
    const failed = t.partitions.find((p) => p.errorCode !== ErrorCode.NONE);
    if (failed === undefined) deleted.set(t.topicId, topicName);
    else errorTopics.push({ topicName, topicId: t.topicId, errorCode: failed.errorCode, errorMessage: kafkaErrorMessage(failed.errorCode) });
  }
  if (deleted.size === 0) return answer(errorTopics);
  const done = await ctx.broker.groups.submit<DeleteShareGroupOffsetsResponseTopic[] | number>(
    ctx, (c, cctx) => c.completeDeleteShareGroupOffsets(cctx, groupId, deleted), (errorCode) => errorCode,
  );
  if (typeof done === 'number') return requestError(done);
  return answer([...done, ...errorTopics]);
}

export const deleteShareGroupOffsetsHandler = defineHandler<DeleteShareGroupOffsetsRequestData, DeleteShareGroupOffsetsResponseData>({
  api: Api.DeleteShareGroupOffsets,
  authorization: authorizes({ GROUP: ['DELETE'], TOPIC: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.DeleteShareGroupOffsets.request.highestVersion,
  async handle(ctx, request) {
    if (!authorize(ctx, AclOperation.DELETE, ResourceType.GROUP, request.groupId)) return requestError(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const refused: DeleteShareGroupOffsetsResponseTopic[] = [];
    const allowed: DeleteShareGroupOffsetsRequestData['topics'] = [];
    for (const t of request.topics) {
      if (authorize(ctx, AclOperation.READ, ResourceType.TOPIC, t.topicName)) allowed.push(t);
      else refused.push({ topicName: t.topicName, topicId: ZERO_UUID, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: kafkaErrorMessage(ErrorCode.TOPIC_AUTHORIZATION_FAILED) });
    }
    if (request.groupId === '') return requestError(ErrorCode.INVALID_GROUP_ID);
    const forCoordinator = { ...request, topics: allowed };
    const step = await ctx.broker.groups.submit<DeleteShareGroupOffsetsStep>(
      ctx, (c, cctx) => c.initiateDeleteShareGroupOffsets(cctx, forCoordinator),
      (errorCode) => ({ errorCode, errorMessage: kafkaErrorMessage(errorCode), errorTopics: [], deleteState: null }),
    );
    const response = await deleteState(ctx, request.groupId, step);
    if (response.errorCode !== ErrorCode.NONE) return response;
    return answer([...refused, ...response.responses]);
  },
});
