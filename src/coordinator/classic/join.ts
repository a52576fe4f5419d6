/**
 * JoinGroup, after Kafka's classicGroupJoin and the methods it calls (new dynamic and
 * static members, existing members, static member replacement). A join usually parks: the
 * reply comes when the join phase completes (see rebalance.ts).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { deleteConsumerGroup } from '../consumer/classic-apis.js';
import { classicJoinToConsumerGroup } from '../consumer/classic-join.js';
import type { JoinGroupRequestData } from '../../protocol/messages/join-group.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { ClassicGroup } from './group.js';
import { ownProtocols, type ClassicGroupMember, type ParkedRequest } from './member.js';
import { heartbeatKey, type Operation } from '../operation.js';
import {
  answerJoin,
  answerSync,
  maybeCompleteJoinPhase,
  maybePrepareRebalanceOrCompleteJoin,
  prepareRebalance,
  removeMember,
  rescheduleHeartbeat,
  withClientReason,
} from './rebalance.js';
import { currentAssignments, emptyGroupMetadataRecord, groupMetadataRecord } from '../records.js';
import { writeRecord } from '../replay.js';
import { joinGroupError, joinGroupResponse } from './responses.js';
import { assertNever, type RequestContext } from '../types.js';

const UNKNOWN_MEMBER_ID = '';

/** JoinGroup v4+ must come back with the id the coordinator assigned (KIP-394). */
function requiresKnownMemberId(apiVersion: number): boolean {
  return apiVersion >= 4;
}

/** JoinGroup v9+ lets a static leader skip the assignment when it rejoins a Stable group. */
function supportsSkippingAssignment(apiVersion: number): boolean {
  return apiVersion >= 9;
}

interface Join {
  readonly ctx: RequestContext;
  readonly req: JoinGroupRequestData;
  readonly rebalanceTimeoutMs: number;
  readonly parked: ParkedRequest;
}

export function joinGroup(s: CoordinatorState, op: Operation, ctx: RequestContext, req: JoinGroupRequestData): void {
  const fail = (errorCode: number, memberId: string): void => op.reply(ctx.requestId, joinGroupError(ctx.apiVersion, errorCode, memberId));

  // Checked by Kafka's GroupCoordinatorService before the group is touched.
  if (req.groupId === '') return fail(ErrorCode.INVALID_GROUP_ID, req.memberId);
  if (req.sessionTimeoutMs < s.config.minSessionTimeoutMs || req.sessionTimeoutMs > s.config.maxSessionTimeoutMs) {
    return fail(ErrorCode.INVALID_SESSION_TIMEOUT, req.memberId);
  }
  const join: Join = {
    ctx,
    req,
    // JoinGroup v0 has no rebalance timeout: Kafka uses the session timeout.
    rebalanceTimeoutMs: ctx.apiVersion === 0 ? req.sessionTimeoutMs : (req.rebalanceTimeoutMs ?? -1),
    parked: { requestId: ctx.requestId, apiVersion: ctx.apiVersion },
  };

  const isUnknownMember = req.memberId === UNKNOWN_MEMBER_ID;
  // Kafka 4.4's classicGroupJoin: a share group never takes classic members.
  if (s.shareGroups.has(req.groupId) || s.streamsGroups.has(req.groupId)) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, UNKNOWN_MEMBER_ID);
  const consumerGroup = s.consumerGroups.get(req.groupId);
  if (consumerGroup !== undefined) {
    // A consumer group with members takes classic members in (the protocols mix).
    if (consumerGroup.numMembers > 0) return classicJoinToConsumerGroup(s, op, ctx, req, consumerGroup);
    // An Empty consumer group gives way to the classic group, as in Kafka.
    deleteConsumerGroup(s, op, consumerGroup);
  }
  // Only a member without an id may create a group. Kafka persists a group a JoinGroup
  // creates at once (generation 0, no members), so that it survives a restart even before
  // its first generation completes: the group is that record's (its only record, as a new
  // group's join writes nothing else).
  if (!s.groups.has(req.groupId)) {
    if (!isUnknownMember) return fail(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId);
    writeRecord(s, op, emptyGroupMetadataRecord(req.groupId, op.nowMs));
  }
  const group = s.groups.get(req.groupId)!;

  if (!acceptJoiningMember(s, group, req.memberId)) {
    removeMember(op, group, req.memberId, 'group-max-size');
    fail(ErrorCode.GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID);
  } else if (isUnknownMember) {
    joinNewMember(s, op, group, join);
  } else {
    joinExistingMember(s, op, group, join);
  }
}

