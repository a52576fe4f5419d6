/**
 * ShareGroupHeartbeat (KIP-932, v1), after Kafka 4.4's GroupCoordinatorService validation
 * and GroupMetadataManager.shareGroupHeartbeat / shareGroupLeave. A heartbeat:
 * 1. creates or updates the member (its own member id; a new subscription, or topics whose
 *    metadata changed, bump the group epoch, and so do share partitions initialized since
 *    the last target assignment);
 * 2. computes a new target assignment when the group epoch passed the assignment epoch;
 * 3. gives the member its target at once (share groups have no revocation);
 * 4. asks for the share state of subscribed partitions not initialized yet (initialize.ts);
 * and answers with the member's epoch and, when it changed (or on a full request), its
 * assignment. Epoch -1 leaves.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ShareGroupRecord } from '../../protocol/coordinator-records/share-group-framing.js';
import type { ShareGroupHeartbeatRequestData, ShareGroupHeartbeatResponseData } from '../../protocol/messages/share-group-heartbeat.js';
import { assignmentEquals, toTopicPartitions } from '../consumer/assignment.js';
import { ConsumerGroupError, fencedMemberEpoch, groupIdNotFound, invalidRequest, unknownMemberId } from '../consumer/errors.js';
import { javaSetOrder } from '../consumer/java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import type { RequestContext } from '../types.js';
import { fenceShareMember, scheduleShareSessionTimeout } from './fence.js';
import { ShareGroup } from './group.js';
import { initializedAssignmentPending, maybeInitializeShareGroupState } from './initialize.js';
import { newShareMember, reconcileShareMember, SHARE_LEAVE_GROUP_MEMBER_EPOCH, SHARE_MEMBER_STABLE, sameShareMetadata, shareMemberEquals, type ShareGroupMember } from './member.js';
import { shareCurrentAssignmentRecord, shareEpochRecord, shareMemberSubscriptionRecord } from './records.js';
import { computeMetadataHash, computeSubscribedTopicNames } from './subscription.js';
import { maybeUpdateShareTargetAssignment } from './target.js';
import { writeShareGroupRecords } from './write.js';
import { sameTopicNames } from '../consumer/member.js';
import { shareHeartbeatIntervalMs } from '../types.js';

type Request = ShareGroupHeartbeatRequestData;
type Response = ShareGroupHeartbeatResponseData;

/** Kafka sets the metadata refresh deadline of share groups this far ahead (Integer.MAX_VALUE ms). */
const METADATA_REFRESH_NEVER_MS = 2_147_483_647;

