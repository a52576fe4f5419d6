/**
 * ConsumerGroupDescribe (KIP-848): epochs, assignor, members and assignments of consumer
 * groups, in request order. UNSUPPORTED_VERSION for every group when the consumer protocol
 * is disabled, as Kafka's KafkaApis. With an authorizer: DESCRIBE on each group (else
 * GROUP_AUTHORIZATION_FAILED, listed first as Kafka does) and on every topic its members are
 * assigned (else TOPIC_AUTHORIZATION_FAILED for the group).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupDescribeRequestData, ConsumerGroupDescribeResponseData } from '../../protocol/messages/consumer-group-describe.js';
import { OPERATIONS_NOT_REQUESTED, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizedOperations } from '../authorization.js';

function errorResponse(request: ConsumerGroupDescribeRequestData, errorCode: number): ConsumerGroupDescribeResponseData {
  return {
    throttleTimeMs: 0,
    groups: request.groupIds.map((groupId) => ({
      errorCode, errorMessage: null, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED,
    })),
  };
}

export const consumerGroupDescribeHandler = defineHandler<ConsumerGroupDescribeRequestData, ConsumerGroupDescribeResponseData>({
  api: Api.ConsumerGroupDescribe,
  authorization: authorizes({ GROUP: ['DESCRIBE'], TOPIC: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.ConsumerGroupDescribe.request.highestVersion,
  handle(ctx, request) {
    if (!ctx.broker.config.groupCoordinatorRebalanceProtocols.includes('consumer')) return errorResponse(request, ErrorCode.UNSUPPORTED_VERSION);
    const refused: ConsumerGroupDescribeResponseData['groups'] = [];
    const allowed: string[] = [];
    for (const groupId of request.groupIds) {
      if (authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) allowed.push(groupId);
      else refused.push(...errorResponse({ ...request, groupIds: [groupId] }, ErrorCode.GROUP_AUTHORIZATION_FAILED).groups);
    }
    const withOperations = request.includeAuthorizedOperations && ctx.broker.acls !== null;
    const forCoordinator = { ...request, groupIds: allowed };
    return ctx.broker.groups
      .submit<ConsumerGroupDescribeResponseData>(ctx, (c, cctx) => c.consumerGroupDescribe(cctx, forCoordinator), (errorCode) => errorResponse(forCoordinator, errorCode))
      .then((answer) => {
        if (withOperations) {
          for (const g of answer.groups) if (g.errorCode === ErrorCode.NONE) g.authorizedOperations = authorizedOperations(ctx, ResourceType.GROUP, g.groupId);
        }
        // As Kafka's KafkaApis: the refused groups first, then the coordinator's answers.
        const groups = [...refused, ...answer.groups];
        return { ...answer, groups: ctx.broker.acls === null ? groups : groups.map((g) => hideUndescribableTopics(ctx, g)) };
      });
  },
});

type DescribedGroup = ConsumerGroupDescribeResponseData['groups'][number];

/**
 * Kafka 4's KafkaApis: a client may not learn of topics it may not DESCRIBE, so a group whose
 * members' current or target assignments name such a topic is answered with
 * TOPIC_AUTHORIZATION_FAILED and no members instead.
 */
function hideUndescribableTopics(ctx: Parameters<typeof authorize>[0], group: DescribedGroup): DescribedGroup {
  const topics = new Set<string>();
  for (const m of group.members) {
    for (const tp of m.assignment.topicPartitions) topics.add(tp.topicName);
    for (const tp of m.targetAssignment.topicPartitions) topics.add(tp.topicName);
  }
  for (const topic of topics) {
    if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic)) {
      return {
        ...errorResponse({ groupIds: [group.groupId], includeAuthorizedOperations: false }, ErrorCode.TOPIC_AUTHORIZATION_FAILED).groups[0]!,
        errorMessage: 'The group has described topic(s) that the client is not authorized to describe.',
      };
    }
  }
  return group;
}
