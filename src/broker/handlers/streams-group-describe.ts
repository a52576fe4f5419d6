/**
 * StreamsGroupDescribe (KIP-1071): epochs, topology, members and their tasks of streams
 * groups, in request order. As Kafka 4.4's KafkaApis.handleStreamsGroupDescribe:
 * UNSUPPORTED_VERSION unless group.coordinator.rebalance.protocols has `streams`; DESCRIBE on
 * each group (else GROUP_AUTHORIZATION_FAILED, listed first); with an authorizer, a group
 * whose topology names a topic (source, repartition or changelog) the client may not DESCRIBE
 * is answered TOPIC_AUTHORIZATION_FAILED instead.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { StreamsGroupDescribeRequestData, StreamsGroupDescribeResponseData } from '../../protocol/messages/streams-group-describe.js';
import { OPERATIONS_NOT_REQUESTED, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizedOperations } from '../authorization.js';

type DescribedGroup = StreamsGroupDescribeResponseData['groups'][number];

function notDescribed(groupId: string, errorCode: number, errorMessage: string | null = null): DescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, topology: null, members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED };
}

function errorResponse(request: StreamsGroupDescribeRequestData, errorCode: number): StreamsGroupDescribeResponseData {
  return { throttleTimeMs: 0, groups: request.groupIds.map((groupId) => notDescribed(groupId, errorCode)) };
}

export const streamsGroupDescribeHandler = defineHandler<StreamsGroupDescribeRequestData, StreamsGroupDescribeResponseData>({
  api: Api.StreamsGroupDescribe,
  authorization: authorizes({ GROUP: ['DESCRIBE'], TOPIC: ['DESCRIBE'] }),
  minVersion: Api.StreamsGroupDescribe.request.lowestVersion,
  maxVersion: Api.StreamsGroupDescribe.request.highestVersion,
  handle(ctx, request) {
    if (!ctx.broker.config.groupCoordinatorRebalanceProtocols.includes('streams')) return errorResponse(request, ErrorCode.UNSUPPORTED_VERSION);
    const refused: DescribedGroup[] = [];
    const allowed: string[] = [];
    for (const groupId of request.groupIds) {
      if (authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) allowed.push(groupId);
      else refused.push(notDescribed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED));
    }
    const withOperations = request.includeAuthorizedOperations && ctx.broker.acls !== null;
    const forCoordinator = { ...request, groupIds: allowed };
    return ctx.broker.groups
      .submit<StreamsGroupDescribeResponseData>(ctx, (c, cctx) => c.streamsGroupDescribe(cctx, forCoordinator), (errorCode) => errorResponse(forCoordinator, errorCode))
      .then((answer) => {
        if (withOperations) {
          for (const g of answer.groups) if (g.errorCode === ErrorCode.NONE) g.authorizedOperations = authorizedOperations(ctx, ResourceType.GROUP, g.groupId);
        }
        const groups = [...refused, ...answer.groups];
        return { ...answer, groups: ctx.broker.acls === null ? groups : groups.map((g) => hideUndescribableTopics(ctx, g)) };
      });
  },
});

function hideUndescribableTopics(ctx: Parameters<typeof authorize>[0], group: DescribedGroup): DescribedGroup {
  const topics = new Set<string>();
  for (const s of group.topology?.subtopologies ?? []) {
    for (const t of s.sourceTopics) topics.add(t);
    for (const t of s.repartitionSinkTopics) topics.add(t);
    for (const t of s.repartitionSourceTopics) topics.add(t.name);
    for (const t of s.stateChangelogTopics) topics.add(t.name);
  }
  for (const topic of topics) {
    if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic)) {
      return notDescribed(group.groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'The described group uses topics that the client is not authorized to describe.');
    }
  }
  return group;
}
