/**
 * The admin side: DescribeGroups, ListGroups and DeleteGroups, after Kafka's
 * GroupMetadataManager.describeGroups / listGroups and GroupCoordinatorShard.deleteGroups,
 * for every group type (DescribeGroups describes classic groups only, as Kafka).
 */
import { ErrorCode } from '../protocol/errors.js';
import { CONSUMER_PROTOCOL_TYPE } from '../protocol/consumer-protocol.js';
import { deleteConsumerGroup } from './consumer/classic-apis.js';
import { deleteShareGroup } from './share/describe.js';
import { deleteStreamsGroup } from './streams/describe.js';
import type { DeleteGroupsRequestData, DeleteGroupsResponseData } from '../protocol/messages/delete-groups.js';
import type {
  DescribeGroupsRequestData,
  DescribeGroupsResponseData,
  DescribeGroupsResponseDescribedGroup,
  DescribedGroupMember,
} from '../protocol/messages/describe-groups.js';
import type { ListGroupsRequestData, ListGroupsResponseData, ListedGroup } from '../protocol/messages/list-groups.js';
import type { CoordinatorState } from './coordinator-state.js';
import type { ClassicGroup } from './classic/group.js';
import type { Operation } from './operation.js';
import { groupMetadataTombstone, offsetCommitTombstone, type GroupCoordinatorRecord } from './records.js';
import { stateFromFilter, type GroupState } from './classic/state.js';
import { assertNever, type RequestContext } from './types.js';
import { writeRecords } from './replay.js';

/** Kafka's authorizedOperations value for "not requested". */
const OPERATIONS_NOT_REQUESTED = -2147483648;

/** ListGroups v5's groupType of classic, KIP-848 consumer, KIP-932 share and KIP-1071 streams groups. */
const CLASSIC_GROUP_TYPE = 'classic';
const CONSUMER_GROUP_TYPE = 'consumer';
/** A share group's type, and its protocol type (Kafka's ShareGroup.protocolType). */
const SHARE_GROUP_TYPE = 'share';
/** A streams group's type, and its protocol type (Kafka's StreamsGroup.PROTOCOL_TYPE). */
const STREAMS_GROUP_TYPE = 'streams';

function describeGroup(group: ClassicGroup): DescribeGroupsResponseDescribedGroup {
  // Member metadata is only meaningful once a protocol is chosen and stable; in other
  // states Kafka sends the members without it.
  const stable = group.is('Stable') && group.protocolName !== null;
  const members: DescribedGroupMember[] = [...group.members.values()].map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    memberMetadata: stable ? m.metadata(group.protocolName!) : Buffer.alloc(0),
    memberAssignment: m.assignment,
  }));
  return {
    errorCode: ErrorCode.NONE,
    groupId: group.groupId,
    groupState: group.state,
    protocolType: group.protocolType ?? '',
    protocolData: stable ? group.protocolName! : '',
    members,
    authorizedOperations: OPERATIONS_NOT_REQUESTED,
  };
}

/**
 * A group that is not a classic one (unknown, or a consumer group) is described as Dead: with
 * no error up to v5, with GROUP_ID_NOT_FOUND and Kafka's message from v6 (KIP-1043).
 */
function deadGroup(groupId: string, version: number, why: string): DescribeGroupsResponseDescribedGroup {
  const dead: GroupState = 'Dead';
  const described: DescribeGroupsResponseDescribedGroup = {
    errorCode: ErrorCode.NONE,
    groupId,
    groupState: dead,
    protocolType: '',
    protocolData: '',
    members: [],
    authorizedOperations: OPERATIONS_NOT_REQUESTED,
  };
  return version >= GROUP_ID_NOT_FOUND_VERSION ? { ...described, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: why } : described;
}

/** DescribeGroups v6 answers a group it cannot describe with GROUP_ID_NOT_FOUND. */
const GROUP_ID_NOT_FOUND_VERSION = 6;

export function describeGroups(s: CoordinatorState, op: Operation, ctx: RequestContext, req: DescribeGroupsRequestData): void {
  const withOperations = ctx.apiVersion >= 3 && (req.includeAuthorizedOperations ?? false);
  const groups = req.groups.map((groupId) => {
    const group = s.groups.get(groupId);
    let described: DescribeGroupsResponseDescribedGroup;
    if (group !== undefined) described = describeGroup(group);
    else if (s.consumerGroups.has(groupId) || s.shareGroups.has(groupId) || s.streamsGroups.has(groupId)) described = deadGroup(groupId, ctx.apiVersion, `Group ${groupId} is not a classic group.`);
    else described = deadGroup(groupId, ctx.apiVersion, `Group ${groupId} not found.`);
    if (withOperations && described.errorCode === ErrorCode.NONE) described.authorizedOperations = s.config.groupAuthorizedOperations;
    // groupInstanceId exists from v4 (ignorable, but keep the body faithful to the version).
    if (ctx.apiVersion < 4) for (const m of described.members) m.groupInstanceId = null;
    return described;
  });
  op.reply(ctx.requestId, { throttleTimeMs: 0, groups } satisfies DescribeGroupsResponseData);
}

/**
 * v4+ may filter by state (case-insensitive), v5+ by type. An unknown state or type in a
 * filter matches nothing, as in Kafka.
 */
