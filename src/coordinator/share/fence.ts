/**
 * A member leaving a share group, by request (epoch -1) or when its session expires
 * (Kafka's shareGroupFenceMember): its three records are deleted, the metadata hash is
 * computed without it and the group epoch is bumped, so the others get a new target at
 * their next heartbeat; the last member leaving brings the assignment epoch up to the group
 * epoch (no assignment time).
 */
import type { ShareGroupRecord } from '../../protocol/coordinator-records/share-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { MemberRemovalCause } from '../events.js';
import { shareSessionKey, type Operation } from '../operation.js';
import type { ShareGroup } from './group.js';
import type { ShareGroupMember } from './member.js';
import { shareEpochRecord, shareMemberTombstones, shareTargetAssignmentEpochRecord } from './records.js';
import { computeMetadataHash, computeSubscribedTopicNames } from './subscription.js';
import { writeShareGroupRecords } from './write.js';
import { shareSessionTimeoutMs } from '../types.js';

export function fenceShareMember(s: CoordinatorState, op: Operation, group: ShareGroup, member: ShareGroupMember, cause: MemberRemovalCause): void {
  op.event({ type: 'member-removed', groupType: 'share', groupId: group.groupId, memberId: member.memberId, groupInstanceId: null, cause, clientReason: null });
  const records: ShareGroupRecord[] = shareMemberTombstones(group.groupId, member.memberId);
  const hash = computeMetadataHash(computeSubscribedTopicNames(group, member, undefined).keys(), s.metadata);
  const epoch = group.groupEpoch + 1;
  records.push(shareEpochRecord(group.groupId, epoch, hash));
  if (group.numMembers === 1) records.push(shareTargetAssignmentEpochRecord(group.groupId, epoch, 0));
  op.cancel(shareSessionKey(group.groupId, member.memberId));
  writeShareGroupRecords(s, op, records, `removing member ${member.memberId}: ${cause}`);
}

export function scheduleShareSessionTimeout(s: CoordinatorState, op: Operation, groupId: string, memberId: string): void {
  op.schedule(shareSessionKey(groupId, memberId), shareSessionTimeoutMs(s.config, groupId), { kind: 'share-session', groupId, memberId });
}

/** The member's session expired: fenced, if it is still there. */
export function expireShareSession(s: CoordinatorState, op: Operation, groupId: string, memberId: string): void {
  const group = s.shareGroups.get(groupId);
  const member = group?.member(memberId);
  if (group !== undefined && member !== undefined) fenceShareMember(s, op, group, member, 'session-timeout');
}

/** After a load: every member gets a full session (Kafka's onLoaded). */
export function loadedShareGroups(s: CoordinatorState, op: Operation): void {
  for (const group of s.shareGroups.values()) {
    for (const memberId of group.members.keys()) scheduleShareSessionTimeout(s, op, group.groupId, memberId);
  }
}
