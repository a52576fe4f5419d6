/**
 * What the classic group APIs, offsets and admin requests do to a consumer group, as Kafka
 * 4.4 answers them: SyncGroup and Heartbeat of its classic-protocol members (their JoinGroup
 * is classic-join.ts), LeaveGroup, deletion, and the member checks of offset commits and
 * fetches.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import type { MemberIdentity, MemberResponse } from '../../protocol/messages/leave-group.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import { fenceMembers, scheduleJoinTimeoutIfAbsent, scheduleMemberSessionTimeout } from './fence.js';
import type { ConsumerGroup } from './group.js';
import { assignmentEpochOf, MemberState, usesClassicProtocol, type ConsumerGroupMember } from './member.js';
import { CONSUMER_PROTOCOL_TYPE } from '../../protocol/consumer-protocol.js';
import type { HeartbeatRequestData } from '../../protocol/messages/heartbeat.js';
import type { SyncGroupRequestData } from '../../protocol/messages/sync-group.js';
import { consumerSyncKey } from '../operation.js';
import { syncGroupError, syncGroupResponse } from '../classic/responses.js';
import type { RequestContext } from '../types.js';
import { hasPartition } from './assignment.js';
import { classicAssignment } from './migration.js';
import {
  currentAssignmentTombstone,
  epochTombstone,
  memberSubscriptionTombstone,
  regexTombstone,
  subscriptionMetadataTombstone,
  targetAssignmentEpochTombstone,
  targetAssignmentTombstone,
} from './records.js';
import { writeConsumerGroupRecords } from './write.js';

/** Kafka's ConsumerGroup.createGroupTombstoneRecords, in its order. */
export function consumerGroupTombstones(group: ConsumerGroup): ConsumerGroupRecord[] {
  const ids = [...group.members.keys()];
  return [
    ...ids.map((id) => currentAssignmentTombstone(group.groupId, id)),
    ...ids.map((id) => targetAssignmentTombstone(group.groupId, id)),
    targetAssignmentEpochTombstone(group.groupId),
    ...ids.map((id) => memberSubscriptionTombstone(group.groupId, id)),
    ...[...group.resolvedRegularExpressions.keys()].map((regex) => regexTombstone(group.groupId, regex)),
    subscriptionMetadataTombstone(group.groupId),
    epochTombstone(group.groupId),
  ];
}

/** Deletes the group's records (DeleteGroups, expiration, a JoinGroup taking an Empty group over). */
export function deleteConsumerGroup(s: CoordinatorState, op: Operation, group: ConsumerGroup): void {
  writeConsumerGroupRecords(s, op, consumerGroupTombstones(group), null);
}

/**
 * Kafka's validateConsumerGroupMember then throwIfMemberDoesNotUseClassicProtocol and
 * throwIfGenerationIdUnmatched: the classic member a SyncGroup or Heartbeat names, or the
 * error to answer (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION).
 */
