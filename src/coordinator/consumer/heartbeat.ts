/**
 * ConsumerGroupHeartbeat (KIP-848), after Kafka's GroupCoordinatorService validation and
 * GroupMetadataManager.consumerGroupHeartbeat / consumerGroupLeave. A heartbeat:
 * 1. creates or updates the member (a new subscription bumps the group epoch; so does new
 *    subscription metadata: a subscribed topic created, deleted or resized);
 * 2. computes a new target assignment when the group epoch passed the assignment epoch;
 * 3. moves the member's current assignment towards its target (reconcile.ts);
 * and answers with the member's epoch and, when it changed (or on a full request), its
 * assignment. Epoch -1 leaves; -2 is a static member leaving for a while.
 *
 * Version 0 lets the coordinator choose the member id (epoch 0 with an empty id); from
 * version 1 the member brings its own (KIP-1082) and SubscribedTopicRegex exists.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import type {
  ConsumerGroupHeartbeatRequestData,
  ConsumerGroupHeartbeatResponseData,
} from '../../protocol/messages/consumer-group-heartbeat.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { assignmentEquals, ownedEquals, toTopicPartitions, type Assignment } from './assignment.js';
import { ConsumerGroupError, fencedMemberEpoch, groupIdNotFound, invalidRequest, unknownMemberId } from './errors.js';
import { fenceMembers, scheduleSessionTimeout, staticMemberLeave } from './fence.js';
import { ConsumerGroup } from './group.js';
import { javaSetOrder } from './java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import {
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  memberEquals,
  newMember,
  newMemberId,
  sameTopicNames,
  usesClassicProtocol,
  type ConsumerGroupMember,
} from './member.js';
import { convertToConsumerGroup, validateOnlineUpgrade } from './migration.js';
import { memberSubscriptionRecord, replaceStaticMember } from './records.js';
import type { OwnedTopicPartitions } from './reconcile.js';
import { maybeUpdateRegularExpressions } from './regex.js';
import { maybeUpdateTargetAssignment, preferredAssignor } from './target.js';
import { maybeReconcile, updateSubscriptionMetadata } from './update.js';
import { writeConsumerGroupRecords } from './write.js';
import { writeRecord } from '../replay.js';
import type { Operation } from '../operation.js';
import { groupMetadataTombstone } from '../records.js';
import type { RequestContext } from '../types.js';
import { consumerHeartbeatIntervalMs } from '../types.js';

type Request = ConsumerGroupHeartbeatRequestData;
type Response = ConsumerGroupHeartbeatResponseData;

export function consumerGroupHeartbeatError(errorCode: number, errorMessage: string | null = null): Response {
  return { throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

export function consumerGroupHeartbeat(s: CoordinatorState, op: Operation, ctx: RequestContext, req: Request): void {
  let response: Response;
  try {
    validate(s, ctx.apiVersion, req);
    const leaving = req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH;
    // A heartbeat may convert a classic group before its own checks fail: undone then.
    response = leaving ? leave(s, op, req) : s.attempt(op, () => heartbeat(s, op, ctx, req));
  } catch (err) {
    if (!(err instanceof ConsumerGroupError)) throw err;
    response = consumerGroupHeartbeatError(err.errorCode, err.message);
  }
  op.reply(ctx.requestId, response);
}

function throwIfEmpty(value: string | null | undefined, message: string): void {
  if (value !== null && value !== undefined && value.trim() === '') throw invalidRequest(message);
}

/** GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid. */
function validate(s: CoordinatorState, apiVersion: number, req: Request): void {
  if (apiVersion >= 1 || req.memberEpoch > 0 || req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) throwIfEmpty(req.memberId, "MemberId can't be empty.");
  throwIfEmpty(req.groupId, "GroupId can't be empty.");
  throwIfEmpty(req.instanceId, "InstanceId can't be empty.");
  throwIfEmpty(req.rackId, "RackId can't be empty.");
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) throw invalidRequest('RebalanceTimeoutMs must be provided in first request.');
    if (req.topicPartitions === null || req.topicPartitions.length > 0) throw invalidRequest('TopicPartitions must be empty when (re-)joining.');
    // An empty list or regex is allowed: a member subscribed to nothing.
    if (req.subscribedTopicNames === null && (req.subscribedTopicRegex ?? null) === null) {
      throw invalidRequest('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
    }
  } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (req.instanceId === null) throw invalidRequest("InstanceId can't be null.");
  } else if (req.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throw invalidRequest('MemberEpoch is invalid.');
  }
  const assignors = s.config.consumerGroupAssignors;
  if (req.serverAssignor !== null && !assignors.includes(req.serverAssignor)) {
    throw new ConsumerGroupError(ErrorCode.UNSUPPORTED_ASSIGNOR, `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${assignors.join(', ')}.`);
  }
}