/** group.max.size: members already in (or rejoining) are accepted; new ones while there is room. */
function acceptJoiningMember(s: CoordinatorState, group: ClassicGroup, memberId: string): boolean {
  switch (group.state) {
    case 'Empty':
    case 'Dead':
      return true;
    case 'PreparingRebalance':
      // Counting awaiting members rather than members lets a shrunk group.max.size evict
      // the last members to rejoin.
      return (group.member(memberId)?.isAwaitingJoin ?? false) || group.numAwaitingJoinResponse < s.config.maxGroupSize;
    case 'CompletingRebalance':
    case 'Stable':
      return group.hasMember(memberId) || group.numMembers < s.config.maxGroupSize;
    default:
      return assertNever(group.state, 'group state');
  }
}

function joinNewMember(s: CoordinatorState, op: Operation, group: ClassicGroup, join: Join): void {
  const { ctx, req } = join;
  if (group.is('Dead')) {
    op.reply(ctx.requestId, joinGroupError(ctx.apiVersion, ErrorCode.COORDINATOR_NOT_AVAILABLE, UNKNOWN_MEMBER_ID));
    return;
  }
  if (!group.supportsProtocols(req.protocolType, new Set(req.protocols.map((p) => p.name)))) {
    op.reply(ctx.requestId, joinGroupError(ctx.apiVersion, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, UNKNOWN_MEMBER_ID));
    return;
  }
  const groupInstanceId = req.groupInstanceId ?? null;
  // Kafka's ids: "<group.instance.id>-<uuid>" for static members, "<client.id>-<uuid>" otherwise.
  const newMemberId = `${groupInstanceId ?? ctx.clientId}-${s.config.generateUuid()}`;

  if (groupInstanceId !== null) {
    const existingMemberId = group.staticMemberId(groupInstanceId);
    if (existingMemberId !== undefined) {
      updateStaticMemberThenRebalanceOrCompleteJoin(s, op, group, join, groupInstanceId, existingMemberId, newMemberId);
    } else {
      addMemberThenRebalanceOrCompleteJoin(s, op, group, join, newMemberId);
    }
  } else if (requiresKnownMemberId(ctx.apiVersion)) {
    // KIP-394: hand out the id and wait for the member to come back with it. The id is
    // forgotten if it does not within the session timeout.
    group.addPendingMember(newMemberId);
    op.schedule(heartbeatKey(group.groupId, newMemberId), req.sessionTimeoutMs, {
      kind: 'heartbeat',
      groupId: group.groupId,
      memberId: newMemberId,
    });
    op.reply(ctx.requestId, joinGroupError(ctx.apiVersion, ErrorCode.MEMBER_ID_REQUIRED, newMemberId));
  } else {
    addMemberThenRebalanceOrCompleteJoin(s, op, group, join, newMemberId);
  }
}

