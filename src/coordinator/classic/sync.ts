/**
 * SyncGroup, after Kafka's classicGroupSync: followers park until the leader's assignment
 * arrives; the leader's SyncGroup stores the assignment (a GroupMetadata record) and
 * answers every parked member with its own share.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { classicSyncToConsumerGroup } from '../consumer/classic-apis.js';
import type { SyncGroupRequestData } from '../../protocol/messages/sync-group.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { ClassicGroup } from './group.js';
import { EMPTY_ASSIGNMENT } from './member.js';
import type { Operation } from '../operation.js';
import { groupMetadataRecord } from '../records.js';
import { writeRecord } from '../replay.js';
import {
  maybePrepareRebalanceOrCompleteJoin,
  propagateAssignment,
  removePendingSyncMember,
  resetAndPropagateAssignmentWithError,
} from './rebalance.js';
import { syncGroupError, syncGroupResponse } from './responses.js';
import { assertNever, type RequestContext } from '../types.js';

/** A protocol type or name in the request contradicts the group's (absent on either side is fine). */
function isProtocolInconsistent(fromRequest: string | null | undefined, ofGroup: string | null): boolean {
  return fromRequest !== null && fromRequest !== undefined && ofGroup !== null && fromRequest !== ofGroup;
}

function validateSyncGroup(group: ClassicGroup, req: SyncGroupRequestData): number {
  if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  const memberError = group.validateMember(req.memberId, req.groupInstanceId);
  if (memberError !== ErrorCode.NONE) return memberError;
  if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
  if (isProtocolInconsistent(req.protocolType, group.protocolType) || isProtocolInconsistent(req.protocolName, group.protocolName)) {
    return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
  }
  return ErrorCode.NONE;
}

export function syncGroup(s: CoordinatorState, op: Operation, ctx: RequestContext, req: SyncGroupRequestData): void {
  const fail = (errorCode: number): void => op.reply(ctx.requestId, syncGroupError(ctx.apiVersion, errorCode));

  if (req.groupId === '') return fail(ErrorCode.INVALID_GROUP_ID);
  // From v5 the protocol type and name are mandatory (checked by Kafka's KafkaApis).
  if (ctx.apiVersion >= 5 && (req.protocolType == null || req.protocolName == null)) {
    return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  }
  const consumerGroup = s.consumerGroups.get(req.groupId);
  if (consumerGroup !== undefined) return classicSyncToConsumerGroup(s, op, ctx, consumerGroup, req);
  const group = s.groups.get(req.groupId);
  if (group === undefined || group.is('Empty')) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
  const error = validateSyncGroup(group, req);
  if (error !== ErrorCode.NONE) return fail(error);

  const member = group.member(req.memberId)!;
  switch (group.state) {
    case 'PreparingRebalance':
      return fail(ErrorCode.REBALANCE_IN_PROGRESS);
    case 'CompletingRebalance': {
      const superseded = member.awaitingSync;
      // Kafka drops the SyncGroup this one replaces; Brook answers it so it is not held forever.
      if (superseded !== null) op.reply(superseded.requestId, syncGroupError(superseded.apiVersion, ErrorCode.REBALANCE_IN_PROGRESS));
      group.parkSync(member, { requestId: ctx.requestId, apiVersion: ctx.apiVersion });
      removePendingSyncMember(op, group, req.memberId);
      if (group.isLeader(req.memberId)) {
        const assignment = new Map<string, Buffer>();
        // Copied: the request's bytes are views into its frame, and these are kept.
        for (const a of req.assignments) assignment.set(a.memberId, Buffer.from(a.assignment));
        for (const memberId of group.members.keys()) if (!assignment.has(memberId)) assignment.set(memberId, EMPTY_ASSIGNMENT);
        // The record gives each member its assignment (its replay), which goes to the members
        // waiting for it; the runtime releases the replies once the record is durable, which
        // is when Kafka completes them.
        writeRecord(s, op, groupMetadataRecord(group, assignment));
        propagateAssignment(op, group, ErrorCode.NONE);
        group.transitionTo('Stable', op.nowMs);
        op.event({
          type: 'rebalance-completed', groupType: 'classic', groupId: group.groupId, generation: group.generationId, members: group.numMembers, state: 'Stable',
          classic: { leader: group.leaderId, protocolType: group.protocolType, protocolName: group.protocolName, assignments: assignment },
        });
        onStoreFailure(s, group.groupId, group.generationId);
      }
      return;
    }
    case 'Stable':
      // A late follower, or a member whose static replacement needs no rebalance.
      removePendingSyncMember(op, group, req.memberId);
      return op.reply(
        ctx.requestId,
        syncGroupResponse(ctx.apiVersion, {
          errorCode: ErrorCode.NONE,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: member.assignment,
        }),
      );
    case 'Empty':
    case 'Dead':
      throw new Error(`group ${group.groupId} cannot sync in state ${group.state}`);
    default:
      return assertNever(group.state, 'group state');
  }
}

/**
 * Kafka's classicGroupSyncToLeader when the assignment cannot be stored: the group is back
 * in CompletingRebalance (the revert undid the sync), the assignments are reset, members
 * still waiting get the error, and the group prepares a rebalance, so the members, which
 * got the error too, rejoin into a new generation. Kafka checks that the group is still in
 * that generation's CompletingRebalance; after the revert it is, unless an earlier reverted
 * result took it further back.
 */
function onStoreFailure(s: CoordinatorState, groupId: string, generationId: number): void {
  s.journal.onRevert((op, errorCode) => {
    const group = s.groups.get(groupId);
    if (group === undefined || !group.is('CompletingRebalance') || group.generationId !== generationId) return;
    resetAndPropagateAssignmentWithError(op, group, errorCode);
    maybePrepareRebalanceOrCompleteJoin(s, op, group, `error ${errorCode} when storing group assignment during SyncGroup`);
  });
}