/** A group id held by a classic group, and whether an Empty one gives way (tombstoned). */
interface GroupLookup {
  readonly group: ConsumerGroup;
  readonly replacesClassic: boolean;
}

/**
 * Kafka's getOrMaybeCreateConsumerGroup. A joining member (epoch 0) may create the group; an
 * Empty classic group of that id is deleted to make room (conversions of empty groups are
 * always allowed); a classic group with members is converted to a consumer group at once
 * (online upgrade, migration.ts), policy permitting.
 */
function consumerGroupFor(s: CoordinatorState, op: Operation, groupId: string, create: boolean): GroupLookup {
  const existing = s.consumerGroups.get(groupId);
  if (existing !== undefined) return { group: existing, replacesClassic: false };
  // A share group never becomes a consumer group (Kafka: a group of another type).
  if (s.shareGroups.has(groupId) || s.streamsGroups.has(groupId)) throw groupIdNotFound(`Group ${groupId} is not a consumer group.`);
  const classic = s.groups.get(groupId);
  if (classic === undefined) {
    if (!create) throw groupIdNotFound(`Consumer group ${groupId} not found.`);
    // Not in the map yet: the records the heartbeat writes create it.
    return { group: new ConsumerGroup(groupId, s.journal), replacesClassic: false };
  }
  if (create && classic.is('Empty')) return { group: new ConsumerGroup(groupId, s.journal), replacesClassic: true };
  if (!create) throw groupIdNotFound(`Group ${groupId} is not a consumer group.`);
  validateOnlineUpgrade(s, classic);
  return { group: convertToConsumerGroup(s, op, classic), replacesClassic: false };
}

function isSubset(owned: readonly OwnedTopicPartitions[] | null, assigned: Assignment): boolean {
  if (owned === null) return false;
  return owned.every((t) => {
    const partitions = assigned.get(t.topicId);
    return partitions !== undefined && t.partitions.every((p) => partitions.includes(p));
  });
}

/**
 * A member at an older epoch is accepted only when it is the previous one and it owns no
 * more than its assignment: the response that bumped it may have been lost. Epoch 0 is a
 * member that lost its place (fenced on its side) joining again under its id: accepted
 * (KAFKA-19233, Kafka 4.2+).
 */
function throwIfEpochInvalid(m: ConsumerGroupMember, received: number, owned: readonly OwnedTopicPartitions[] | null): void {
  if (received === 0) return;
  if (received > m.memberEpoch) {
    throw fencedMemberEpoch(`The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`);
  }
  if (received < m.memberEpoch && (received !== m.previousMemberEpoch || !isSubset(owned, m.assignedPartitions))) {
    throw fencedMemberEpoch(`The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`);
  }
}

function dynamicMember(group: ConsumerGroup, memberId: string, req: Request, create: boolean): ConsumerGroupMember {
  const existing = group.member(memberId);
  if (existing === undefined && !create) throw unknownMemberId(`Member ${memberId} is not a member of group ${group.groupId}.`);
  const member = existing ?? newMember(memberId);
  throwIfEpochInvalid(member, req.memberEpoch, req.topicPartitions);
  return member;
}

/**
 * A static member joining takes over its instance id only once the previous holder left
 * with epoch -2; it keeps that one's assignment under its new member id.
 */
