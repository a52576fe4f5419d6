/**
 * Heartbeat and LeaveGroup, after Kafka's classicGroupHeartbeat and classicGroupLeave.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { classicHeartbeatToConsumerGroup, leaveConsumerGroup } from '../consumer/classic-apis.js';
import type { HeartbeatRequestData } from '../../protocol/messages/heartbeat.js';
import type { LeaveGroupRequestData, MemberIdentity, MemberResponse } from '../../protocol/messages/leave-group.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { ClassicGroup } from './group.js';
import { heartbeatKey, type Operation } from '../operation.js';
import {
  answerJoin,
  maybeCompleteJoinPhase,
  maybePrepareRebalanceOrCompleteJoin,
  removeMember,
  rescheduleHeartbeat,
  withClientReason,
} from './rebalance.js';
import { heartbeatResponse, leaveGroupResponse } from './responses.js';
import { assertNever, type RequestContext } from '../types.js';

export function heartbeat(s: CoordinatorState, op: Operation, ctx: RequestContext, req: HeartbeatRequestData): void {
  op.reply(ctx.requestId, heartbeatResponse(heartbeatError(s, op, req)));
}

function heartbeatError(s: CoordinatorState, op: Operation, req: HeartbeatRequestData): number {
  if (req.groupId === '') return ErrorCode.INVALID_GROUP_ID;
  const consumerGroup = s.consumerGroups.get(req.groupId);
  if (consumerGroup !== undefined) return classicHeartbeatToConsumerGroup(s, op, consumerGroup, req);
  const group = s.groups.get(req.groupId);
  if (group === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  const memberError = group.validateMember(req.memberId, req.groupInstanceId);
  if (memberError !== ErrorCode.NONE) return memberError;
  if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;

  const member = group.member(req.memberId)!;
  switch (group.state) {
    case 'Empty':
      return ErrorCode.UNKNOWN_MEMBER_ID;
    case 'PreparingRebalance':
      // The session is kept alive, and the member learns it must rejoin.
      rescheduleHeartbeat(op, group, member);
      return ErrorCode.REBALANCE_IN_PROGRESS;
    case 'CompletingRebalance':
    case 'Stable':
      // Members may heartbeat between their JoinGroup response and their SyncGroup.
      rescheduleHeartbeat(op, group, member);
      return ErrorCode.NONE;
    case 'Dead':
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    default:
      return assertNever(group.state, 'group state');
  }
}

/**
 * v0-2 name one member by member id; v3+ a batch of members by member id and/or
 * group.instance.id (an admin may remove a static member by its instance id alone).
 */
export function leaveGroup(s: CoordinatorState, op: Operation, ctx: RequestContext, req: LeaveGroupRequestData): void {
  const identities: MemberIdentity[] =
    ctx.apiVersion >= 3 ? (req.members ?? []) : [{ memberId: req.memberId ?? '', groupInstanceId: null }];
  const respond = (topLevelError: number, members: MemberResponse[]): void =>
    op.reply(ctx.requestId, leaveGroupResponse(ctx.apiVersion, topLevelError, members));
  const memberResult = (m: MemberIdentity, errorCode: number): MemberResponse => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    errorCode,
  });

  if (req.groupId === '') return respond(ErrorCode.INVALID_GROUP_ID, []);
  const consumerGroup = s.consumerGroups.get(req.groupId);
  if (consumerGroup !== undefined) return respond(ErrorCode.NONE, leaveConsumerGroup(s, op, consumerGroup, identities));
  const group = s.groups.get(req.groupId);
  if (group === undefined) {
    return respond(ErrorCode.NONE, identities.map((m) => memberResult(m, ErrorCode.UNKNOWN_MEMBER_ID)));
  }
  if (group.is('Dead')) return respond(ErrorCode.COORDINATOR_NOT_AVAILABLE, []);

  const results = identities.map((m) => memberResult(m, leaveOne(op, group, m)));

  const left = identities.filter((_, i) => results[i]!.errorCode === ErrorCode.NONE);
  if (left.length > 0) {
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance': {
        const ids = left.map((m) => (m.memberId !== '' ? m.memberId : `instance ${m.groupInstanceId}`)).join(', ');
        maybePrepareRebalanceOrCompleteJoin(s, op, group, withClientReason(`removing member ${ids} on LeaveGroup`, left[0]!.reason));
        break;
      }
      case 'PreparingRebalance':
        maybeCompleteJoinPhase(s, op, group);
        break;
      case 'Empty':
      case 'Dead':
        break;
      default:
        assertNever(group.state, 'group state');
    }
  }
  respond(ErrorCode.NONE, results);
}

function leaveOne(op: Operation, group: ClassicGroup, identity: MemberIdentity): number {
  if (identity.memberId === '') {
    // Removal by group.instance.id only.
    const memberId = identity.groupInstanceId === null ? undefined : group.staticMemberId(identity.groupInstanceId);
    if (memberId === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    removeCurrentMember(op, group, memberId, identity.reason ?? null);
    return ErrorCode.NONE;
  }
  if (group.isPendingMember(identity.memberId)) {
    group.remove(identity.memberId);
    op.cancel(heartbeatKey(group.groupId, identity.memberId));
    return ErrorCode.NONE;
  }
  const error = group.validateMember(identity.memberId, identity.groupInstanceId);
  if (error !== ErrorCode.NONE) return error;
  removeCurrentMember(op, group, identity.memberId, identity.reason ?? null);
  return ErrorCode.NONE;
}

function removeCurrentMember(op: Operation, group: ClassicGroup, memberId: string, clientReason: string | null): void {
  op.cancel(heartbeatKey(group.groupId, memberId));
  const member = group.member(memberId)!;
  // A member may leave while its JoinGroup is parked (e.g. an admin removes it).
  answerJoin(op, group, member, { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId: '' });
  removeMember(op, group, memberId, 'left', clientReason);
}
