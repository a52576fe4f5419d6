/**
 * The rebalance machinery shared by every request and timer, after Kafka's
 * `GroupMetadataManager`: prepareRebalance, the join phase's completion (with the initial
 * delay), session and pending-sync expiry, member removal and the propagation of the
 * leader's assignment.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { MemberRemovalCause } from '../events.js';
import type { ClassicGroup } from './group.js';
import { EMPTY_ASSIGNMENT, type ClassicGroupMember } from './member.js';
import { heartbeatKey, joinKey, syncKey, type Operation } from '../operation.js';
import { groupMetadataRecord } from '../records.js';
import { writeRecord } from '../replay.js';
import { joinGroupResponse, syncGroupResponse, type JoinReply, type SyncReply } from './responses.js';
import { assertNever } from '../types.js';

/** (Re)arms the member's session timer. */
export function rescheduleHeartbeat(
  op: Operation,
  group: ClassicGroup,
  member: ClassicGroupMember,
  timeoutMs: number = member.sessionTimeoutMs,
): void {
  op.schedule(heartbeatKey(group.groupId, member.memberId), timeoutMs, {
    kind: 'heartbeat',
    groupId: group.groupId,
    memberId: member.memberId,
  });
}

/** Answers the member's parked JoinGroup, if it has one. */
export function answerJoin(op: Operation, group: ClassicGroup, member: ClassicGroupMember, reply: JoinReply): boolean {
  const parked = group.takeAwaitingJoin(member);
  if (parked === null) return false;
  op.reply(parked.requestId, joinGroupResponse(parked.apiVersion, reply));
  return true;
}

/** Answers the member's parked SyncGroup, if it has one. */
export function answerSync(op: Operation, group: ClassicGroup, member: ClassicGroupMember, reply: SyncReply): boolean {
  const parked = group.takeAwaitingSync(member);
  if (parked === null) return false;
  op.reply(parked.requestId, syncGroupResponse(parked.apiVersion, reply));
  return true;
}

/**
 * Removes a member. Kafka answers a parked JoinGroup before every removal that can meet
 * one; a parked SyncGroup it would leave unanswered until the client times out and
 * retries into UNKNOWN_MEMBER_ID. Brook answers both at once, with that same error, so the
 * runtime never holds a request nobody will answer.
 */
