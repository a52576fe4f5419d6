/**
 * Members leaving a consumer group, by request or by timeout (Kafka's
 * consumerGroupFenceMembers): the member's records are deleted, regexes only it used go,
 * the subscription metadata is computed without it and the group epoch is bumped, so the
 * remaining members get a new target assignment at their next heartbeat.
 */
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { MemberRemovalCause } from '../events.js';
import { consumerJoinKey, consumerRebalanceKey, consumerSessionKey, consumerSyncKey, type Operation } from '../operation.js';
import { canDowngradeWithFencedMembers, convertToClassicGroup } from './migration.js';
import type { ConsumerGroup } from './group.js';
import { hasRegex, LEAVE_GROUP_STATIC_MEMBER_EPOCH, type ConsumerGroupMember } from './member.js';
import { currentAssignmentRecord, epochRecord, memberTombstones, regexTombstone, subscriptionMetadataRecord, targetAssignmentEpochRecord } from './records.js';
import { computeSubscriptionMetadata, sameSubscriptionMetadata } from './subscription.js';
import { writeConsumerGroupRecords } from './write.js';
import { computeSubscribedTopicNamesWithout } from './views.js';
import { EMPTY_ASSIGNMENT } from './assignment.js';
import { consumerSessionTimeoutMs } from '../types.js';

export function fenceMembers(
  s: CoordinatorState,
  op: Operation,
  group: ConsumerGroup,
  members: readonly ConsumerGroupMember[],
  cause: MemberRemovalCause,
  clientReason: string | null = null,
): void {
  if (members.length === 0) return;
  for (const m of members) {
    op.event({ type: 'member-removed', groupType: 'consumer', groupId: group.groupId, memberId: m.memberId, groupInstanceId: m.instanceId, cause, clientReason });
  }
  // The last consumer-protocol members leaving: the group goes back to the classic protocol
  // (policy permitting), and its remaining members rebalance there.
  if (canDowngradeWithFencedMembers(s, group, members)) {
    convertToClassicGroup(s, op, group, members, null, true);
    return;
  }
  const records: ConsumerGroupRecord[] = [];
  for (const m of members) records.push(...memberTombstones(group.groupId, m.memberId));

  // A regex whose every subscriber leaves goes with them.
  const counts = new Map<string, number>();
  for (const m of members) if (hasRegex(m.subscribedTopicRegex)) counts.set(m.subscribedTopicRegex, (counts.get(m.subscribedTopicRegex) ?? 0) + 1);
  const deletedRegexes = new Set([...counts].filter(([regex, n]) => group.numSubscribedMembers(regex) === n).map(([regex]) => regex));
  for (const regex of deletedRegexes) records.push(regexTombstone(group.groupId, regex));

  const metadata = computeSubscriptionMetadata(computeSubscribedTopicNamesWithout(group, members, deletedRegexes), s.metadata);
  if (!sameSubscriptionMetadata(metadata, group.subscriptionMetadata)) records.push(subscriptionMetadataRecord(group.groupId, metadata));
  records.push(epochRecord(group.groupId, group.groupEpoch + 1));
  // The last members leaving: an empty group's assignment epoch catches up with its group
  // epoch (KAFKA-20442, Kafka 4.4), with no assignment time.
  if (members.length === group.numMembers) records.push(targetAssignmentEpochRecord(group.groupId, group.groupEpoch + 1, 0));

  for (const m of members) cancelMemberTimers(op, group.groupId, m.memberId);
  const ids = members.map((m) => m.memberId).join(', ');
  writeConsumerGroupRecords(s, op, records, `removing member ${ids}: ${cause}`);
}

/**
 * A static member leaving for a while (epoch -2): it keeps its assignment and its place
 * until its session expires, so it can come back under a new member id without a
 * rebalance.
 */
export function staticMemberLeave(s: CoordinatorState, op: Operation, group: ConsumerGroup, member: ConsumerGroupMember): void {
  const leaving = { ...member, memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH, partitionsPendingRevocation: EMPTY_ASSIGNMENT };
  writeConsumerGroupRecords(s, op, [currentAssignmentRecord(group.groupId, leaving)], `static member ${member.memberId} left temporarily`);
}

export function scheduleSessionTimeout(s: CoordinatorState, op: Operation, groupId: string, memberId: string): void {
  op.schedule(consumerSessionKey(groupId, memberId), consumerSessionTimeoutMs(s.config, groupId), { kind: 'consumer-session', groupId, memberId });
}

export function scheduleRebalanceTimeout(op: Operation, groupId: string, member: ConsumerGroupMember): void {
  op.schedule(consumerRebalanceKey(groupId, member.memberId), member.rebalanceTimeoutMs, {
    kind: 'consumer-rebalance',
    groupId,
    memberId: member.memberId,
    memberEpoch: member.memberEpoch,
  });
}

function cancelMemberTimers(op: Operation, groupId: string, memberId: string): void {
  op.cancel(consumerSessionKey(groupId, memberId));
  op.cancel(consumerRebalanceKey(groupId, memberId));
  op.cancel(consumerJoinKey(groupId, memberId));
  op.cancel(consumerSyncKey(groupId, memberId));
}

/** A consumer group member's session, or a classic member's (its JoinGroup's session timeout). */
export function scheduleMemberSessionTimeout(s: CoordinatorState, op: Operation, groupId: string, member: ConsumerGroupMember): void {
  const timeoutMs = member.classicMemberMetadata?.sessionTimeoutMs ?? consumerSessionTimeoutMs(s.config, groupId);
  op.schedule(consumerSessionKey(groupId, member.memberId), timeoutMs, { kind: 'consumer-session', groupId, memberId: member.memberId });
}

/** A classic member told to rejoin must do so within its rebalance timeout (Kafka's scheduleIfAbsent). */
export function scheduleJoinTimeoutIfAbsent(op: Operation, groupId: string, member: ConsumerGroupMember): void {
  op.scheduleIfAbsent(consumerJoinKey(groupId, member.memberId), member.rebalanceTimeoutMs, { kind: 'consumer-join', groupId, memberId: member.memberId });
}

/** The member's session expired: fenced, if it is still there. */
export function expireSession(s: CoordinatorState, op: Operation, groupId: string, memberId: string): void {
  const group = s.consumerGroups.get(groupId);
  const member = group?.member(memberId);
  if (group !== undefined && member !== undefined) fenceMembers(s, op, group, [member], 'session-timeout');
}

/** The member did not revoke in time: fenced, unless it has moved on from that epoch. */
export function expireRebalance(s: CoordinatorState, op: Operation, groupId: string, memberId: string, memberEpoch: number): void {
  const group = s.consumerGroups.get(groupId);
  const member = group?.member(memberId);
  if (group !== undefined && member !== undefined && member.memberEpoch === memberEpoch) fenceMembers(s, op, group, [member], 'rebalance-timeout');
}
