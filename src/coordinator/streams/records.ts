/**
 * The streams-group records (Kafka's StreamsCoordinatorRecordHelpers): types 17 and 19 to 23
 * as values, built by the operations and applied by replay.ts.
 */
import type { StreamsGroupRecord } from '../../protocol/coordinator-records/streams-group-framing.js';
import type { StreamsTopology } from './topology/types.js';
import { activeTaskEpoch, type StreamsGroupMember } from './member.js';
import { taskSetToList, tasksTupleToLists, type TasksTuple } from './tasks.js';

/** A string map as a key/value list sorted by key, so that equal maps write equal records and replies. */
export function sortedKeyValues(m: ReadonlyMap<string, string>): { key: string; value: string }[] {
  return [...m.keys()].sort().map((key) => ({ key, value: m.get(key)! }));
}

/** Kafka's newStreamsGroupMetadataRecord; the topology description epochs stay at their -1 (Brook keeps no description). */
export function streamsEpochRecord(
  groupId: string, epoch: number, metadataHash: bigint, validatedTopologyEpoch: number, lastAssignmentConfigs: ReadonlyMap<string, string>,
): StreamsGroupRecord {
  return {
    type: 17,
    key: { groupId },
    value: {
      epoch, metadataHash, validatedTopologyEpoch,
      lastAssignmentConfigs: sortedKeyValues(lastAssignmentConfigs),
      storedDescriptionTopologyEpoch: -1, failedDescriptionTopologyEpoch: -1,
    },
  };
}

export function streamsEpochTombstone(groupId: string): StreamsGroupRecord {
  return { type: 17, key: { groupId }, value: null };
}

export function streamsTopologyRecord(groupId: string, topology: StreamsTopology): StreamsGroupRecord {
  return { type: 23, key: { groupId }, value: topology };
}

export function streamsTopologyTombstone(groupId: string): StreamsGroupRecord {
  return { type: 23, key: { groupId }, value: null };
}

/** Client tags sorted by key, so that equal members write equal records. */
export function streamsMemberMetadataRecord(groupId: string, m: StreamsGroupMember): StreamsGroupRecord {
  return {
    type: 19,
    key: { groupId, memberId: m.memberId },
    value: {
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      topologyEpoch: m.topologyEpoch,
      processId: m.processId,
      userEndpoint: m.userEndpoint === null ? null : { host: m.userEndpoint.host, port: m.userEndpoint.port },
      clientTags: sortedKeyValues(m.clientTags),
    },
  };
}

export function streamsMemberMetadataTombstone(groupId: string, memberId: string): StreamsGroupRecord {
  return { type: 19, key: { groupId, memberId }, value: null };
}

export function streamsTargetAssignmentRecord(groupId: string, memberId: string, t: TasksTuple): StreamsGroupRecord {
  return {
    type: 21,
    key: { groupId, memberId },
    value: tasksTupleToLists(t),
  };
}

export function streamsTargetAssignmentTombstone(groupId: string, memberId: string): StreamsGroupRecord {
  return { type: 21, key: { groupId, memberId }, value: null };
}

export function streamsTargetAssignmentEpochRecord(groupId: string, assignmentEpoch: number, timestampMs: number): StreamsGroupRecord {
  return { type: 20, key: { groupId }, value: { assignmentEpoch, assignmentTimestamp: BigInt(timestampMs) } };
}

export function streamsTargetAssignmentEpochTombstone(groupId: string): StreamsGroupRecord {
  return { type: 20, key: { groupId }, value: null };
}

/** Active tasks carry their assignment epochs, one per partition (Kafka 4.4). */
function withEpochs(list: { subtopologyId: string; partitions: number[] }[], m: StreamsGroupMember): { subtopologyId: string; partitions: number[]; assignmentEpochs: number[] }[] {
  return list.map((t) => ({ ...t, assignmentEpochs: t.partitions.map((p) => activeTaskEpoch(m, t.subtopologyId, p) ?? m.memberEpoch) }));
}

export function streamsCurrentAssignmentRecord(groupId: string, m: StreamsGroupMember): StreamsGroupRecord {
  const a = m.assignedTasks;
  const r = m.tasksPendingRevocation;
  return {
    type: 22,
    key: { groupId, memberId: m.memberId },
    value: {
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: m.state,
      activeTasks: withEpochs(taskSetToList(a.activeTasks), m),
      standbyTasks: taskSetToList(a.standbyTasks),
      warmupTasks: taskSetToList(a.warmupTasks),
      activeTasksPendingRevocation: withEpochs(taskSetToList(r.activeTasks), m),
      standbyTasksPendingRevocation: taskSetToList(r.standbyTasks),
      warmupTasksPendingRevocation: taskSetToList(r.warmupTasks),
    },
  };
}

export function streamsCurrentAssignmentTombstone(groupId: string, memberId: string): StreamsGroupRecord {
  return { type: 22, key: { groupId, memberId }, value: null };
}

/** Kafka's removeStreamsMember: the member's three records go, in this order. */
export function streamsMemberTombstones(groupId: string, memberId: string): StreamsGroupRecord[] {
  return [streamsCurrentAssignmentTombstone(groupId, memberId), streamsTargetAssignmentTombstone(groupId, memberId), streamsMemberMetadataTombstone(groupId, memberId)];
}

/** Kafka's StreamsGroup.createGroupTombstoneRecords of an Empty group (DeleteGroups, expiration). */
export function streamsGroupTombstones(groupId: string): StreamsGroupRecord[] {
  return [streamsTargetAssignmentEpochTombstone(groupId), streamsTopologyTombstone(groupId), streamsEpochTombstone(groupId)];
}
