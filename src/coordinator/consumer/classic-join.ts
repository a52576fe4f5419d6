/**
 * JoinGroup of a classic-protocol member to a consumer group with members, after Kafka's
 * classicGroupJoinToConsumerGroup: the member becomes a member of the consumer group (its
 * subscription and owned partitions read from its "consumer" protocol metadata), the group
 * computes its target as for any member, and the member takes one step of reconciliation.
 * The JoinGroup is answered at once (never parked), with the member's epoch as generation
 * and no member list: the server assigns, the member's SyncGroup fetches its share.
 *
 * A classic static member replacing the group's last consumer-protocol member turns the
 * group back into a classic group (migration.ts), policy permitting.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import { decodeSubscription } from '../../protocol/consumer-protocol.js';
import type { JoinGroupRequestData } from '../../protocol/messages/join-group.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { consumerJoinKey, consumerSyncKey, type Operation } from '../operation.js';
import { joinGroupError, joinGroupResponse } from '../classic/responses.js';
import type { RequestContext } from '../types.js';
import { ConsumerGroupError, unknownMemberId } from './errors.js';
import { scheduleMemberSessionTimeout } from './fence.js';
import type { ConsumerGroup } from './group.js';
import { javaSetOrder } from './java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import { memberEquals, newMember, newMemberId, sameTopicNames, type ConsumerGroupMember } from './member.js';
import { canDowngradeWithReplacedMember, convertToClassicGroup, supportsClassicProtocols } from './migration.js';
import { memberSubscriptionRecord, replaceStaticMember } from './records.js';
import type { OwnedTopicPartitions } from './reconcile.js';
import { maybeUpdateRegularExpressions } from './regex.js';
import { maybeUpdateTargetAssignment } from './target.js';
import { maybeReconcile, updateSubscriptionMetadata } from './update.js';
import { writeConsumerGroupRecords } from './write.js';

export function classicJoinToConsumerGroup(s: CoordinatorState, op: Operation, ctx: RequestContext, req: JoinGroupRequestData, group: ConsumerGroup): void {
  try {
    s.attempt(op, () => join(s, op, ctx, req, group));
  } catch (err) {
    if (!(err instanceof ConsumerGroupError)) throw err;
    op.reply(ctx.requestId, joinGroupError(ctx.apiVersion, err.errorCode, ''));
  }
}

function join(s: CoordinatorState, op: Operation, ctx: RequestContext, req: JoinGroupRequestData, group: ConsumerGroup): void {
  const groupId = group.groupId;
  if (s.config.consumerGroupMigrationPolicy === 'disabled') {
    throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `Cannot join the consumer group ${groupId} with the classic protocol because the group migration is disabled.`);
  }
  const instanceId = req.groupInstanceId ?? null;
  const isUnknownMember = req.memberId === '';
  // Kafka's member ids for the consumer group: a plain UUID, whatever the protocol.
  const memberId = isUnknownMember ? newMemberId(s.config.generateUuid) : req.memberId;
  if (group.staticMember(instanceId) === undefined && group.numMembers >= s.config.consumerGroupMaxSize && !group.members.has(memberId)) {
    throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${s.config.consumerGroupMaxSize} members.`);
  }
  if (!supportsClassicProtocols(group, req.protocolType, new Set(req.protocols.map((p) => p.name)))) {
    throw new ConsumerGroupError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `Member ${memberId}'s protocols are not supported.`);
  }
  // KIP-394: a dynamic member without an id gets one and joins again with it.
  if (ctx.apiVersion >= 4 && isUnknownMember && instanceId === null) {
    op.reply(ctx.requestId, joinGroupError(ctx.apiVersion, ErrorCode.MEMBER_ID_REQUIRED, memberId));
    return;
  }

  const records: ConsumerGroupRecord[] = [];
  const member = instanceId === null ? group.member(memberId) ?? newMember(memberId) : staticMember(group, memberId, instanceId, isUnknownMember, records);
  const replaced = group.staticMember(instanceId);
  const downgrade = replaced !== undefined && canDowngradeWithReplacedMember(s, group, replaced);

  let subscription;
  try {
    subscription = decodeSubscription(req.protocols[0]!.metadata).subscription;
  } catch {
    throw new ConsumerGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, 'Malformed embedded consumer protocol in subscription deserialization.');
  }
  const rebalanceTimeoutMs = req.rebalanceTimeoutMs ?? -1;
  const updated: ConsumerGroupMember = {
    ...member,
    instanceId: instanceId ?? member.instanceId,
    rackId: subscription.rackId !== null && subscription.rackId !== undefined && subscription.rackId !== '' ? subscription.rackId : member.rackId,
    rebalanceTimeoutMs: rebalanceTimeoutMs !== -1 ? rebalanceTimeoutMs : member.rebalanceTimeoutMs,
    subscribedTopicNames: javaSetOrder(stringHash, subscription.topics),
    // No regex subscriptions with the classic protocol.
    subscribedTopicRegex: '',
    clientId: ctx.clientId,
    clientHost: ctx.clientHost,
    classicMemberMetadata: { sessionTimeoutMs: req.sessionTimeoutMs, supportedProtocols: req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })) },
  };
  let namesChanged = false;
  if (!memberEquals(updated, member)) {
    records.push(memberSubscriptionRecord(groupId, updated));
    namesChanged = !sameTopicNames(updated.subscribedTopicNames, member.subscribedTopicNames);
  }
  // A static member that had a regex, replaced: its regex may go.
  const bump = maybeUpdateRegularExpressions(s, op, group, member, updated, records) !== 'none' || namesChanged;
  const { groupEpoch, type, deadline } = updateSubscriptionMetadata(s, op, group, member, updated, bump, records);
  const owned = ownedPartitions(s, subscription.ownedPartitions ?? []);

  let reconciled = updated;
  if (downgrade) {
    // The group goes back to the classic protocol; a member replaced with a stale target
    // makes it rebalance, else the member takes its place with the target it had.
    const stale = group.assignmentEpoch < groupEpoch;
    if (!stale) {
      const target = { epoch: group.assignmentEpoch, assignment: group.targetAssignmentFor(updated.memberId, updated.instanceId) };
      reconciled = maybeReconcile(s, op, group, updated, target, bump, owned, records);
    }
    op.cancel(consumerJoinKey(groupId, reconciled.memberId));
    convertToClassicGroup(s, op, group, [], reconciled, stale, records);
  } else {
    const target = maybeUpdateTargetAssignment(s, group, groupEpoch, member, updated, type, records, op.nowMs);
    reconciled = maybeReconcile(s, op, group, updated, target, bump, owned, records);
    const reason = group.members.has(updated.memberId) ? `member ${updated.memberId} updated its subscription` : `member ${updated.memberId} joined`;
    writeConsumerGroupRecords(s, op, records, reason);
    const written = s.consumerGroups.get(groupId);
    if (written !== undefined && deadline !== null) written.metadataRefreshDeadline = deadline;
    // The member must now send its SyncGroup within its rebalance timeout.
    op.cancel(consumerJoinKey(groupId, reconciled.memberId));
    scheduleMemberSessionTimeout(s, op, groupId, reconciled);
    op.schedule(consumerSyncKey(groupId, reconciled.memberId), rebalanceTimeoutMs, { kind: 'consumer-sync', groupId, memberId: reconciled.memberId });
  }
  op.reply(ctx.requestId, joinGroupResponse(ctx.apiVersion, {
    errorCode: ErrorCode.NONE,
    memberId: reconciled.memberId,
    generationId: reconciled.memberEpoch,
    protocolType: 'consumer',
    protocolName: reconciled.classicMemberMetadata!.supportedProtocols[0]!.name,
  }));
}

/**
 * Kafka's getOrMaybeSubscribeStaticConsumerGroupMember for a classic member: a new instance
 * joins; a known one comes back under a new member id and takes the old member's place at
 * once, even from a consumer-protocol member (no UNRELEASED_INSTANCE_ID for the classic
 * protocol), with epoch 0 and the old member's target.
 */
function staticMember(group: ConsumerGroup, memberId: string, instanceId: string, create: boolean, records: ConsumerGroupRecord[]): ConsumerGroupMember {
  const existing = group.staticMember(instanceId);
  if (create) {
    if (existing === undefined) return group.member(memberId) ?? newMember(memberId);
    return replaceStaticMember(group, existing, memberId, records);
  }
  if (existing === undefined) throw unknownMemberId(`Instance id ${instanceId} is unknown.`);
  if (existing.memberId !== memberId) {
    throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${memberId} with instance id ${instanceId} was fenced by member ${existing.memberId}.`);
  }
  return existing;
}

/** The partitions the member says it owns (subscription v1+), topics the broker has only. */
function ownedPartitions(s: CoordinatorState, owned: readonly { topic: string; partitions: number[] }[]): OwnedTopicPartitions[] {
  const out: OwnedTopicPartitions[] = [];
  for (const t of owned) {
    const topic = s.metadata.byName(t.topic);
    if (topic !== undefined) out.push({ topicId: topic.topicId, partitions: t.partitions });
  }
  return out;
}
