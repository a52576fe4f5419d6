/**
 * The classic group's states and the transitions allowed between them, as Kafka's
 * `ClassicGroupState`. The names are the wire names (DescribeGroups, ListGroups).
 */
export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

export const GROUP_STATES: readonly GroupState[] = [
  'Empty',
  'PreparingRebalance',
  'CompletingRebalance',
  'Stable',
  'Dead',
];

/** For each state, the states a group may be in just before entering it. */
export const VALID_PREVIOUS_STATES: { readonly [S in GroupState]: ReadonlySet<GroupState> } = {
  // The last member left (or timed out) and the join phase completed with nobody.
  Empty: new Set<GroupState>(['PreparingRebalance']),
  // A member joined, left, changed its protocols, or the leader rejoined.
  PreparingRebalance: new Set<GroupState>(['Stable', 'CompletingRebalance', 'Empty']),
  // Every member rejoined (or the rebalance timeout expired): waiting for the leader's assignment.
  CompletingRebalance: new Set<GroupState>(['PreparingRebalance']),
  // The leader's assignment arrived.
  Stable: new Set<GroupState>(['CompletingRebalance']),
  // The group was deleted or unloaded.
  Dead: new Set<GroupState>(['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead']),
};

/** Lower-case names, which ListGroups' state filter matches case-insensitively. */
export function stateFromFilter(name: string): GroupState | undefined {
  const wanted = name.trim().toLowerCase();
  return GROUP_STATES.find((s) => s.toLowerCase() === wanted);
}

