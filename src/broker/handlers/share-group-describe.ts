/**
 * ShareGroupDescribe (KIP-932): epochs, assignor, members and assignments of share groups, in
 * request order. With an authorizer, as Kafka 4.4's KafkaApis: DESCRIBE on each group (else
 * GROUP_AUTHORIZATION_FAILED, listed first) and on every topic its members are assigned (else
 * TOPIC_AUTHORIZATION_FAILED for the group).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ShareGroupDescribeRequestData, ShareGroupDescribeResponseData } from '../../protocol/messages/share-group-describe.js';
import { OPERATIONS_NOT_REQUESTED, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizedOperations } from '../authorization.js';

type DescribedGroup = ShareGroupDescribeResponseData['groups'][number];

function notDescribed(groupId: string, errorCode: number, errorMessage: string | null = null): DescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED };
}

function errorResponse(request: ShareGroupDescribeRequestData, errorCode: number): ShareGroupDescribeResponseData {
  return { throttleTimeMs: 0, groups: request.groupIds.map((groupId) => notDescribed(groupId, errorCode)) };
}

export const shareGroupDescribeHandler = defineHandler<ShareGroupDescribeRequestData, ShareGroupDescribeResponseData>({
  api: Api.ShareGroupDescribe,
  authorization: authorizes({ GROUP: ['DESCRIBE'], TOPIC: ['DESCRIBE'] }),
  minVersion: Api.ShareGroupDescribe.request.lowestVersion,
  maxVersion: Api.ShareGroupDescribe.request.highestVersion,
  handle(ctx, request) {
    const refused: DescribedGroup[] = [];
    const allowed: string[] = [];
    for (const groupId of request.groupIds) {
      if (authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) allowed.push(groupId);
      else refused.push(notDescribed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED));
    }
    const withOperations = request.includeAuthorizedOperations && ctx.broker.acls !== null;
    const forCoordinator = { ...request, groupIds: allowed };
    return ctx.broker.groups
      .submit<ShareGroupDescribeResponseData>(ctx, (c, cctx) => c.shareGroupDescribe(cctx, forCoordinator), (errorCode) => errorResponse(forCoordinator, errorCode))
      .then((answer) => {
        if (withOperations) {
          for (const g of answer.groups) if (g.errorCode === ErrorCode.NONE) g.authorizedOperations = authorizedOperations(ctx, ResourceType.GROUP, g.groupId);
        }
        const groups = [...refused, ...answer.groups];
        return { ...answer, groups: ctx.broker.acls === null ? groups : groups.map((g) => hideUndescribableTopics(ctx, g)) };
      });
  },
});

/** As ConsumerGroupDescribe: a group naming a topic the client may not DESCRIBE is not described. */
function hideUndescribableTopics(ctx: Parameters<typeof authorize>[0], group: DescribedGroup): DescribedGroup {
  const topics = new Set<string>();
  for (const m of group.members) for (const tp of m.assignment.topicPartitions) topics.add(tp.topicName);
  for (const topic of topics) {
    if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic)) {
      return notDescribed(group.groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'The group has described topic(s) that the client is not authorized to describe.');
    }
  }
  return group;
}