function classicMember(group: ConsumerGroup, memberId: string, instanceId: string | null | undefined, generationId: number): ConsumerGroupMember | number {
  let member: ConsumerGroupMember | undefined;
  if (instanceId === null || instanceId === undefined) {
    member = group.member(memberId);
  } else {
    member = group.staticMember(instanceId);
    if (member !== undefined && member.memberId !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
  }
  if (member === undefined || !usesClassicProtocol(member)) return ErrorCode.UNKNOWN_MEMBER_ID;
  if (member.memberEpoch !== generationId) return ErrorCode.ILLEGAL_GENERATION;
  return member;
}

/** Kafka's ConsumerGroup.waitingOnUnreleasedPartition: a target partition another member still holds. */
function waitingOnUnreleasedPartition(group: ConsumerGroup, member: ConsumerGroupMember): boolean {
  if (member.state !== MemberState.UNRELEASED_PARTITIONS) return false;
  for (const [topicId, partitions] of group.targetAssignmentOf(member.memberId)) {
    for (const p of partitions) {
      if (!hasPartition(member.assignedPartitions, topicId, p) && group.currentPartitionEpoch(topicId, p) !== -1) return true;
    }
  }
  return false;
}

/**
 * Heartbeat of a classic member of a consumer group (classicGroupHeartbeatToConsumerGroup):
 * it keeps the member's session, and tells it to rejoin (REBALANCE_IN_PROGRESS, within its
 * rebalance timeout) when a newer target exists, it owes a revocation, or the partitions it
 * waited for are free.
 */
export function classicHeartbeatToConsumerGroup(s: CoordinatorState, op: Operation, group: ConsumerGroup, req: HeartbeatRequestData): number {
  const member = classicMember(group, req.memberId, req.groupInstanceId, req.generationId);
  if (typeof member === 'number') return member;
  scheduleMemberSessionTimeout(s, op, group.groupId, member);
  if (member.memberEpoch < group.assignmentEpoch
    || member.state === MemberState.UNREVOKED_PARTITIONS
    || (member.state === MemberState.UNRELEASED_PARTITIONS && !waitingOnUnreleasedPartition(group, member))) {
    scheduleJoinTimeoutIfAbsent(op, group.groupId, member);
    return ErrorCode.REBALANCE_IN_PROGRESS;
  }
  return ErrorCode.NONE;
}

/**
 * SyncGroup of a classic member of a consumer group (classicGroupSyncToConsumerGroup): the
 * member's current assignment, as a "consumer" protocol assignment, unless a newer target
 * means it must rejoin first.
 */
export function classicSyncToConsumerGroup(s: CoordinatorState, op: Operation, ctx: RequestContext, group: ConsumerGroup, req: SyncGroupRequestData): void {
  const fail = (errorCode: number): void => op.reply(ctx.requestId, syncGroupError(ctx.apiVersion, errorCode));
  const member = classicMember(group, req.memberId, req.groupInstanceId, req.generationId);
  if (typeof member === 'number') return fail(member);
  const protocolName = member.classicMemberMetadata!.supportedProtocols[0]!;
  const protocolType = req.protocolType ?? null;
  const requestedName = req.protocolName ?? null;
  if ((protocolType !== null && protocolType !== CONSUMER_PROTOCOL_TYPE) || (requestedName !== null && requestedName !== protocolName.name)) {
    return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  }
  if (group.assignmentEpoch > member.memberEpoch && member.state !== MemberState.UNREVOKED_PARTITIONS) {
    scheduleJoinTimeoutIfAbsent(op, group.groupId, member);
    return fail(ErrorCode.REBALANCE_IN_PROGRESS);
  }
  op.cancel(consumerSyncKey(group.groupId, member.memberId));
  scheduleMemberSessionTimeout(s, op, group.groupId, member);
  op.reply(ctx.requestId, syncGroupResponse(ctx.apiVersion, {
    errorCode: ErrorCode.NONE,
    protocolType,
    protocolName: requestedName,
    assignment: classicAssignment(s, member.assignedPartitions, protocolName.metadata),
  }));
}

/**
 * LeaveGroup on a consumer group (Kafka's classicGroupLeaveToConsumerGroup): members named
 * by member id, or by instance id (an admin removing static members), are fenced together,
 * whatever protocol they use.
 */
export function leaveConsumerGroup(s: CoordinatorState, op: Operation, group: ConsumerGroup, identities: readonly MemberIdentity[]): MemberResponse[] {
  const leaving = new Map<string, ConsumerGroupMember>();
  const responses = identities.map((identity): MemberResponse => {
    const response = { memberId: identity.memberId, groupInstanceId: identity.groupInstanceId, errorCode: ErrorCode.NONE };
    let member: ConsumerGroupMember | undefined;
    if (identity.groupInstanceId === null) {
      member = group.member(identity.memberId);
    } else {
      member = group.staticMember(identity.groupInstanceId);
      if (member !== undefined && identity.memberId !== '' && member.memberId !== identity.memberId) {
        return { ...response, errorCode: ErrorCode.FENCED_INSTANCE_ID };
      }
    }
    if (member === undefined) return { ...response, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    leaving.set(member.memberId, member);
    return response;
  });
  fenceMembers(s, op, group, [...leaving.values()], 'left', identities.find((m) => (m.reason ?? null) !== null)?.reason ?? null);
  return responses;
}

/**
 * A per-partition check of a commit (Kafka's CommitPartitionValidator): the topic's id (the
 * broker resolves it; ZERO_UUID when it could not) and the partition; NONE or the error,
 * which Kafka raises for the whole request.
 */
export type CommitPartitionCheck = (topicId: string, partition: number, topicName: string) => number;

/**
 * OffsetCommit and TxnOffsetCommit to a consumer group (Kafka 4.4's
 * ConsumerGroup.validateOffsetCommit): anyone may commit to an Empty group with epoch -1
 * (admin, manual assignment), and a transactional commit without member fields is taken;
 * otherwise the member must exist, use OffsetCommit v9+ unless it uses the classic protocol,
 * and send its current epoch (its generation, for a classic member: ILLEGAL_GENERATION
 * otherwise), or an older one: then each partition is checked against the epoch the member
 * got it at (KIP-1251's assignment epochs), by the topic's id (the request's from OffsetCommit
 * v10, the broker's look-up of its name before), so that a commit racing the heartbeat that
 * moved the member to a new epoch still lands for the partitions it kept. A newer epoch than
 * the member's is refused.
 */
export function consumerOffsetCommitError(
  group: ConsumerGroup, memberId: string, groupInstanceId: string | null, memberEpoch: number, transactional: boolean, apiVersion: number,
): number | CommitPartitionCheck {
  if (memberEpoch < 0 && group.numMembers === 0) return ErrorCode.NONE;
  if (transactional && memberEpoch === -1 && memberId === '' && groupInstanceId === null) return ErrorCode.NONE;
  const member = group.member(memberId);
  if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  const classic = usesClassicProtocol(member);
  if (!transactional && !classic && apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
  if (memberEpoch === member.memberEpoch) return ErrorCode.NONE;
  const stale = classic ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH;
  if (memberEpoch > member.memberEpoch) return stale;
  return (topicId, partition) => {
    const assignedAt = topicId === ZERO_UUID ? undefined : assignmentEpochOf(member, topicId, partition);
    // Not the member's (any more), or assigned to it after the epoch the commit carries.
    return assignedAt === undefined || memberEpoch < assignedAt ? stale : ErrorCode.NONE;
  };
}

/** OffsetFetch v9+ with a member (ConsumerGroup.validateOffsetFetch). */
export function consumerOffsetFetchError(group: ConsumerGroup, memberId: string | null, memberEpoch: number): number {
  if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
  const member = memberId === null ? undefined : group.member(memberId);
  if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  return memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
}
