/**
 * The groups' metrics, computed at scrape time from the coordinator's read-only views and
 * the partitions' log end offsets: members, state, generation, rebalances, and per committed
 * offset the lag (group-lag.ts).
 */
import { CONSUMER_GROUP_STATES, GROUP_STATES, type GroupCoordinator, type GroupType } from '../../coordinator/index.js';
import type { Storage } from '../../storage/types.js';
import { escapeLabelValue, type Exposition } from './exposition.js';
import type { FlightRecorder } from '../flight-recorder/recorder.js';
import { committedLags } from '../group-lag.js';

/** Each type's states, Kafka's names; Dead too, which a group is only on its way out. */
const STATES: Readonly<Record<GroupType, readonly string[]>> = {
  classic: GROUP_STATES,
  consumer: [...CONSUMER_GROUP_STATES, 'Dead'],
  share: ['Empty', 'Stable', 'Dead'],
  streams: ['Empty', 'NotReady', 'Assigning', 'Reconciling', 'Stable', 'Dead'],
};

export function renderGroupMetrics(e: Exposition, coordinator: GroupCoordinator, rebalances: ReadonlyMap<string, number>, storage: Storage, recorder: FlightRecorder): void {
  const groups = coordinator.groupSummaries();
  const pairs = groups.map((g) => `group="${escapeLabelValue(g.groupId)}"`);

  e.family('brook_group_members', 'gauge', 'Members of the group (a consumer group counts members of both protocols).');
  groups.forEach((g, i) => e.sample('brook_group_members', pairs[i]!, g.members));

  e.family('brook_group_state', 'gauge', 'The group\'s state, Kafka\'s names: 1 for the current state, 0 for the other states of its type (classic: Empty, PreparingRebalance, CompletingRebalance, Stable, Dead; consumer: Empty, Assigning, Reconciling, Stable, Dead; share: Empty, Stable, Dead).');
  groups.forEach((g, i) => {
    for (const state of STATES[g.groupType]) e.sample('brook_group_state', `${pairs[i]!},state="${state}"`, g.state === state ? 1 : 0);
  });

  e.family('brook_group_generation', 'gauge', 'The group\'s generation id (classic) or group epoch (consumer, share).');
  groups.forEach((g, i) => e.sample('brook_group_generation', pairs[i]!, g.generation));

  e.family('brook_group_rebalances_total', 'counter', 'Rebalances started since the broker started: a classic group entering PreparingRebalance, a consumer or share group\'s new group epoch.');
  groups.forEach((g, i) => e.sample('brook_group_rebalances_total', pairs[i]!, rebalances.get(g.groupId) ?? 0));

  // From the flight recorder, for the groups it saw rebalance since start-up.
  e.family('brook_group_rebalance_time_to_stable_seconds', 'histogram', 'Per rebalance, the time from its start to the group being Stable (or Empty) again: how long consumption was paused.');
  for (const [groupId, h] of recorder.timeToStable) e.histogram('brook_group_rebalance_time_to_stable_seconds', `group="${escapeLabelValue(groupId)}"`, h.snapshot());
  e.family('brook_group_partitions_moved_total', 'counter', 'Partitions (streams groups: active tasks) whose owner changed in the group\'s rebalances since start-up.');
  for (const [groupId, n] of recorder.partitionsMoved) e.sample('brook_group_partitions_moved_total', `group="${escapeLabelValue(groupId)}"`, n);

  // Offsets of groups with or without a group object (a simple consumer's commits).
  const offsets = committedLags(coordinator, storage).map((o) => ({
    pairs: `group="${escapeLabelValue(o.groupId)}",topic="${escapeLabelValue(o.topic)}",partition="${o.partition}"`, committed: o.committed, lag: o.lag,
  }));
  e.family('brook_group_committed_offset', 'gauge', 'The offset the group committed for the partition.');
  for (const o of offsets) e.sample('brook_group_committed_offset', o.pairs, o.committed);
  e.family('brook_group_lag', 'gauge', 'Records the group has not committed yet: the partition\'s log end offset minus the committed offset.');
  for (const o of offsets) e.sample('brook_group_lag', o.pairs, o.lag);
}
