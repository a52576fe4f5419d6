/**
 * A new target assignment for a streams group (Kafka's streams TargetAssignmentBuilder):
 * every member (the updated one in place) with its process, client tags and current target,
 * handed to the task assignor with the configured topology; a record for each member whose
 * target changed (and a new member's, even when empty), then the assignment epoch and the
 * time it was computed. Without a ready topology there are no tasks: every member's target
 * is empty.
 */
import { compareIds, javaPutOrder } from '../consumer/java-hash.js';
import { canComputeNextTargetAssignment } from '../consumer/target.js';
import { stringHash } from '../../util/string-hash.js';
import type { StreamsGroupRecord } from '../../protocol/coordinator-records/streams-group-framing.js';
import type { Status } from '../../protocol/messages/streams-group-heartbeat.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { streamsAssignmentIntervalMs, streamsNumStandbyReplicas } from '../types.js';
import type { StreamsAssignorMember, TopologyDescriber } from './assignor/types.js';
import type { StreamsGroup } from './group.js';
import type { StreamsGroupMember } from './member.js';
import { streamsTargetAssignmentEpochRecord, streamsTargetAssignmentRecord } from './records.js';
import { EMPTY_TASKS, EMPTY_TASKS_TUPLE, tasksTupleEquals, type TasksTuple } from './tasks.js';
import { StreamsGroupStatus, type ConfiguredTopology } from './topology/types.js';

export interface StreamsTargetAssignment {
  readonly epoch: number;
  readonly assignment: TasksTuple;
}

const NO_SUBTOPOLOGIES: TopologyDescriber = { subtopologies: () => [], maxNumInputPartitions: () => 0, isStateful: () => false };

/** Kafka's TopologyMetadata: what the assignor knows of a configured topology. */
export function topologyDescriber(configured: ConfiguredTopology | null): TopologyDescriber {
  const subs = configured?.error === null ? configured.subtopologies : null;
  if (subs === null || subs === undefined) return NO_SUBTOPOLOGIES;
  const ids = [...subs.keys()].sort();
  return {
    subtopologies: () => ids,
    maxNumInputPartitions: (id) => subs.get(id)?.numberOfTasks ?? 0,
    isStateful: (id) => (subs.get(id)?.stateChangelogTopics.size ?? 0) > 0,
  };
}

function assignorMember(group: StreamsGroup, m: StreamsGroupMember): StreamsAssignorMember {
  const target = group.targetAssignmentOf(m.memberId);
  const offsets = group.taskOffsets(m.memberId);
  return {
    memberId: m.memberId,
    instanceId: m.instanceId,
    rackId: m.rackId,
    processId: m.processId,
    clientTags: m.clientTags,
    activeTasks: target.activeTasks,
    standbyTasks: target.standbyTasks,
    warmupTasks: target.warmupTasks,
    taskOffsets: offsets.taskOffsets,
    taskEndOffsets: offsets.taskEndOffsets,
  };
}

/**
 * Computes the target at `groupEpoch` for every member (with `updatedMember` in place, when
 * given), appends its records and returns the updated member's target.
 */
export function computeStreamsTargetAssignment(
  s: CoordinatorState,
  group: StreamsGroup,
  groupEpoch: number,
  configured: ConfiguredTopology | null,
  updatedMember: StreamsGroupMember | null,
  records: StreamsGroupRecord[],
  nowMs: number,
): StreamsTargetAssignment {
  // The members as Kafka's HashMap of member specs iterates them (its order breaks the
  // assignor's ties); put by member id, so that a replayed group assigns as the live one.
  const updatedId = updatedMember?.memberId;
  const members = javaPutOrder(stringHash, group.members.keys(), compareIds, updatedId)
    .map((id) => (id === updatedId ? updatedMember! : group.members.get(id)!));
  const result = s.config.streamsGroupAssignor.assign(
    {
      members: members.map((m) => assignorMember(group, m)),
      configs: { numStandbyReplicas: streamsNumStandbyReplicas(s.config, group.groupId), rackAwareAssignmentTags: [] },
    },
    topologyDescriber(configured),
  );
  let mine: TasksTuple = { activeTasks: EMPTY_TASKS, standbyTasks: EMPTY_TASKS, warmupTasks: EMPTY_TASKS };
  for (const m of members) {
    const a = result.get(m.memberId);
    const next: TasksTuple = { activeTasks: a?.activeTasks ?? EMPTY_TASKS, standbyTasks: a?.standbyTasks ?? EMPTY_TASKS, warmupTasks: EMPTY_TASKS };
    const old = group.targetAssignment.get(m.memberId);
    if (old === undefined || !tasksTupleEquals(old, next)) records.push(streamsTargetAssignmentRecord(group.groupId, m.memberId, next));
    if (m.memberId === updatedMember?.memberId) mine = next;
  }
  records.push(streamsTargetAssignmentEpochRecord(group.groupId, groupEpoch, nowMs));
  return { epoch: groupEpoch, assignment: mine };
}

/** Kafka 4.4's ASSIGNMENT_DELAYED details (StreamsGroupHeartbeatResponse statuses). */
export const INITIAL_REBALANCE_DELAYED: Status = { statusCode: StreamsGroupStatus.ASSIGNMENT_DELAYED, statusDetail: 'Assignment delayed due to the configured initial rebalance delay.' };
export const ASSIGNMENT_INTERVAL_DELAYED: Status = { statusCode: StreamsGroupStatus.ASSIGNMENT_DELAYED, statusDetail: 'Assignment delayed due to the configured assignment interval.' };

/**
 * Kafka 4.4's maybeUpdateStreamsTargetAssignment: while a new group's initial rebalance delay
 * runs, no target at all (every member's is empty); when the assignment epoch caught up with
 * the group epoch, the current target; when the last target was computed less than
 * `group.streams.assignment.interval.ms` ago, the current target too (the next heartbeat
 * after the interval computes it: Kafka sets no timer for it); otherwise a new target at
 * `groupEpoch`. The two delays are told to the member as ASSIGNMENT_DELAYED statuses (none
 * when `statuses` is null: the initial delay's own timer).
 */
export function maybeUpdateStreamsTargetAssignment(
  s: CoordinatorState,
  group: StreamsGroup,
  groupEpoch: number,
  configured: ConfiguredTopology | null,
  updatedMember: StreamsGroupMember | null,
  records: StreamsGroupRecord[],
  statuses: Status[] | null,
  initialDelayRunning: boolean,
  nowMs: number,
): StreamsTargetAssignment {
  if (initialDelayRunning) {
    statuses?.push(INITIAL_REBALANCE_DELAYED);
    return { epoch: group.assignmentEpoch, assignment: EMPTY_TASKS_TUPLE };
  }
  const current = { epoch: group.assignmentEpoch, assignment: updatedMember === null ? EMPTY_TASKS_TUPLE : group.targetAssignmentOf(updatedMember.memberId) };
  if (group.assignmentEpoch >= groupEpoch) return current;
  if (!canComputeNextTargetAssignment(group.assignmentTimestampMs, streamsAssignmentIntervalMs(s.config, group.groupId), nowMs)) {
    statuses?.push(ASSIGNMENT_INTERVAL_DELAYED);
    return current;
  }
  return computeStreamsTargetAssignment(s, group, groupEpoch, configured, updatedMember, records, nowMs);
}
