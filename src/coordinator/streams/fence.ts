/**
 * A member leaving a streams group, by request (epoch -1) or when its session or rebalance
 * timeout expires (Kafka's streamsGroupFenceMember): its three records are deleted and the
 * group epoch is bumped, so the others get a new target at their next heartbeat. Also the
 * session and rebalance timers, the first target assignment after the initial delay, and
 * loading.
 */
import type { StreamsGroupRecord } from '../../protocol/coordinator-records/streams-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { MemberRemovalCause } from '../events.js';
import { streamsRebalanceKey, streamsSessionKey, type Operation } from '../operation.js';
import { streamsSessionTimeoutMs } from '../types.js';
import type { StreamsGroup } from './group.js';
import { StreamsMemberState, type StreamsGroupMember } from './member.js';
import { streamsEpochRecord, streamsMemberTombstones, streamsTargetAssignmentEpochRecord } from './records.js';
import { maybeUpdateStreamsTargetAssignment } from './target.js';
import { writeStreamsGroupRecords } from './write.js';

export function fenceStreamsMember(s: CoordinatorState, op: Operation, group: StreamsGroup, member: StreamsGroupMember, cause: MemberRemovalCause): void {
  op.event({ type: 'member-removed', groupType: 'streams', groupId: group.groupId, memberId: member.memberId, groupInstanceId: member.instanceId, cause, clientReason: null });
  const records = streamsMemberTombstones(group.groupId, member.memberId);
  records.push(streamsEpochRecord(group.groupId, group.groupEpoch + 1, group.metadataHash, group.validatedTopologyEpoch, group.lastAssignmentConfigs));
  // The last member: the (empty) target is at the new epoch at once, stamped 0 so that the
  // next member's target is not held back by the assignment interval (as Kafka 4.4).
  if (group.numMembers === 1) records.push(streamsTargetAssignmentEpochRecord(group.groupId, group.groupEpoch + 1, 0));
  op.cancel(streamsSessionKey(group.groupId, member.memberId));
  op.cancel(streamsRebalanceKey(group.groupId, member.memberId));
  if (group.shutdownRequestMemberId === member.memberId) group.shutdownRequestMemberId = null;
  writeStreamsGroupRecords(s, op, records, `removing member ${member.memberId}: ${cause}`);
}

export function scheduleStreamsSessionTimeout(s: CoordinatorState, op: Operation, groupId: string, memberId: string): void {
  op.schedule(streamsSessionKey(groupId, memberId), streamsSessionTimeoutMs(s.config, groupId), { kind: 'streams-session', groupId, memberId });
}

/** Kafka's maybeReconcile timers: a member owing a revocation has its rebalance timeout to do it. */
export function updateStreamsRebalanceTimeout(op: Operation, groupId: string, before: StreamsGroupMember | undefined, after: StreamsGroupMember): void {
  const key = streamsRebalanceKey(groupId, after.memberId);
  if (after.state !== StreamsMemberState.UNREVOKED_TASKS) {
    op.cancel(key);
    return;
  }
  // Scheduled once per epoch: further heartbeats at the same epoch do not extend it.
  if (before?.state === StreamsMemberState.UNREVOKED_TASKS && before.memberEpoch === after.memberEpoch) return;
  op.schedule(key, after.rebalanceTimeoutMs, { kind: 'streams-rebalance', groupId, memberId: after.memberId, memberEpoch: after.memberEpoch });
}

export function expireStreamsSession(s: CoordinatorState, op: Operation, groupId: string, memberId: string): void {
  const group = s.streamsGroups.get(groupId);
  const member = group?.member(memberId);
  if (group !== undefined && member !== undefined) fenceStreamsMember(s, op, group, member, 'session-timeout');
}

export function expireStreamsRebalance(s: CoordinatorState, op: Operation, groupId: string, memberId: string, memberEpoch: number): void {
  const group = s.streamsGroups.get(groupId);
  const member = group?.member(memberId);
  if (group === undefined || member === undefined) return;
  if (member.memberEpoch !== memberEpoch || member.state !== StreamsMemberState.UNREVOKED_TASKS) return;
  fenceStreamsMember(s, op, group, member, 'rebalance-timeout');
}

/** The initial delay is over: the group's first target assignment, for whoever joined meanwhile. */
export function completeStreamsInitialRebalance(s: CoordinatorState, op: Operation, groupId: string): void {
  // Kafka's computeDelayedTargetAssignment: nothing for a group emptied meanwhile or without a configured topology.
  const group = s.streamsGroups.get(groupId);
  if (group === undefined || group.numMembers === 0 || group.groupEpoch <= group.assignmentEpoch || group.configuredTopology === null) return;
  const records: StreamsGroupRecord[] = [];
  maybeUpdateStreamsTargetAssignment(s, group, group.groupEpoch, group.configuredTopology, null, records, null, false, op.nowMs);
  writeStreamsGroupRecords(s, op, records, 'initial rebalance delay elapsed');
}

/** After a load: every member gets a full session, a member owing a revocation its rebalance timeout (Kafka's onLoaded). */
export function loadedStreamsGroups(s: CoordinatorState, op: Operation): void {
  for (const group of s.streamsGroups.values()) {
    for (const m of group.members.values()) {
      scheduleStreamsSessionTimeout(s, op, group.groupId, m.memberId);
      updateStreamsRebalanceTimeout(op, group.groupId, undefined, m);
    }
  }
}
