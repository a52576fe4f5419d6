/**
 * What the classic group APIs, offsets and admin requests do to a consumer group, as Kafka
 * 4.x answers them. Kafka also lets classic-protocol members join a consumer group
 * (JoinGroup/SyncGroup/Heartbeat for them): Brook does not yet (see README.md), so no member
 * of a consumer group here uses the classic protocol, and the classic APIs find none.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import type { MemberIdentity, MemberResponse } from '../../protocol/messages/leave-group.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import { fenceMembers } from './fence.js';
import type { ConsumerGroup } from './group.js';
import type { ConsumerGroupMember } from './member.js';
import {
  currentAssignmentTombstone,
  epochTombstone,
  memberSubscriptionTombstone,
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
    subscriptionMetadataTombstone(group.groupId),
    epochTombstone(group.groupId),
  ];
}

/** Deletes the group's records (DeleteGroups, expiration, a JoinGroup taking an Empty group over). */
export function deleteConsumerGroup(s: CoordinatorState, op: Operation, group: ConsumerGroup): void {
  for (const regex of [...group.resolvedRegularExpressions.keys()]) group.updateResolvedRegex(regex, null);
  writeConsumerGroupRecords(s, op, consumerGroupTombstones(group));
}

/**
 * SyncGroup and Heartbeat from a classic member (Kafka's validateConsumerGroupMember, then
 * "does not use the classic protocol"): FENCED_INSTANCE_ID when the instance id belongs to
 * another member, otherwise UNKNOWN_MEMBER_ID.
 */
export function classicMemberError(group: ConsumerGroup, memberId: string, instanceId: string | null | undefined): number {
  if (instanceId !== null && instanceId !== undefined) {
    const member = group.staticMember(instanceId);
    if (member !== undefined && member.memberId !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
  }
  return ErrorCode.UNKNOWN_MEMBER_ID;
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
  fenceMembers(s, op, group, [...leaving.values()]);
  return responses;
}

/**
 * OffsetCommit to a consumer group (Kafka's ConsumerGroup.validateOffsetCommit): anyone may
 * commit to an Empty group with epoch -1 (admin, manual assignment); otherwise the member
 * must exist, use OffsetCommit v9+, and send its current epoch.
 */
export function consumerOffsetCommitError(group: ConsumerGroup, memberId: string, memberEpoch: number, apiVersion: number): number {
  if (memberEpoch < 0 && group.numMembers === 0) return ErrorCode.NONE;
  const member = group.member(memberId);
  if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  if (apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
  return memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
}

/** OffsetFetch v9+ with a member (ConsumerGroup.validateOffsetFetch). */
export function consumerOffsetFetchError(group: ConsumerGroup, memberId: string | null, memberEpoch: number): number {
  if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
  const member = memberId === null ? undefined : group.member(memberId);
  if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  return memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
}