export function listGroups(s: CoordinatorState, op: Operation, ctx: RequestContext, req: ListGroupsRequestData): void {
  const statesFilter = ctx.apiVersion >= 4 ? (req.statesFilter ?? []) : [];
  const typesFilter = ctx.apiVersion >= 5 ? (req.typesFilter ?? []) : [];
  const states = new Set(statesFilter.map(stateFromFilter));
  const types = new Set(typesFilter.map((t) => t.trim().toLowerCase()));
  const typeMatches = types.size === 0 || types.has(CLASSIC_GROUP_TYPE);
  const groups: ListedGroup[] = [];
  for (const group of s.groups.values()) {
    if (statesFilter.length > 0 && !states.has(group.state)) continue;
    if (!typeMatches) continue;
    groups.push({
      groupId: group.groupId,
      protocolType: group.protocolType ?? '',
      groupState: ctx.apiVersion >= 4 ? group.state : '',
      groupType: ctx.apiVersion >= 5 ? CLASSIC_GROUP_TYPE : '',
    });
  }
  // Consumer groups (KIP-848): type and protocol type "consumer", their own states.
  const lowerStates = new Set(statesFilter.map((st) => st.trim().toLowerCase()));
  for (const group of s.consumerGroups.values()) {
    if (lowerStates.size > 0 && !lowerStates.has(group.state.toLowerCase())) continue;
    if (types.size > 0 && !types.has(CONSUMER_GROUP_TYPE)) continue;
    groups.push({
      groupId: group.groupId,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      groupState: ctx.apiVersion >= 4 ? group.state : '',
      groupType: ctx.apiVersion >= 5 ? CONSUMER_GROUP_TYPE : '',
    });
  }
  for (const group of s.shareGroups.values()) {
    if (lowerStates.size > 0 && !lowerStates.has(group.state.toLowerCase())) continue;
    if (types.size > 0 && !types.has(SHARE_GROUP_TYPE)) continue;
    groups.push({
      groupId: group.groupId,
      protocolType: SHARE_GROUP_TYPE,
      groupState: ctx.apiVersion >= 4 ? group.state : '',
      groupType: ctx.apiVersion >= 5 ? SHARE_GROUP_TYPE : '',
    });
  }
  for (const group of s.streamsGroups.values()) {
    if (lowerStates.size > 0 && !lowerStates.has(group.state.toLowerCase())) continue;
    if (types.size > 0 && !types.has(STREAMS_GROUP_TYPE)) continue;
    groups.push({
      groupId: group.groupId,
      protocolType: STREAMS_GROUP_TYPE,
      groupState: ctx.apiVersion >= 4 ? group.state : '',
      groupType: ctx.apiVersion >= 5 ? STREAMS_GROUP_TYPE : '',
    });
  }
  op.reply(ctx.requestId, { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups } satisfies ListGroupsResponseData);
}

function deleteGroupError(group: ClassicGroup | undefined): number {
  if (group === undefined) return ErrorCode.GROUP_ID_NOT_FOUND;
  switch (group.state) {
    case 'Dead':
      return ErrorCode.GROUP_ID_NOT_FOUND;
    case 'Stable':
    case 'PreparingRebalance':
    case 'CompletingRebalance':
      return ErrorCode.NON_EMPTY_GROUP;
    case 'Empty':
      return ErrorCode.NONE;
    default:
      return assertNever(group.state, 'group state');
  }
}

/** Only Empty groups can go: tombstones for every offset, then for the group. */
export function deleteGroups(s: CoordinatorState, op: Operation, ctx: RequestContext, req: DeleteGroupsRequestData): void {
  const results: DeleteGroupsResponseData['results'] = [];
  // Kafka's KafkaApis drops duplicate names.
  for (const groupId of new Set(req.groupsNames)) {
    const shareGroup = s.shareGroups.get(groupId);
    if (shareGroup !== undefined) {
      // Kafka's ShareGroup.validateDeleteGroup: only an Empty group.
      const empty = shareGroup.numMembers === 0;
      if (empty) deleteShareGroup(s, op, shareGroup);
      results.push({ groupId, errorCode: empty ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP });
      continue;
    }
    const streamsGroup = s.streamsGroups.get(groupId);
    if (streamsGroup !== undefined) {
      // Kafka's StreamsGroup.validateDeleteGroup: only an Empty group; its offsets go first.
      const empty = streamsGroup.numMembers === 0;
      if (empty) {
        writeRecords(s, op, s.offsets.partitionsOf(groupId).map(({ topic, partition }) => offsetCommitTombstone(groupId, topic, partition)));
        deleteStreamsGroup(s, op, streamsGroup);
      }
      results.push({ groupId, errorCode: empty ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP });
      continue;
    }
    const consumerGroup = s.consumerGroups.get(groupId);
    if (consumerGroup !== undefined) {
      // Kafka's ConsumerGroup.validateDeleteGroup: only an Empty group; its offsets go first.
      const empty = consumerGroup.numMembers === 0;
      if (empty) {
        writeRecords(s, op, s.offsets.partitionsOf(groupId).map(({ topic, partition }) => offsetCommitTombstone(groupId, topic, partition)));
        deleteConsumerGroup(s, op, consumerGroup);
        op.event({ type: 'group-deleted', groupType: 'consumer', groupId, reason: 'DeleteGroups' });
      }
      results.push({ groupId, errorCode: empty ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP });
      continue;
    }
    const error = deleteGroupError(s.groups.get(groupId));
    if (error === ErrorCode.NONE) {
      const records: GroupCoordinatorRecord[] = s.offsets
        .partitionsOf(groupId)
        .map(({ topic, partition }) => offsetCommitTombstone(groupId, topic, partition));
      records.push(groupMetadataTombstone(groupId));
      writeRecords(s, op, records);
      op.event({ type: 'group-deleted', groupType: 'classic', groupId, reason: 'DeleteGroups' });
    }
    results.push({ groupId, errorCode: error });
  }
  op.reply(ctx.requestId, { throttleTimeMs: 0, results } satisfies DeleteGroupsResponseData);
}
