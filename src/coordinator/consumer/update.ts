/**
 * The steps a member's request takes through a consumer group, shared by
 * ConsumerGroupHeartbeat and by the classic JoinGroup of a member inside a consumer group
 * (Kafka's updateSubscriptionMetadata and maybeReconcile): the subscription metadata and
 * group epoch, then one step of the member towards its target.
 */
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { consumerRebalanceKey, type Operation } from '../operation.js';
import { scheduleRebalanceTimeout } from './fence.js';
import type { ConsumerGroup, SubscriptionType } from './group.js';
import { METADATA_REFRESH_INTERVAL_MS } from './lifecycle.js';
import { isReconciledTo, memberEquals, MemberState, type ConsumerGroupMember } from './member.js';
import { currentAssignmentRecord, epochRecord, subscriptionMetadataRecord } from './records.js';
import { reconcile, type OwnedTopicPartitions } from './reconcile.js';
import { computeSubscriptionMetadata, memberTopicIds, sameSubscriptionMetadata, subscriptionType } from './subscription.js';
import type { TargetAssignment } from './target.js';
import { computeSubscribedRegularExpressions, computeSubscribedTopicNames } from './views.js';

export interface SubscriptionUpdate {
  readonly groupEpoch: number;
  readonly type: SubscriptionType;
  /** The metadata refresh deadline to set once the records are applied; null: unchanged. */
  readonly deadline: { deadlineMs: number; epoch: number } | null;
}

/**
 * Kafka's updateSubscriptionMetadata: when the member's subscription changed (`bump`) or the
 * group's metadata is due for a refresh, the subscription metadata is computed with the
 * updated member in place; new metadata bumps the group epoch too.
 */
export function updateSubscriptionMetadata(
  s: CoordinatorState,
  op: Operation,
  group: ConsumerGroup,
  member: ConsumerGroupMember,
  updated: ConsumerGroupMember,
  bump: boolean,
  records: ConsumerGroupRecord[],
): SubscriptionUpdate {
  let groupEpoch = group.groupEpoch;
  const type = subscriptionType(group.subscribedRegularExpressions, group.subscribedTopicNames, group.numMembers);
  if (!bump && !group.hasMetadataExpired(op.nowMs)) return { groupEpoch, type, deadline: null };
  const counts = computeSubscribedTopicNames(group, member, updated);
  const newMember = !group.members.has(updated.memberId) && group.staticMemberId(updated.instanceId) === undefined ? 1 : 0;
  const newType = subscriptionType(computeSubscribedRegularExpressions(group, member, updated), counts, group.numMembers + newMember);
  const metadata = computeSubscriptionMetadata(counts, s.metadata);
  if (!sameSubscriptionMetadata(metadata, group.subscriptionMetadata)) {
    bump = true;
    records.push(subscriptionMetadataRecord(group.groupId, metadata));
  }
  if (bump) records.push(epochRecord(group.groupId, ++groupEpoch));
  return { groupEpoch, type: newType, deadline: { deadlineMs: op.nowMs + METADATA_REFRESH_INTERVAL_MS, epoch: groupEpoch } };
}

/**
 * Kafka's maybeReconcile: a member not at its target (or whose subscription changed) takes
 * one step towards it; a changed member is written, and a consumer-protocol member owing a
 * revocation gets its rebalance timeout (a classic member's is its JoinGroup's).
 */
export function maybeReconcile(
  s: CoordinatorState,
  op: Operation,
  group: ConsumerGroup,
  member: ConsumerGroupMember,
  target: TargetAssignment,
  hasSubscriptionChanged: boolean,
  owned: readonly OwnedTopicPartitions[] | null,
  records: ConsumerGroupRecord[],
): ConsumerGroupMember {
  if (!hasSubscriptionChanged && isReconciledTo(member, target.epoch)) return member;
  const reconciled = reconcile(member, {
    targetAssignmentEpoch: target.epoch,
    targetAssignment: target.assignment,
    currentPartitionEpoch: (topicId, p) => group.currentPartitionEpoch(topicId, p),
    owned,
    subscribedTopicIds: new Set(memberTopicIds(member, group.resolvedRegularExpressions, s.metadata)),
    hasSubscriptionChanged,
  });
  if (memberEquals(reconciled, member)) return member;
  records.push(currentAssignmentRecord(group.groupId, reconciled));
  if (reconciled.classicMemberMetadata === null) {
    if (reconciled.state === MemberState.UNREVOKED_PARTITIONS) scheduleRebalanceTimeout(op, group.groupId, reconciled);
    else op.cancel(consumerRebalanceKey(group.groupId, reconciled.memberId));
  }
  return reconciled;
}
