/**
 * ConsumerGroupDescribe (KIP-848), after Kafka's GroupCoordinatorService and
 * GroupMetadataManager.consumerGroupDescribe: each group's state, epochs and assignor, and
 * each member's subscription, current assignment and target assignment (topics the broker
 * no longer has are left out, as Kafka does with its metadata image).
 */
import { ErrorCode } from '../../protocol/errors.js';
import type {
  ConsumerGroupDescribeRequestData,
  ConsumerGroupDescribeResponseData,
  ConsumerGroupDescribeResponseDescribedGroup,
  ConsumerGroupDescribeResponseTopicPartitions,
} from '../../protocol/messages/consumer-group-describe.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Assignment } from './assignment.js';
import type { ConsumerGroup } from './group.js';
import { usesClassicProtocol } from './member.js';
import { preferredAssignor } from './target.js';
import type { Operation } from '../operation.js';
import type { RequestContext } from '../types.js';

/** Kafka's authorizedOperations value for "not requested". */
export const OPERATIONS_NOT_REQUESTED = -2147483648;

/**
 * A group ConsumerGroupDescribe or ShareGroupDescribe answers with an error (their described
 * groups have the same fields).
 */
export function notDescribed(groupId: string, errorCode: number, errorMessage: string | null): ConsumerGroupDescribeResponseDescribedGroup & { members: [] } {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED };
}

/** An assignment as the describe APIs list it: topic id, name and partitions (topics no longer known left out). */
export function topicPartitions(s: CoordinatorState, a: Assignment): ConsumerGroupDescribeResponseTopicPartitions[] {
  const out: ConsumerGroupDescribeResponseTopicPartitions[] = [];
  for (const [topicId, partitions] of a) {
    const topic = s.metadata.byId(topicId);
    if (topic !== undefined) out.push({ topicId, topicName: topic.name, partitions: [...partitions] });
  }
  return out;
}

function held(assigned: Assignment, revoking: Assignment): Assignment {
  if (revoking.size === 0) return assigned;
  const out = new Map<string, number[]>([...assigned].map(([t, ps]) => [t, [...ps]]));
  for (const [t, ps] of revoking) out.set(t, [...(out.get(t) ?? []), ...ps]);
  return out;
}

/** ConsumerGroupDescribe v1's MemberType values. */
const MEMBER_TYPE_CLASSIC = 0;
const MEMBER_TYPE_CONSUMER = 1;

export function describeConsumerGroup(s: CoordinatorState, group: ConsumerGroup): ConsumerGroupDescribeResponseDescribedGroup {
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupId: group.groupId,
    groupState: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignorName: preferredAssignor(s, group),
    // Kafka lists members in its hash map's order; Brook by member id, so that the answer
    // does not depend on the order members joined or were replayed in.
    members: [...group.members.values()].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0)).map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      subscribedTopicRegex: m.subscribedTopicRegex,
      // What the member holds: its assignment and what it has yet to revoke (Kafka 4.4).
      assignment: { topicPartitions: topicPartitions(s, held(m.assignedPartitions, m.partitionsPendingRevocation)) },
      targetAssignment: { topicPartitions: topicPartitions(s, group.targetAssignmentOf(m.memberId)) },
      // v1 (KIP-1099): 0 for a member that speaks the classic protocol, 1 for a consumer one.
      memberType: usesClassicProtocol(m) ? MEMBER_TYPE_CLASSIC : MEMBER_TYPE_CONSUMER,
    })),
    authorizedOperations: OPERATIONS_NOT_REQUESTED,
  };
}

export function consumerGroupDescribe(s: CoordinatorState, op: Operation, ctx: RequestContext, req: ConsumerGroupDescribeRequestData): void {
  // Kafka answers invalid ids first, then the groups of each __consumer_offsets partition
  // (Brook has one) in request order.
  const invalid: ConsumerGroupDescribeResponseDescribedGroup[] = [];
  const described: ConsumerGroupDescribeResponseDescribedGroup[] = [];
  for (const groupId of req.groupIds) {
    if (groupId === '') {
      invalid.push(notDescribed('', ErrorCode.INVALID_GROUP_ID, null));
      continue;
    }
    const group = s.consumerGroups.get(groupId);
    if (group === undefined) {
      const why = s.groups.has(groupId) || s.shareGroups.has(groupId) || s.streamsGroups.has(groupId) ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`;
      described.push(notDescribed(groupId, ErrorCode.GROUP_ID_NOT_FOUND, why));
      continue;
    }
    const d = describeConsumerGroup(s, group);
    if (req.includeAuthorizedOperations) d.authorizedOperations = s.config.groupAuthorizedOperations;
    described.push(d);
  }
  op.reply(ctx.requestId, { throttleTimeMs: 0, groups: [...invalid, ...described] } satisfies ConsumerGroupDescribeResponseData);
}