function staticMember(group: ConsumerGroup, memberId: string, instanceId: string, req: Request, create: boolean, records: ConsumerGroupRecord[]): ConsumerGroupMember {
  const existing = group.staticMember(instanceId);
  if (create) {
    if (existing === undefined) return group.member(memberId) ?? newMember(memberId);
    // A classic member gives its instance id up at once (it has no epoch -2 leave).
    if (existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH && !usesClassicProtocol(existing)) {
      throw new ConsumerGroupError(ErrorCode.UNRELEASED_INSTANCE_ID, `Static member ${memberId} with instance id ${instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`);
    }
    // The old member's timers stay: when they fire it is gone and they do nothing.
    return replaceStaticMember(group, existing, memberId, records);
  }
  if (existing === undefined) throw unknownMemberId(`Instance id ${instanceId} is unknown.`);
  if (existing.memberId !== memberId) {
    throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${memberId} with instance id ${instanceId} was fenced by member ${existing.memberId}.`);
  }
  throwIfEpochInvalid(existing, req.memberEpoch, req.topicPartitions);
  return existing;
}

/** Whether the request leaves every field of the member's metadata as it is (a regular heartbeat). */
function saysNothingNew(member: ConsumerGroupMember, ctx: RequestContext, req: Request): boolean {
  return (req.instanceId === null || req.instanceId === member.instanceId)
    && (req.rackId === null || req.rackId === member.rackId)
    && (req.rebalanceTimeoutMs === -1 || req.rebalanceTimeoutMs === member.rebalanceTimeoutMs)
    && (req.serverAssignor === null || req.serverAssignor === member.serverAssignorName)
    && req.subscribedTopicNames === null
    && (req.subscribedTopicRegex === null || req.subscribedTopicRegex === undefined || req.subscribedTopicRegex === member.subscribedTopicRegex)
    && ctx.clientId === member.clientId
    && ctx.clientHost === member.clientHost
    && member.classicMemberMetadata === null;
}

function heartbeat(s: CoordinatorState, op: Operation, ctx: RequestContext, req: Request): Response {
  const groupId = req.groupId;
  const create = req.memberEpoch === 0;
  const { group, replacesClassic } = consumerGroupFor(s, op, groupId, create);
  // Kafka's throwIfConsumerGroupIsFull: a static member taking its instance's place is no new member.
  if (group.staticMember(req.instanceId) === undefined && group.numMembers >= s.config.consumerGroupMaxSize && (req.memberId === '' || !group.members.has(req.memberId))) {
    throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${s.config.consumerGroupMaxSize} members.`);
  }
  const memberId = req.memberId === '' ? newMemberId(s.config.generateUuid) : req.memberId;
  const records: ConsumerGroupRecord[] = [];
  const member = req.instanceId === null ? dynamicMember(group, memberId, req, create) : staticMember(group, memberId, req.instanceId, req, create, records);

  // 1. The member, updated with what the request says (null and -1: unchanged). A regular
  // heartbeat says nothing new: the member is then kept as it is, not copied.
  const updated: ConsumerGroupMember = saysNothingNew(member, ctx, req) ? member : {
    ...member,
    instanceId: req.instanceId ?? member.instanceId,
    rackId: req.rackId ?? member.rackId,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
    serverAssignorName: req.serverAssignor ?? member.serverAssignorName,
    subscribedTopicNames: req.subscribedTopicNames !== null ? javaSetOrder(stringHash, req.subscribedTopicNames) : member.subscribedTopicNames,
    subscribedTopicRegex: req.subscribedTopicRegex ?? member.subscribedTopicRegex,
    clientId: ctx.clientId,
    clientHost: ctx.clientHost,
    classicMemberMetadata: null,
  };
  let namesChanged = false;
  if (updated !== member && !memberEquals(updated, member)) {
    records.push(memberSubscriptionRecord(groupId, updated));
    namesChanged = !sameTopicNames(updated.subscribedTopicNames, member.subscribedTopicNames);
  }
  const regex = maybeUpdateRegularExpressions(s, op, group, member, updated, records, ctx.mayDescribeTopic);
  const hasSubscriptionChanged = namesChanged || regex !== 'none';
  // Kafka 4.4 bumps for new topic names, a regex whose topics are known, or a new preferred
  // assignor; a new group needs no bump of its own (it starts at epoch 1, see group.ts).
  // (The preferred assignor can only change with this member's.)
  const bump = namesChanged || regex === 'resolved'
    || (updated.serverAssignorName !== member.serverAssignorName && preferredAssignor(s, group) !== preferredAssignor(s, group, member, updated));
  const { groupEpoch, type, deadline } = updateSubscriptionMetadata(s, op, group, member, updated, bump, records);

  // 2. A new target assignment when the group epoch moved past the assignment epoch (and the
  // assignment interval allows one); else the last one.
  const target = maybeUpdateTargetAssignment(s, group, groupEpoch, member, updated, type, records, op.nowMs);

  // 3. One step of reconciliation towards the target.
  const reconciled = maybeReconcile(s, op, group, updated, target, hasSubscriptionChanged, req.topicPartitions, records);
  scheduleSessionTimeout(s, op, groupId, memberId);

  if (replacesClassic) writeRecord(s, op, groupMetadataTombstone(groupId));
  writeConsumerGroupRecords(s, op, records, epochReason(group, memberId, hasSubscriptionChanged, bump));
  const written = s.consumerGroups.get(groupId);
  if (written !== undefined && deadline !== null) written.metadataRefreshDeadline = deadline;

  // The assignment goes out when it changed, and on a full request (a join, or a client
  // that lost track), which has every field a rejoin must send. Unlike Kafka, also when the
  // member lists partitions it owns that are not its assignment: it may have missed or
  // dropped the answer that changed it (librdkafka 2.16 under load acknowledged its previous
  // assignment after getting a revocation, and never revoked), and would otherwise keep a
  // partition it must revoke, the group never stable, until its rebalance timeout. A client
  // that has the assignment already takes it again as nothing new.
  const fullRequest = req.rebalanceTimeoutMs !== -1 && (req.subscribedTopicNames !== null || (req.subscribedTopicRegex ?? null) !== null) && req.topicPartitions !== null;
  const withAssignment = req.memberEpoch === 0 || fullRequest || !assignmentEquals(member.assignedPartitions, reconciled.assignedPartitions)
    || (req.topicPartitions !== null && !ownedEquals(req.topicPartitions, reconciled.assignedPartitions));
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: reconciled.memberId,
    memberEpoch: reconciled.memberEpoch,
    heartbeatIntervalMs: consumerHeartbeatIntervalMs(s.config, req.groupId),
    assignment: withAssignment ? { topicPartitions: toTopicPartitions(reconciled.assignedPartitions) } : null,
  };
}

