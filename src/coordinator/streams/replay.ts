/**
 * What each streams-group record does to the state (Kafka's GroupMetadataManager.replay
 * methods for record types 17 and 19 to 23). The live path applies the records it writes
 * through the same function, so a restart that replays them rebuilds the same groups.
 */
import type { StreamsGroupRecord } from '../../protocol/coordinator-records/streams-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { newStreamsMember, STREAMS_LEAVE_GROUP_MEMBER_EPOCH, type TaskEpochs } from './member.js';
import { EMPTY_TASKS_TUPLE, taskSetFrom, tasksTupleFrom } from './tasks.js';

export function applyStreamsGroupRecord(s: CoordinatorState, record: StreamsGroupRecord): void {
  const groupId = record.key.groupId;
  if (record.value === null) {
    const group = s.streamsGroups.get(groupId);
    if (group === undefined) return;
    switch (record.type) {
      case 17:
        s.removeStreamsGroup(groupId);
        return;
      case 19:
        group.removeMember(record.key.memberId);
        return;
      case 20:
        group.setAssignmentMetadata(-1, 0);
        return;
      case 21:
        group.removeTargetAssignment(record.key.memberId);
        return;
      case 22: {
        const m = group.member(record.key.memberId);
        if (m !== undefined) {
          group.updateMember({
            ...m,
            memberEpoch: STREAMS_LEAVE_GROUP_MEMBER_EPOCH,
            previousMemberEpoch: STREAMS_LEAVE_GROUP_MEMBER_EPOCH,
            assignedTasks: EMPTY_TASKS_TUPLE,
            tasksPendingRevocation: EMPTY_TASKS_TUPLE,
            activeTaskEpochs: new Map(),
          });
        }
        return;
      }
      case 23:
        group.setTopology(null);
        return;
    }
  }
  const group = s.getOrCreateStreamsGroup(groupId, null);
  switch (record.type) {
    case 17:
      group.setGroupEpoch(record.value.epoch, record.value.metadataHash, record.value.validatedTopologyEpoch ?? -1,
        new Map((record.value.lastAssignmentConfigs ?? []).map((c) => [c.key, c.value])));
      return;
    case 19: {
      const v = record.value;
      const m = group.member(record.key.memberId) ?? newStreamsMember(record.key.memberId);
      group.updateMember({
        ...m,
        instanceId: v.instanceId,
        rackId: v.rackId,
        clientId: v.clientId,
        clientHost: v.clientHost,
        rebalanceTimeoutMs: v.rebalanceTimeoutMs,
        topologyEpoch: v.topologyEpoch,
        processId: v.processId,
        userEndpoint: v.userEndpoint === null ? null : { host: v.userEndpoint.host, port: v.userEndpoint.port },
        clientTags: new Map(v.clientTags.map((t) => [t.key, t.value])),
      });
      return;
    }
    case 20:
      group.setAssignmentMetadata(record.value.assignmentEpoch, Number(record.value.assignmentTimestamp ?? 0n));
      return;
    case 21: {
      const v = record.value;
      group.updateTargetAssignment(record.key.memberId, tasksTupleFrom(v));
      return;
    }
    case 22: {
      const v = record.value;
      const m = group.member(record.key.memberId) ?? newStreamsMember(record.key.memberId);
      group.updateMember({
        ...m,
        memberEpoch: v.memberEpoch,
        previousMemberEpoch: v.previousMemberEpoch,
        state: v.state,
        assignedTasks: tasksTupleFrom(v),
        tasksPendingRevocation: {
          activeTasks: taskSetFrom(v.activeTasksPendingRevocation),
          standbyTasks: taskSetFrom(v.standbyTasksPendingRevocation),
          warmupTasks: taskSetFrom(v.warmupTasksPendingRevocation),
        },
        activeTaskEpochs: epochsFrom([...v.activeTasks, ...v.activeTasksPendingRevocation], v.memberEpoch),
      });
      return;
    }
    case 23:
      group.setTopology(record.value);
      return;
  }
}

/**
 * Kafka 4.4's parseActiveTasksWithEpochs: each partition's assignment epoch; a record without
 * them (or with a different count) gives every partition the member epoch.
 */
function epochsFrom(list: readonly { subtopologyId: string; partitions: readonly number[]; assignmentEpochs?: readonly number[] | null }[], memberEpoch: number): TaskEpochs {
  const out = new Map<string, Map<number, number>>();
  for (const t of list) {
    let sub = out.get(t.subtopologyId);
    if (sub === undefined) out.set(t.subtopologyId, (sub = new Map()));
    const epochs = t.assignmentEpochs;
    const matched = epochs !== null && epochs !== undefined && epochs.length === t.partitions.length;
    t.partitions.forEach((p, i) => sub.set(p, matched ? epochs[i]! : memberEpoch));
  }
  return out;
}