function joinExistingMember(s: CoordinatorState, op: Operation, group: ClassicGroup, join: Join): void {
  const { ctx, req } = join;
  const memberId = req.memberId;
  const fail = (errorCode: number): void => op.reply(ctx.requestId, joinGroupError(ctx.apiVersion, errorCode, memberId));

  if (group.is('Dead')) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  if (!group.supportsProtocols(req.protocolType, new Set(req.protocols.map((p) => p.name)))) {
    return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  }
  if (group.isPendingMember(memberId)) {
    // Kafka treats a static member with a pending (dynamic) id as an internal error.
    if (req.groupInstanceId !== null && req.groupInstanceId !== undefined) return fail(ErrorCode.UNKNOWN_SERVER_ERROR);
    return addMemberThenRebalanceOrCompleteJoin(s, op, group, join, memberId);
  }
  const error = group.validateMember(memberId, req.groupInstanceId);
  if (error !== ErrorCode.NONE) return fail(error);

  const member = group.member(memberId)!;
  const currentGeneration = (members: ReturnType<ClassicGroup['currentMembersForLeader']>): void =>
    op.reply(
      ctx.requestId,
      joinGroupResponse(ctx.apiVersion, {
        errorCode: ErrorCode.NONE,
        memberId,
        generationId: group.generationId,
        protocolType: group.protocolType,
        protocolName: group.protocolName,
        leader: group.leaderId,
        skipAssignment: false,
        members,
      }),
    );

  const updating = `updating metadata for member ${memberId} during ${group.state}`;
  switch (group.state) {
    case 'PreparingRebalance':
      return updateMemberThenRebalanceOrCompleteJoin(s, op, group, member, join, updating);
    case 'CompletingRebalance':
      // Same metadata: probably a retry of a lost JoinGroup response; resend this generation's.
      if (member.matches(req.protocols)) {
        return currentGeneration(group.isLeader(memberId) ? group.currentMembersForLeader() : []);
      }
      return updateMemberThenRebalanceOrCompleteJoin(s, op, group, member, join, updating);
    case 'Stable':
      // The leader rejoining forces a rebalance: that is how it reacts to metadata changes
      // (new partitions) that do not change any member's subscription.
      if (group.isLeader(memberId) || !member.matches(req.protocols)) {
        const reason = group.isLeader(memberId) ? `leader ${memberId} re-joining group during Stable` : updating;
        return updateMemberThenRebalanceOrCompleteJoin(s, op, group, member, join, reason);
      }
      return currentGeneration([]);
    case 'Empty':
    case 'Dead':
      // Unreachable (validateMember fails without members); Kafka answers this way.
      return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    default:
      return assertNever(group.state, 'group state');
  }
}

function updateMemberThenRebalanceOrCompleteJoin(
  s: CoordinatorState,
  op: Operation,
  group: ClassicGroup,
  member: ClassicGroupMember,
  join: Join,
  reason: string,
): void {
  const superseded = group.updateMember(
    member,
    ownProtocols(join.req.protocols),
    join.rebalanceTimeoutMs,
    join.req.sessionTimeoutMs,
    join.parked,
  );
  // Kafka silently drops the JoinGroup this one replaces; Brook answers it, so it is not
  // held forever (the client has given up on it, it sent this one).
  if (superseded !== null) {
    op.reply(superseded.requestId, joinGroupError(superseded.apiVersion, ErrorCode.REBALANCE_IN_PROGRESS, member.memberId));
  }
  maybePrepareRebalanceOrCompleteJoin(s, op, group, withClientReason(reason, join.req.reason));
}

function addMemberThenRebalanceOrCompleteJoin(s: CoordinatorState, op: Operation, group: ClassicGroup, join: Join, memberId: string): void {
  const { ctx, req } = join;
  const member = group.newMember(
    memberId,
    req.groupInstanceId ?? null,
    ctx.clientId,
    ctx.clientHost,
    join.rebalanceTimeoutMs,
    req.sessionTimeoutMs,
    req.protocolType,
    ownProtocols(req.protocols),
  );
  member.isNew = true;
  // A member arriving during the initial delay extends it (see tryCompleteInitialRebalanceElseSchedule).
  if (group.is('PreparingRebalance') && group.previousState === 'Empty') group.newMemberAdded = true;
  group.add(member, join.parked);
  op.event({
    type: 'member-joined', groupType: 'classic', groupId: group.groupId, memberId, groupInstanceId: member.groupInstanceId,
    clientId: ctx.clientId, clientHost: ctx.clientHost, protocol: 'classic',
  });
  // A new member cannot heartbeat while its JoinGroup is parked, and a client that gave up
  // and retried would leave a defunct member behind: its join times out instead.
  rescheduleHeartbeat(op, group, member, s.config.newMemberJoinTimeoutMs);
  const instance = member.groupInstanceId === null ? '' : ` with group instance id ${member.groupInstanceId}`;
  maybePrepareRebalanceOrCompleteJoin(s, op, group, withClientReason(`adding new member ${memberId}${instance}`, req.reason));
}

