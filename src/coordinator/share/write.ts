/**
 * Writes share-group records: each is applied through the replay path (replay.ts) and handed
 * to the runtime for `__consumer_offsets`, in order, as consumer/write.ts does for consumer
 * groups; it tells what they did (events.ts): a member whose metadata is written for the
 * first time joined; a new group epoch starts a rebalance (`reason` says why); the group's
 * members all at the assignment epoch, or none left, completes it. Share members take their
 * target at once, so a rebalance completes with the heartbeat that computes the assignment
 * for the last member to get it.
 */
import { encodeShareGroupRecord, type ShareGroupRecord } from '../../protocol/coordinator-records/share-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import { INITIAL_GROUP_EPOCH } from '../consumer/group.js';
import type { ShareGroup } from './group.js';
import { applyShareGroupRecord } from './replay.js';
import { memberStateName } from '../consumer/member.js';
import { byName } from '../consumer/write.js';

/** Every member at the target epoch: the rebalance is over. */
function reconciled(group: ShareGroup): boolean {
  for (const m of group.members.values()) if (m.memberEpoch !== group.assignmentEpoch) return false;
  return group.assignmentEpoch >= group.groupEpoch;
}

export function writeShareGroupRecords(s: CoordinatorState, op: Operation, records: readonly ShareGroupRecord[], reason: string | null): void {
  const first = records[0];
  if (first === undefined) return;
  const groupId = first.key.groupId;
  const before = reason === null ? undefined : s.shareGroups.get(groupId);
  const epochBefore = before?.groupEpoch ?? INITIAL_GROUP_EPOCH;
  const doneBefore = before === undefined || reconciled(before);
  // Members whose assignment was written: told after the rebalance this write may start.
  let steps: string[] | null = null;
  for (const record of records) {
    if (reason !== null && record.type === 10 && record.value !== null && s.shareGroups.get(groupId)?.member(record.key.memberId) === undefined) {
      const v = record.value;
      op.event({ type: 'member-joined', groupType: 'share', groupId, memberId: record.key.memberId, groupInstanceId: null, clientId: v.clientId, clientHost: v.clientHost, protocol: 'share' });
    }
    applyShareGroupRecord(s, record, op.nowMs);
    op.record(encodeShareGroupRecord(record));
    if (reason !== null && record.type === 14 && record.value !== null) (steps ??= []).push(record.key.memberId);
  }
  if (reason === null) return;
  const after = s.shareGroups.get(groupId);
  if (after === undefined) return;
  const bumped = after.groupEpoch > epochBefore;
  if (bumped) op.event({ type: 'rebalance-started', groupType: 'share', groupId, generation: after.groupEpoch, members: after.numMembers, reason });
  for (const memberId of steps ?? []) {
    const m = after.member(memberId);
    if (m === undefined) continue;
    op.event({
      type: 'member-reconciled', groupType: 'share', groupId, memberId, memberEpoch: m.memberEpoch,
      state: memberStateName(m.state), assigned: byName(s, m.assignedPartitions), revoking: new Map(),
    });
  }
  const done = reconciled(after);
  if (done && (bumped || !doneBefore)) {
    op.event({ type: 'rebalance-completed', groupType: 'share', groupId, generation: after.groupEpoch, members: after.numMembers, state: after.state });
  }
}
