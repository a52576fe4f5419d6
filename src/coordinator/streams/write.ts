/**
 * Writes streams-group records: each is applied through the replay path (replay.ts) and
 * handed to the runtime for `__consumer_offsets`, in order, as share/write.ts does; it tells
 * what they did (events.ts): a member whose metadata is written for the first time joined; a
 * new group epoch starts a rebalance (`reason` says why); the group Stable again, or without
 * members, completes it.
 */
import { encodeStreamsGroupRecord, type StreamsGroupRecord } from '../../protocol/coordinator-records/streams-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import { INITIAL_GROUP_EPOCH } from '../consumer/group.js';
import { applyStreamsGroupRecord } from './replay.js';
import { memberStateName } from '../consumer/member.js';
import type { PartitionsByName } from '../events.js';
import type { TaskSet } from './tasks.js';

/** Active tasks as the flight recorder lists them: partitions by subtopology id, ascending. */
function tasksByName(tasks: TaskSet): PartitionsByName {
  const out = new Map<string, readonly number[]>();
  for (const [subtopology, partitions] of tasks) out.set(subtopology, [...partitions].sort((a, b) => a - b));
  return out;
}

export function writeStreamsGroupRecords(s: CoordinatorState, op: Operation, records: readonly StreamsGroupRecord[], reason: string | null): void {
  const first = records[0];
  if (first === undefined) return;
  const groupId = first.key.groupId;
  const before = reason === null ? undefined : s.streamsGroups.get(groupId);
  const epochBefore = before?.groupEpoch ?? INITIAL_GROUP_EPOCH;
  const stateBefore = before?.state ?? 'Empty';
  // Members whose current assignment was written: told after the rebalance this write may start.
  let steps: string[] | null = null;
  for (const record of records) {
    if (reason !== null && record.type === 19 && record.value !== null && s.streamsGroups.get(groupId)?.member(record.key.memberId) === undefined) {
      const v = record.value;
      op.event({ type: 'member-joined', groupType: 'streams', groupId, memberId: record.key.memberId, groupInstanceId: v.instanceId, clientId: v.clientId, clientHost: v.clientHost, protocol: 'streams' });
    }
    applyStreamsGroupRecord(s, record);
    op.record(encodeStreamsGroupRecord(record));
    if (reason !== null && record.type === 22 && record.value !== null) (steps ??= []).push(record.key.memberId);
  }
  if (reason === null) return;
  const after = s.streamsGroups.get(groupId);
  if (after === undefined) return;
  const bumped = after.groupEpoch > epochBefore;
  if (bumped) op.event({ type: 'rebalance-started', groupType: 'streams', groupId, generation: after.groupEpoch, members: after.numMembers, reason });
  for (const memberId of steps ?? []) {
    const m = after.member(memberId);
    if (m === undefined) continue;
    op.event({
      type: 'member-reconciled', groupType: 'streams', groupId, memberId, memberEpoch: m.memberEpoch,
      state: memberStateName(m.state), assigned: tasksByName(m.assignedTasks.activeTasks), revoking: tasksByName(m.tasksPendingRevocation.activeTasks),
    });
  }
  const state = after.state;
  if ((state === 'Stable' || state === 'Empty') && (bumped || stateBefore !== state)) {
    op.event({ type: 'rebalance-completed', groupType: 'streams', groupId, generation: after.groupEpoch, members: after.numMembers, state });
  }
}
