/**
 * Writes consumer-group records: each is applied to the state through the replay path
 * (replay.ts) and handed to the runtime for `__consumer_offsets`, in order, as Kafka's
 * runtime replays the records of a result as it appends them.
 *
 * It also tells what the records did to the group (events.ts), since every change goes
 * through here: a member whose metadata is written for the first time joined; a new group
 * epoch starts a rebalance (`reason` says why: Kafka bumps the epoch for a new member, a
 * changed subscription, new topic metadata or a member leaving); the group reaching Stable
 * (every member at the target epoch), or Empty, completes it. Members leaving are told by
 * their callers (fence.ts), who know why; conversions and deletions pass a null reason and
 * tell their own story.
 */
import { encodeConsumerGroupRecord, type ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import { INITIAL_GROUP_EPOCH, type ConsumerGroupState } from './group.js';
import { applyConsumerGroupRecord } from './replay.js';
import { memberStateName } from './member.js';
import type { Assignment } from './assignment.js';
import type { PartitionsByName } from '../events.js';

/** A member's current assignment was written: one step of its reconciliation, with topic names. */
function reconciled(s: CoordinatorState, op: Operation, groupId: string, memberId: string): void {
  const member = s.consumerGroups.get(groupId)?.member(memberId);
  if (member === undefined) return;
  op.event({
    type: 'member-reconciled', groupType: 'consumer', groupId, memberId, memberEpoch: member.memberEpoch,
    state: memberStateName(member.state), assigned: byName(s, member.assignedPartitions), revoking: byName(s, member.partitionsPendingRevocation),
  });
}

/** An assignment by topic name (topics no longer known go by their id). */
export function byName(s: CoordinatorState, a: Assignment): PartitionsByName {
  const out = new Map<string, readonly number[]>();
  for (const [topicId, partitions] of a) out.set(s.metadata.byId(topicId)?.name ?? topicId, partitions);
  return out;
}

export function writeConsumerGroupRecords(s: CoordinatorState, op: Operation, records: readonly ConsumerGroupRecord[], reason: string | null): void {
  const first = records[0];
  if (first === undefined) return;
  const groupId = first.key.groupId;
  const before = reason === null ? undefined : s.consumerGroups.get(groupId);
  const epochBefore = before?.groupEpoch ?? INITIAL_GROUP_EPOCH;
  const stateBefore: ConsumerGroupState = before?.state ?? 'Empty';
  // Static members whose records this write removes: one joining under the same instance id replaces it.
  let removedStatic: Map<string, string> | null = null;
  // Members whose current assignment was written: told after the rebalance this write may start.
  let steps: string[] | null = null;
  for (const record of records) {
    if (reason !== null && record.type === 5) {
      const existing = s.consumerGroups.get(groupId)?.member(record.key.memberId);
      if (record.value === null && existing?.instanceId != null) (removedStatic ??= new Map()).set(existing.instanceId, existing.memberId);
      if (record.value !== null && existing === undefined) {
        const v = record.value;
        op.event({
          type: 'member-joined', groupType: 'consumer', groupId, memberId: record.key.memberId, groupInstanceId: v.instanceId,
          clientId: v.clientId, clientHost: v.clientHost, protocol: (v.classicMemberMetadata ?? null) === null ? 'consumer' : 'classic',
        });
        const replaced = v.instanceId === null ? undefined : removedStatic?.get(v.instanceId);
        if (replaced !== undefined && v.instanceId !== null) {
          op.event({ type: 'member-replaced', groupType: 'consumer', groupId, groupInstanceId: v.instanceId, oldMemberId: replaced, newMemberId: record.key.memberId });
        }
      }
    }
    applyConsumerGroupRecord(s, record, op.nowMs);
    op.record(encodeConsumerGroupRecord(record));
    if (reason !== null && record.type === 8 && record.value !== null) (steps ??= []).push(record.key.memberId);
  }
  if (reason === null) return;
  const after = s.consumerGroups.get(groupId);
  if (after === undefined) return;
  const bumped = after.groupEpoch > epochBefore;
  if (bumped) op.event({ type: 'rebalance-started', groupType: 'consumer', groupId, generation: after.groupEpoch, members: after.numMembers, reason });
  for (const memberId of steps ?? []) reconciled(s, op, groupId, memberId);
  const state = after.state;
  if ((state === 'Stable' || state === 'Empty') && (bumped || state !== stateBefore)) {
    op.event({ type: 'rebalance-completed', groupType: 'consumer', groupId, generation: after.groupEpoch, members: after.numMembers, state });
  }
}
