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

export function writeConsumerGroupRecords(s: CoordinatorState, op: Operation, records: readonly ConsumerGroupRecord[], reason: string | null): void {
  const first = records[0];
  if (first === undefined) return;
  const groupId = first.key.groupId;
  const before = reason === null ? undefined : s.consumerGroups.get(groupId);
  const epochBefore = before?.groupEpoch ?? INITIAL_GROUP_EPOCH;
  const stateBefore: ConsumerGroupState = before?.state ?? 'Empty';
  for (const record of records) {
    if (reason !== null && record.type === 5 && record.value !== null && s.consumerGroups.get(groupId)?.member(record.key.memberId) === undefined) {
      const v = record.value;
      op.event({
        type: 'member-joined', groupType: 'consumer', groupId, memberId: record.key.memberId, groupInstanceId: v.instanceId,
        clientId: v.clientId, clientHost: v.clientHost, protocol: (v.classicMemberMetadata ?? null) === null ? 'consumer' : 'classic',
      });
    }
    applyConsumerGroupRecord(s, record, op.nowMs);
    op.record(encodeConsumerGroupRecord(record));
  }
  if (reason === null) return;
  const after = s.consumerGroups.get(groupId);
  if (after === undefined) return;
  const bumped = after.groupEpoch > epochBefore;
  if (bumped) op.event({ type: 'rebalance-started', groupType: 'consumer', groupId, generation: after.groupEpoch, members: after.numMembers, reason });
  const state = after.state;
  if ((state === 'Stable' || state === 'Empty') && (bumped || state !== stateBefore)) {
    op.event({ type: 'rebalance-completed', groupType: 'consumer', groupId, generation: after.groupEpoch, members: after.numMembers, state });
  }
}