function leave(s: CoordinatorState, op: Operation, req: Request): Response {
  const group = s.consumerGroups.get(req.groupId);
  if (group === undefined) {
    throw groupIdNotFound(s.groups.has(req.groupId) || s.shareGroups.has(req.groupId) || s.streamsGroups.has(req.groupId) ? `Group ${req.groupId} is not a consumer group.` : `Group ${req.groupId} not found.`);
  }
  const response: Response = {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: req.memberId,
    memberEpoch: req.memberEpoch,
    heartbeatIntervalMs: 0,
    assignment: null,
  };
  if (req.instanceId === null) {
    const member = group.member(req.memberId);
    if (member === undefined) throw unknownMemberId(`Member ${req.memberId} is not a member of group ${req.groupId}.`);
    fenceMembers(s, op, group, [member], 'left');
    return response;
  }
  const member = group.staticMember(req.instanceId);
  if (member === undefined) throw unknownMemberId(`Instance id ${req.instanceId} is unknown.`);
  if (member.memberId !== req.memberId) {
    throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${member.memberId}.`);
  }
  if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    staticMemberLeave(s, op, group, member);
    return { ...response, memberId: member.memberId, memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH };
  }
  fenceMembers(s, op, group, [member], 'left');
  return response;
}

/** Why a heartbeat bumps the group epoch (used only when it does). */
function epochReason(group: ConsumerGroup, memberId: string, subscriptionChanged: boolean, bump: boolean): string {
  if (!group.members.has(memberId)) return `member ${memberId} joined`;
  if (subscriptionChanged) return `member ${memberId} updated its subscription`;
  if (bump) return `member ${memberId} changed its server assignor`;
  return 'the metadata of subscribed topics changed';
}