export function removeMember(op: Operation, group: ClassicGroup, memberId: string, cause: MemberRemovalCause, clientReason: string | null = null): void {
  const member = group.member(memberId);
  if (member !== undefined) {
    answerJoin(op, group, member, { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId: '' });
    answerSync(op, group, member, { errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
    op.event({ type: 'member-removed', groupType: 'classic', groupId: group.groupId, memberId, groupInstanceId: member.groupInstanceId, cause, clientReason });
  }
  group.remove(memberId);
}

/** `reason` says why, in the words of Kafka's log line ("Preparing to rebalance group ... (reason: ...)"). */
export function maybePrepareRebalanceOrCompleteJoin(s: CoordinatorState, op: Operation, group: ClassicGroup, reason: string): void {
  if (group.canRebalance()) prepareRebalance(s, op, group, reason);
  else maybeCompleteJoinPhase(s, op, group);
}

/** A client's reason (JoinGroup v8+, LeaveGroup v5+) appended to the coordinator's, as Kafka does. */
export function withClientReason(reason: string, clientReason: string | null | undefined): string {
  return clientReason === null || clientReason === undefined || clientReason === '' ? reason : `${reason}; client reason: ${clientReason}`;
}

/**
 * Enter PreparingRebalance: members awaiting their sync are told REBALANCE_IN_PROGRESS,
 * and the join phase gets its deadline — the initial delay for a group that was Empty,
 * else the rebalance timeout (or it completes at once when everybody already rejoined).
 */
export function prepareRebalance(s: CoordinatorState, op: Operation, group: ClassicGroup, reason: string): void {
  op.event({ type: 'rebalance-started', groupType: 'classic', groupId: group.groupId, generation: group.generationId, members: group.numMembers, reason });
  if (group.is('CompletingRebalance')) resetAndPropagateAssignmentWithError(op, group, ErrorCode.REBALANCE_IN_PROGRESS);
  group.clearPendingSyncMembers();
  op.cancel(syncKey(group.groupId));

  const isInitialRebalance = group.is('Empty');
  if (isInitialRebalance) {
    const delayMs = s.config.initialRebalanceDelayMs;
    const remainingMs = Math.max(group.rebalanceTimeoutMs() - delayMs, 0);
    op.schedule(joinKey(group.groupId), delayMs, { kind: 'initial-rebalance', groupId: group.groupId, delayMs, remainingMs });
  }
  group.transitionTo('PreparingRebalance', op.nowMs);
  if (!isInitialRebalance) maybeCompleteJoinElseSchedule(s, op, group);
}

function maybeCompleteJoinElseSchedule(s: CoordinatorState, op: Operation, group: ClassicGroup): void {
  if (group.hasAllMembersJoined()) completeClassicGroupJoin(s, op, group);
  else op.schedule(joinKey(group.groupId), group.rebalanceTimeoutMs(), { kind: 'join', groupId: group.groupId });
}

/** Completes the join phase early once everybody rejoined — but never during the initial delay. */
export function maybeCompleteJoinPhase(s: CoordinatorState, op: Operation, group: ClassicGroup): void {
  if (!group.is('PreparingRebalance')) return;
  if (group.previousState === 'Empty') return;
  if (!group.hasAllMembersJoined()) return;
  completeClassicGroupJoin(s, op, group);
}

/**
 * The initial delay elapsed. If members kept joining during it, wait another delay
 * (bounded by what is left of the rebalance timeout); otherwise complete the join phase.
 */
export function tryCompleteInitialRebalanceElseSchedule(
  s: CoordinatorState,
  op: Operation,
  groupId: string,
  delayMs: number,
  remainingMs: number,
): void {
  const group = s.groups.get(groupId);
  if (group === undefined || !group.is('PreparingRebalance')) return;
  if (group.newMemberAdded && remainingMs !== 0) {
    group.newMemberAdded = false;
    const newDelayMs = Math.min(s.config.initialRebalanceDelayMs, remainingMs);
    const newRemainingMs = Math.max(remainingMs - delayMs, 0);
    op.schedule(joinKey(groupId), newDelayMs, {
      kind: 'initial-rebalance',
      groupId,
      delayMs: newDelayMs,
      remainingMs: newRemainingMs,
    });
  } else {
    completeClassicGroupJoin(s, op, group);
  }
}

/**
 * End of the join phase: dynamic members that did not rejoin are removed (static ones
 * keep their place), the generation is bumped and a protocol chosen, every parked
 * JoinGroup is answered — with the member list for the leader only — and the members
 * must now sync within the rebalance timeout. A group left with nobody becomes Empty,
 * which is persisted.
 */
export function completeClassicGroupJoin(s: CoordinatorState, op: Operation, group: ClassicGroup): void {
  op.cancel(joinKey(group.groupId));
  for (const m of group.notYetRejoinedMembers()) {
    if (m.isStaticMember) continue;
    removeMember(op, group, m.memberId, 'rebalance-timeout');
    op.cancel(heartbeatKey(group.groupId, m.memberId));
  }

  if (group.is('Dead')) return;
  if (!group.maybeElectNewJoinedLeader() && group.numMembers > 0) {
    // Only static members that did not rejoin are left: wait again; their sessions will
    // expire if they are really gone.
    op.schedule(joinKey(group.groupId), group.rebalanceTimeoutMs(), { kind: 'join', groupId: group.groupId });
    return;
  }

  group.initNextGeneration(op.nowMs);
  if (group.is('Empty')) {
    writeRecord(s, op, groupMetadataRecord(group, new Map()));
    op.event({ type: 'rebalance-completed', groupType: 'classic', groupId: group.groupId, generation: group.generationId, members: 0, state: 'Empty' });
    return;
  }
  op.event({ type: 'join-completed', groupType: 'classic', groupId: group.groupId, generation: group.generationId, members: group.numMembers });
  for (const member of group.members.values()) {
    answerJoin(op, group, member, {
      errorCode: ErrorCode.NONE,
      memberId: member.memberId,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leader: group.leaderId,
      skipAssignment: false,
      members: group.isLeader(member.memberId) ? group.currentMembersForLeader() : [],
    });
    rescheduleHeartbeat(op, group, member);
    group.joinCompleted(member);
    group.addPendingSyncMember(member.memberId);
  }
  op.schedule(syncKey(group.groupId), group.rebalanceTimeoutMs(), {
    kind: 'sync',
    groupId: group.groupId,
    generationId: group.generationId,
  });
}

/** A session timer fired. */
export function expireHeartbeat(s: CoordinatorState, op: Operation, groupId: string, memberId: string): void {
  const group = s.groups.get(groupId);
  if (group === undefined || group.is('Dead')) return;
  if (group.isPendingMember(memberId)) {
    // A MEMBER_ID_REQUIRED id that was never used.
    group.remove(memberId);
    if (group.is('PreparingRebalance') && group.hasAllMembersJoined()) completeClassicGroupJoin(s, op, group);
    return;
  }
  const member = group.member(memberId);
  if (member === undefined || member.hasSatisfiedHeartbeat()) return;
  removeMemberAndUpdateGroup(s, op, group, member);
}

/** Removes a member whose session expired and moves the group on (rebalance, or finish the join phase). */
function removeMemberAndUpdateGroup(s: CoordinatorState, op: Operation, group: ClassicGroup, member: ClassicGroupMember): void {
  // A new member may time out while its JoinGroup is parked: answer it so the client retries.
  answerJoin(op, group, member, { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId: '' });
  removeMember(op, group, member.memberId, 'session-timeout');
  switch (group.state) {
    case 'Stable':
    case 'CompletingRebalance':
      maybePrepareRebalanceOrCompleteJoin(s, op, group, `removing member ${member.memberId} on heartbeat expiration`);
      break;
    case 'PreparingRebalance':
      if (group.hasAllMembersJoined()) completeClassicGroupJoin(s, op, group);
      break;
    case 'Empty':
    case 'Dead':
      break;
    default:
      assertNever(group.state, 'group state');
  }
}

/** The sync deadline of a generation passed: members that never synced are removed. */
export function expirePendingSync(s: CoordinatorState, op: Operation, groupId: string, generationId: number): void {
  const group = s.groups.get(groupId);
  if (group === undefined || group.generationId !== generationId) return;
  switch (group.state) {
    case 'Dead':
    case 'Empty':
    case 'PreparingRebalance':
      return;
    case 'CompletingRebalance':
    case 'Stable': {
      if (group.pendingSyncMembers.size === 0) return;
      const pending = [...group.pendingSyncMembers];
      for (const memberId of pending) {
        removeMember(op, group, memberId, 'sync-timeout');
        op.cancel(heartbeatKey(groupId, memberId));
      }
      prepareRebalance(s, op, group, `removing members ${pending.join(', ')} on pending sync request expiration`);
      return;
    }
    default:
      assertNever(group.state, 'group state');
  }
}

/** A member synced: it no longer holds up the sync deadline. */
export function removePendingSyncMember(op: Operation, group: ClassicGroup, memberId: string): void {
  group.deletePendingSyncMember(memberId);
  switch (group.state) {
    case 'Dead':
    case 'Empty':
    case 'PreparingRebalance':
      op.cancel(syncKey(group.groupId));
      break;
    case 'CompletingRebalance':
    case 'Stable':
      if (group.pendingSyncMembers.size === 0) op.cancel(syncKey(group.groupId));
      break;
    default:
      assertNever(group.state, 'group state');
  }
}

/** A rebalance interrupts CompletingRebalance: parked syncs get the error and no assignment. */
export function resetAndPropagateAssignmentWithError(op: Operation, group: ClassicGroup, errorCode: number): void {
  if (!group.is('CompletingRebalance')) throw new Error(`group ${group.groupId} is ${group.state}, not CompletingRebalance`);
  for (const m of group.members.values()) group.setAssignment(m, EMPTY_ASSIGNMENT);
  propagateAssignment(op, group, errorCode);
}

/**
 * Members waiting for this generation's assignment get theirs (the leader's, which the
 * replay of its GroupMetadata record set), or `errorCode` without one.
 */
export function propagateAssignment(op: Operation, group: ClassicGroup, errorCode: number): void {
  const ok = errorCode === ErrorCode.NONE;
  for (const m of group.members.values()) {
    const answered = answerSync(op, group, m, {
      errorCode,
      protocolType: ok ? group.protocolType : null,
      protocolName: ok ? group.protocolName : null,
      assignment: m.assignment,
    });
    // The session restarts once the member has its answer: an expiry while it waited
    // was ignored (a parked member is alive by definition).
    if (answered) rescheduleHeartbeat(op, group, m);
  }
}