export function shareGroupHeartbeatError(errorCode: number, errorMessage: string | null = null): Response {
  return { throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

export function shareGroupHeartbeat(s: CoordinatorState, op: Operation, ctx: RequestContext, req: Request): void {
  let response: Response;
  try {
    validate(req);
    response = req.memberEpoch === SHARE_LEAVE_GROUP_MEMBER_EPOCH ? leave(s, op, req) : s.attempt(op, () => heartbeat(s, op, ctx, req));
  } catch (err) {
    if (!(err instanceof ConsumerGroupError)) throw err;
    response = shareGroupHeartbeatError(err.errorCode, err.message);
  }
  op.reply(ctx.requestId, response);
}

function throwIfEmpty(value: string | null | undefined, message: string): void {
  if (value !== null && value !== undefined && value.trim() === '') throw invalidRequest(message);
}

/** GroupCoordinatorService.throwIfShareGroupHeartbeatRequestIsInvalid (Kafka 4.4). */
function validate(req: Request): void {
  throwIfEmpty(req.memberId, "MemberId can't be empty.");
  throwIfEmpty(req.groupId, "GroupId can't be empty.");
  throwIfEmpty(req.rackId, "RackId can't be empty.");
  if (req.memberEpoch === 0) {
    if (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0) throw invalidRequest('SubscribedTopicNames must be set in first request.');
  } else if (req.memberEpoch < SHARE_LEAVE_GROUP_MEMBER_EPOCH) {
    throw invalidRequest('MemberEpoch is invalid.');
  }
}

function notAShareGroup(s: CoordinatorState, groupId: string): boolean {
  return s.groups.has(groupId) || s.consumerGroups.has(groupId) || s.streamsGroups.has(groupId);
}

/** Kafka's getOrMaybeCreateShareGroup: a joining member may create the group; any other type's id is refused. */
function shareGroupFor(s: CoordinatorState, groupId: string, create: boolean): ShareGroup {
  const existing = s.shareGroups.get(groupId);
  if (existing !== undefined) return existing;
  if (notAShareGroup(s, groupId)) throw groupIdNotFound(`Group ${groupId} is not a share group.`);
  if (!create) throw groupIdNotFound(`Share group ${groupId} not found.`);
  // Not in the map yet: the records the heartbeat writes create it.
  return new ShareGroup(groupId, s.journal);
}

/** Kafka's throwIfShareGroupMemberEpochIsInvalid: epoch 0 (re)joins; the previous epoch is accepted (a lost response). */
function throwIfEpochInvalid(m: ShareGroupMember, received: number): void {
  if (received === 0) return;
  if (received > m.memberEpoch) {
    throw fencedMemberEpoch(`The share group member has a greater member epoch (${received}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`);
  }
  if (received < m.memberEpoch && received !== m.previousMemberEpoch) {
    throw fencedMemberEpoch(`The share group member has a smaller member epoch (${received}) than the one known by the group coordinator (${m.memberEpoch}), and it does not match the previous member epoch (${m.previousMemberEpoch}). The member must abandon all its partitions and rejoin.`);
  }
}

function heartbeat(s: CoordinatorState, op: Operation, ctx: RequestContext, req: Request): Response {
  const groupId = req.groupId;
  const create = req.memberEpoch === 0;
  const group = shareGroupFor(s, groupId, create);
  // Kafka's throwIfShareGroupIsFull.
  if ((req.memberId === '' || !group.members.has(req.memberId)) && group.numMembers >= s.config.shareGroupMaxSize) {
    throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The share group has reached its maximum capacity of ${s.config.shareGroupMaxSize} members.`);
  }
  const existing = group.member(req.memberId);
  if (existing === undefined && !create) throw unknownMemberId(`Member ${req.memberId} is not a member of group ${groupId}.`);
  const member = existing ?? newShareMember(req.memberId);
  throwIfEpochInvalid(member, req.memberEpoch);

  // 1. The member with what the request says (null: unchanged).
  const updated: ShareGroupMember = {
    ...member,
    rackId: req.rackId ?? member.rackId,
    subscribedTopicNames: req.subscribedTopicNames !== null && !sameTopicNames(req.subscribedTopicNames, member.subscribedTopicNames)
      ? javaSetOrder(stringHash, req.subscribedTopicNames)
      : member.subscribedTopicNames,
    clientId: ctx.clientId,
    clientHost: ctx.clientHost,
  };
  const records: ShareGroupRecord[] = [];
  // Kafka's hasMemberSubscriptionChanged: the metadata is written when it changed; new topic names bump.
  if (existing === undefined || !sameShareMetadata(updated, member)) records.push(shareMemberSubscriptionRecord(groupId, updated));
  let bump = !sameTopicNames(updated.subscribedTopicNames, member.subscribedTopicNames);
  let groupEpoch = group.groupEpoch;
  if (group.assignmentEpoch >= groupEpoch) bump ||= initializedAssignmentPending(s, group);

  let subscribed: ReadonlyMap<string, number> = group.subscribedTopicNames;
  let type = group.subscriptionType();
  let refreshed = false;
  if (bump || group.hasMetadataExpired(op.nowMs)) {
    subscribed = computeSubscribedTopicNames(group, existing, updated);
    const hash = computeMetadataHash(subscribed.keys(), s.metadata);
    type = group.subscriptionType(subscribed, group.numMembers + (existing === undefined ? 1 : 0));
    if (hash !== group.metadataHash) bump = true;
    if (bump) records.push(shareEpochRecord(groupId, ++groupEpoch, hash));
    refreshed = true;
  }

  // 2. A new target assignment when the group epoch moved past the assignment epoch.
  const target = maybeUpdateShareTargetAssignment(s, group, groupEpoch, updated, type, records, op.nowMs);

  // 3. The member takes its target at once.
  let reconciled = updated;
  if (bump || updated.state !== SHARE_MEMBER_STABLE || updated.memberEpoch !== target.epoch) {
    reconciled = reconcileShareMember(updated, target.epoch, target.assignment, bump, s.metadata);
    if (!shareMemberEquals(reconciled, updated)) records.push(shareCurrentAssignmentRecord(groupId, reconciled));
  }
  scheduleShareSessionTimeout(s, op, groupId, req.memberId);

  // 4. Share partitions of the subscribed topics whose state is not initialized yet.
  maybeInitializeShareGroupState(s, op, group, groupEpoch, subscribed.keys(), records);

  writeShareGroupRecords(s, op, records, epochReason(group, req.memberId, bump, existing === undefined));
  const written = s.shareGroups.get(groupId);
  if (written !== undefined && refreshed) written.metadataRefreshDeadline = { deadlineMs: op.nowMs + METADATA_REFRESH_NEVER_MS, epoch: groupEpoch };

  const withAssignment = req.memberEpoch === 0 || req.subscribedTopicNames !== null || !assignmentEquals(member.assignedPartitions, reconciled.assignedPartitions);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: reconciled.memberId,
    memberEpoch: reconciled.memberEpoch,
    heartbeatIntervalMs: shareHeartbeatIntervalMs(s.config, req.groupId),
    assignment: withAssignment ? { topicPartitions: toTopicPartitions(reconciled.assignedPartitions) } : null,
  };
}

/** Kafka's shareGroupLeave: the member is fenced; the answer echoes its id with epoch -1. */
function leave(s: CoordinatorState, op: Operation, req: Request): Response {
  const group = s.shareGroups.get(req.groupId);
  if (group === undefined) {
    throw groupIdNotFound(notAShareGroup(s, req.groupId) ? `Group ${req.groupId} is not a share group.` : `Group ${req.groupId} not found.`);
  }
  const member = group.member(req.memberId);
  if (member === undefined) throw unknownMemberId(`Member ${req.memberId} is not a member of group ${req.groupId}.`);
  fenceShareMember(s, op, group, member, 'left');
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, memberId: req.memberId, memberEpoch: SHARE_LEAVE_GROUP_MEMBER_EPOCH, heartbeatIntervalMs: 0, assignment: null };
}

/** Why a heartbeat bumps the group epoch (used only when it does). */
function epochReason(group: ShareGroup, memberId: string, subscriptionOrAssignable: boolean, joined: boolean): string {
  if (joined) return `member ${memberId} joined`;
  if (subscriptionOrAssignable) return `member ${memberId} updated its subscription, or share partitions were initialized`;
  return group.numMembers > 0 ? 'the metadata of subscribed topics changed' : 'the group changed';
}
