/**
 * ShareGroupDescribe (KIP-932, v1), after Kafka 4.4's GroupMetadataManager.shareGroupDescribe
 * and ShareGroup.asDescribedGroup: each group's state (Empty, Stable), epochs, the assignor's
 * name and each member's subscription and assignment (topics the broker no longer has are
 * left out, as Kafka does with its metadata image); and the deletion of an Empty share group.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type {
  ShareGroupDescribeRequestData,
  ShareGroupDescribeResponseData,
  ShareGroupDescribeResponseDescribedGroup,
} from '../../protocol/messages/share-group-describe.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import type { RequestContext } from '../types.js';
import type { ShareGroup } from './group.js';
import { shareGroupTombstones } from './records.js';
import { writeShareGroupRecords } from './write.js';
import { OPERATIONS_NOT_REQUESTED, notDescribed, topicPartitions } from '../consumer/describe.js';

export function describeShareGroup(s: CoordinatorState, group: ShareGroup): ShareGroupDescribeResponseDescribedGroup {
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupId: group.groupId,
    groupState: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignorName: s.config.shareGroupAssignors[0]!,
    // Kafka lists members in its hash map's order; Brook by member id (as ConsumerGroupDescribe).
    members: [...group.members.values()].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0)).map((m) => ({
      memberId: m.memberId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      assignment: { topicPartitions: topicPartitions(s, m.assignedPartitions) },
    })),
    authorizedOperations: OPERATIONS_NOT_REQUESTED,
  };
}

export function shareGroupDescribe(s: CoordinatorState, op: Operation, ctx: RequestContext, req: ShareGroupDescribeRequestData): void {
  // Kafka answers invalid ids first, then the groups of each __consumer_offsets partition
  // (Brook has one) in request order.
  const invalid: ShareGroupDescribeResponseDescribedGroup[] = [];
  const described: ShareGroupDescribeResponseDescribedGroup[] = [];
  for (const groupId of req.groupIds) {
    if (groupId === '') {
      invalid.push(notDescribed('', ErrorCode.INVALID_GROUP_ID, null));
      continue;
    }
    const group = s.shareGroups.get(groupId);
    if (group === undefined) {
      const why = s.groups.has(groupId) || s.consumerGroups.has(groupId) || s.streamsGroups.has(groupId) ? `Group ${groupId} is not a share group.` : `Group ${groupId} not found.`;
      described.push(notDescribed(groupId, ErrorCode.GROUP_ID_NOT_FOUND, why));
      continue;
    }
    const d = describeShareGroup(s, group);
    if (req.includeAuthorizedOperations) d.authorizedOperations = s.config.groupAuthorizedOperations;
    described.push(d);
  }
  op.reply(ctx.requestId, { throttleTimeMs: 0, groups: [...invalid, ...described] } satisfies ShareGroupDescribeResponseData);
}

/**
 * DeleteGroups of an Empty share group: Kafka's createGroupTombstoneRecords (the assignment
 * metadata, the share-partition metadata, then the group). As Kafka's GroupCoordinatorService,
 * the broker's DeleteGroups handler first has the share coordinator delete the group's share
 * state (offsets.ts, sharePartitionDeleteRequests).
 */
export function deleteShareGroup(s: CoordinatorState, op: Operation, group: ShareGroup): void {
  writeShareGroupRecords(s, op, shareGroupTombstones(group.groupId), null);
  op.event({ type: 'group-deleted', groupType: 'share', groupId: group.groupId, reason: 'DeleteGroups' });
}