/**
 * A known static member came back without its member id (a restart): the new id replaces
 * the old one, which is fenced. In a Stable group whose chosen protocol stays the same,
 * that is all — no rebalance: the member gets its old assignment back through SyncGroup.
 */
function updateStaticMemberThenRebalanceOrCompleteJoin(
  s: CoordinatorState,
  op: Operation,
  group: ClassicGroup,
  join: Join,
  groupInstanceId: string,
  oldMemberId: string,
  newMemberId: string,
): void {
  const { ctx, req } = join;
  const currentLeader = group.leaderId;
  const old = group.member(oldMemberId)!;
  // Whoever still waits under the old id is fenced at once.
  answerJoin(op, group, old, { errorCode: ErrorCode.FENCED_INSTANCE_ID, memberId: oldMemberId, protocolName: null, leader: '' });
  answerSync(op, group, old, { errorCode: ErrorCode.FENCED_INSTANCE_ID });
  const member = group.replaceStaticMember(groupInstanceId, oldMemberId, newMemberId);
  // A restarted static member: it comes back under a new member id, the old one is gone.
  op.event({ type: 'member-joined', groupType: 'classic', groupId: group.groupId, memberId: newMemberId, groupInstanceId, clientId: ctx.clientId, clientHost: ctx.clientHost, protocol: 'classic' });
  op.event({ type: 'member-replaced', groupType: 'classic', groupId: group.groupId, groupInstanceId, oldMemberId, newMemberId });
  // The old id's session timer will fire for a member that no longer exists, harmlessly.
  rescheduleHeartbeat(op, group, member);
  group.updateMember(member, ownProtocols(req.protocols), join.rebalanceTimeoutMs, req.sessionTimeoutMs, join.parked);

  switch (group.state) {
    case 'Stable': {
      if (group.protocolName !== group.selectProtocol()) {
        const reason = `group's selectedProtocol will change because static member ${newMemberId} with instance id ${groupInstanceId} joined with change of protocol`;
        return maybePrepareRebalanceOrCompleteJoin(s, op, group, withClientReason(reason, req.reason));
      }
      // Persist the new member id, then answer (the runtime releases the reply once durable).
      writeRecord(s, op, groupMetadataRecord(group, currentAssignments(group)));
      const isLeader = group.isLeader(newMemberId);
      const skip = supportsSkippingAssignment(ctx.apiVersion);
      answerJoin(op, group, member, {
        errorCode: ErrorCode.NONE,
        memberId: newMemberId,
        generationId: group.generationId,
        protocolType: group.protocolType,
        protocolName: group.protocolName,
        // v9+: the static leader learns it leads but skips the assignment (its assignor may
        // not be idempotent). Before v9 Kafka names the old leader id, so the restarted
        // leader does not believe it leads and does not assign.
        leader: skip ? group.leaderId : currentLeader,
        skipAssignment: skip && isLeader,
        members: skip && isLeader ? group.currentMembersForLeader() : [],
      });
      return;
    }
    case 'CompletingRebalance':
      // The leader may already be assigning with the old id: rebalance so the new id gets a share.
      return prepareRebalance(s, op, group, withClientReason(`updating metadata for static member ${newMemberId} with instance id ${groupInstanceId}`, req.reason));
    case 'PreparingRebalance':
      return maybeCompleteJoinPhase(s, op, group);
    case 'Empty':
    case 'Dead':
      throw new Error(`group ${group.groupId} cannot replace static member ${groupInstanceId} in state ${group.state}`);
    default:
      return assertNever(group.state, 'group state');
  }
}
