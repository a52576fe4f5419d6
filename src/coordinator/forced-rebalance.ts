/**
 * A rebalance forced from outside the group's requests (a test's control). A consumer, share
 * or streams group has its group epoch bumped, as a change of its subscribed topics' metadata
 * would: nothing else changes, and each member's next heartbeat finds the group epoch ahead
 * of the assignment epoch, so the coordinator computes a new target assignment and the
 * members reconcile to the new epoch. A classic group is made to prepare a rebalance.
 */
import type { CoordinatorState } from './coordinator-state.js';
import type { Operation } from './operation.js';
import { prepareRebalance } from './classic/rebalance.js';
import { epochRecord } from './consumer/records.js';
import { writeConsumerGroupRecords } from './consumer/write.js';
import { shareEpochRecord } from './share/records.js';
import { writeShareGroupRecords } from './share/write.js';
import { streamsEpochRecord } from './streams/records.js';
import { writeStreamsGroupRecords } from './streams/write.js';

/** The kind of group a forced rebalance would act on, or null: no group, or one that cannot rebalance now (empty, or classic and already rebalancing). */
export function rebalanceableGroupType(s: CoordinatorState, groupId: string): 'classic' | 'consumer' | 'share' | 'streams' | null {
  const classic = s.groups.get(groupId);
  if (classic !== undefined) return !classic.is('Empty') && classic.canRebalance() ? 'classic' : null;
  if ((s.consumerGroups.get(groupId)?.numMembers ?? 0) > 0) return 'consumer';
  if ((s.shareGroups.get(groupId)?.numMembers ?? 0) > 0) return 'share';
  if ((s.streamsGroups.get(groupId)?.numMembers ?? 0) > 0) return 'streams';
  return null;
}

export function forceRebalance(s: CoordinatorState, op: Operation, groupId: string, reason: string): void {
  switch (rebalanceableGroupType(s, groupId)) {
    case 'classic':
      prepareRebalance(s, op, s.groups.get(groupId)!, reason);
      return;
    case 'consumer': {
      const group = s.consumerGroups.get(groupId)!;
      writeConsumerGroupRecords(s, op, [epochRecord(groupId, group.groupEpoch + 1)], reason);
      return;
    }
    case 'share': {
      const group = s.shareGroups.get(groupId)!;
      writeShareGroupRecords(s, op, [shareEpochRecord(groupId, group.groupEpoch + 1, group.metadataHash)], reason);
      return;
    }
    case 'streams': {
      const group = s.streamsGroups.get(groupId)!;
      writeStreamsGroupRecords(s, op, [streamsEpochRecord(groupId, group.groupEpoch + 1, group.metadataHash, group.validatedTopologyEpoch, group.lastAssignmentConfigs)], reason);
      return;
    }
    case null:
      return;
  }
}
