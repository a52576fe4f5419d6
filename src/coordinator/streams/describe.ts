/**
 * StreamsGroupDescribe (KIP-1071), after Kafka 4.4's GroupMetadataManager.streamsGroupDescribe
 * and StreamsGroup.asDescribedGroup: each group's state, epochs, topology (partition counts
 * of internal topics from the configured topology once it is ready), and each member's process,
 * client tags, user endpoint, task offsets, current and target tasks; and the deletion of an
 * Empty streams group. The topology description (Kafka 4.4's describe plugin) is not kept.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { compareStrings } from '../../util/range-split.js';
import type {
  StreamsGroupDescribeRequestData,
  StreamsGroupDescribeResponseData,
  StreamsGroupDescribeResponseDescribedGroup,
  StreamsGroupDescribeResponseTaskOffset,
  StreamsGroupDescribeResponseTopology,
} from '../../protocol/messages/streams-group-describe.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import { OPERATIONS_NOT_REQUESTED } from '../consumer/describe.js';
import type { RequestContext } from '../types.js';
import type { StreamsGroup } from './group.js';
import { sortedKeyValues, streamsGroupTombstones } from './records.js';
import { tasksTupleToLists } from './tasks.js';
import { writeStreamsGroupRecords } from './write.js';
import { describeTopology as describeConfiguredTopology } from './topology/describe.js';

function notDescribed(groupId: string, errorCode: number, errorMessage: string | null): StreamsGroupDescribeResponseDescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, topology: null, members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED };
}

function offsets(m: ReadonlyMap<string, ReadonlyMap<number, bigint>>): StreamsGroupDescribeResponseTaskOffset[] {
  const out: StreamsGroupDescribeResponseTaskOffset[] = [];
  for (const sub of [...m.keys()].sort()) {
    const ps = m.get(sub)!;
    for (const p of [...ps.keys()].sort((a, b) => a - b)) out.push({ subtopologyId: sub, partition: p, offset: ps.get(p)! });
  }
  return out;
}

/**
 * The topology as StreamsGroupDescribe shows it (Kafka's StreamsGroup.asDescribedGroup): the
 * configured topology once it is ready (decided partition counts), else the topology as the
 * members sent it.
 */
export function describeTopology(group: StreamsGroup): StreamsGroupDescribeResponseTopology | null {
  const configured = group.configuredTopology;
  if (configured !== null && configured.error === null && configured.subtopologies !== null) return describeConfiguredTopology(configured);
  const t = group.topology;
  if (t === null) return null;
  return {
    epoch: t.epoch,
    subtopologies: [...t.subtopologies].sort((a, b) => compareStrings(a.subtopologyId, b.subtopologyId)).map((s) => ({
      subtopologyId: s.subtopologyId,
      sourceTopics: [...s.sourceTopics],
      repartitionSinkTopics: [...s.repartitionSinkTopics],
      stateChangelogTopics: s.stateChangelogTopics.map((c) => ({
        name: c.name, partitions: c.partitions, replicationFactor: c.replicationFactor,
        topicConfigs: c.topicConfigs.map((x) => ({ key: x.key, value: x.value })),
      })),
      repartitionSourceTopics: s.repartitionSourceTopics.map((c) => ({
        name: c.name, partitions: c.partitions, replicationFactor: c.replicationFactor,
        topicConfigs: c.topicConfigs.map((x) => ({ key: x.key, value: x.value })),
      })),
    })),
  };
}

export function describeStreamsGroup(s: CoordinatorState, group: StreamsGroup): StreamsGroupDescribeResponseDescribedGroup {
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupId: group.groupId,
    groupState: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    topology: describeTopology(group),
    members: [...group.members.values()].sort((a, b) => compareStrings(a.memberId, b.memberId)).map((m) => {
      const o = group.taskOffsets(m.memberId);
      return {
        memberId: m.memberId,
        memberEpoch: m.memberEpoch,
        instanceId: m.instanceId,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        topologyEpoch: m.topologyEpoch,
        processId: m.processId,
        userEndpoint: m.userEndpoint === null ? null : { host: m.userEndpoint.host, port: m.userEndpoint.port },
        clientTags: sortedKeyValues(m.clientTags),
        taskOffsets: offsets(o.taskOffsets),
        taskEndOffsets: offsets(o.taskEndOffsets),
        assignment: tasksTupleToLists(m.assignedTasks),
        targetAssignment: tasksTupleToLists(group.targetAssignmentOf(m.memberId)),
        isClassic: false,
      };
    }),
    authorizedOperations: OPERATIONS_NOT_REQUESTED,
    assignorName: s.config.streamsGroupAssignor.name,
  };
}

export function streamsGroupDescribe(s: CoordinatorState, op: Operation, ctx: RequestContext, req: StreamsGroupDescribeRequestData): void {
  const invalid: StreamsGroupDescribeResponseDescribedGroup[] = [];
  const described: StreamsGroupDescribeResponseDescribedGroup[] = [];
  for (const groupId of req.groupIds) {
    if (groupId === '') {
      invalid.push(notDescribed('', ErrorCode.INVALID_GROUP_ID, null));
      continue;
    }
    const group = s.streamsGroups.get(groupId);
    if (group === undefined) {
      const other = s.groups.has(groupId) || s.consumerGroups.has(groupId) || s.shareGroups.has(groupId);
      described.push(notDescribed(groupId, ErrorCode.GROUP_ID_NOT_FOUND, other ? `Group ${groupId} is not a streams group.` : `Group ${groupId} not found.`));
      continue;
    }
    const d = describeStreamsGroup(s, group);
    if (req.includeAuthorizedOperations) d.authorizedOperations = s.config.groupAuthorizedOperations;
    described.push(d);
  }
  op.reply(ctx.requestId, { throttleTimeMs: 0, groups: [...invalid, ...described] } satisfies StreamsGroupDescribeResponseData);
}

/** DeleteGroups of an Empty streams group: Kafka's createGroupTombstoneRecords. */
export function deleteStreamsGroup(s: CoordinatorState, op: Operation, group: StreamsGroup): void {
  writeStreamsGroupRecords(s, op, streamsGroupTombstones(group.groupId), null);
  op.event({ type: 'group-deleted', groupType: 'streams', groupId: group.groupId, reason: 'DeleteGroups' });
}
