/**
 * Reconciliation (Kafka 4.4's CurrentAssignmentBuilder): moves a member from its current
 * assignment towards its target, one safe step at a time. A partition reaches its new owner
 * only once the previous owner has revoked it: the member first gives up what it must
 * (UNREVOKED_PARTITIONS, same epoch, until its heartbeat no longer lists them), then moves
 * to the target epoch with the target partitions that are free, waiting in
 * UNRELEASED_PARTITIONS for those still held by others.
 *
 * Each partition keeps the epoch at which the member got it (Kafka 4.4's assignment epochs,
 * which OffsetCommit checks): kept and revoked partitions their old one, newly assigned ones
 * the target epoch.
 *
 * Only the topics the member subscribes to count: when its subscription changed, partitions
 * of topics it left are revoked at once, before any new target (Kafka 4.2+), and a target
 * still naming such a topic gives the member none of it.
 */
import { fencedMemberEpoch } from './errors.js';
import type { Assignment } from './assignment.js';
import { assignmentEpochOf, MemberState, withMemberEpoch, type AssignmentEpochs, type ConsumerGroupMember } from './member.js';

export interface OwnedTopicPartitions {
  readonly topicId: string;
  readonly partitions: readonly number[];
}

export interface Reconciliation {
  readonly targetAssignmentEpoch: number;
  readonly targetAssignment: Assignment;
  /** The epoch of the member holding a partition, -1 when it is free. */
  readonly currentPartitionEpoch: (topicId: string, partition: number) => number;
  /** What the member's heartbeat says it owns; null when it did not say. */
  readonly owned: readonly OwnedTopicPartitions[] | null;
  /** The ids of the existing topics the member subscribes to (names and resolved regex). */
  readonly subscribedTopicIds: ReadonlySet<string>;
  /** The request changed the member's topic names or regex. */
  readonly hasSubscriptionChanged: boolean;
}

export function reconcile(member: ConsumerGroupMember, r: Reconciliation): ConsumerGroupMember {
  switch (member.state) {
    case MemberState.STABLE:
      if (member.memberEpoch !== r.targetAssignmentEpoch) return nextAssignment(member, r, member.memberEpoch);
      return r.hasSubscriptionChanged ? dropUnsubscribed(member, r) : member;
    case MemberState.UNREVOKED_PARTITIONS:
      // Revoked once the heartbeat no longer lists them; then on to the target.
      if (ownsAnyOf(r.owned, member.partitionsPendingRevocation)) return r.hasSubscriptionChanged ? dropUnsubscribed(member, r) : member;
      return nextAssignment(member, r, member.memberEpoch);
    case MemberState.UNRELEASED_PARTITIONS:
      return nextAssignment(member, r, member.memberEpoch);
    case MemberState.UNKNOWN:
      // Written by a newer coordinator: start again from nothing.
      if (r.owned === null || r.owned.length > 0) {
        throw fencedMemberEpoch('The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.');
      }
      return nextAssignment(member, r, r.targetAssignmentEpoch);
  }
}

/** Whether the owned partitions include any of `pending`; not knowing counts as yes. */
function ownsAnyOf(owned: readonly OwnedTopicPartitions[] | null, pending: Assignment): boolean {
  if (owned === null) return true;
  for (const t of owned) {
    const revoking = pending.get(t.topicId);
    if (revoking !== undefined && t.partitions.some((p) => revoking.includes(p))) return true;
  }
  return false;
}

function nextAssignment(member: ConsumerGroupMember, r: Reconciliation, memberEpoch: number): ConsumerGroupMember {
  let hasUnreleased = false;
  const assigned = new Map<string, number[]>();
  const revoking = new Map<string, number[]>();
  const toAssign = new Map<string, number[]>();
  const topicIds = new Set([...r.targetAssignment.keys(), ...member.assignedPartitions.keys()]);
  for (const topicId of topicIds) {
    const target = new Set(r.subscribedTopicIds.has(topicId) ? (r.targetAssignment.get(topicId) ?? []) : []);
    const current = member.assignedPartitions.get(topicId) ?? [];
    const ownPending = member.partitionsPendingRevocation.get(topicId) ?? [];
    // Kept: current ∩ target; revoked: current − kept; to assign: target − kept, if free
    // (a partition this member itself is still revoking counts as free for it).
    const kept = current.filter((p) => target.has(p));
    const revoked = current.filter((p) => !target.has(p));
    const keptSet = new Set(kept);
    const pending: number[] = [];
    for (const p of target) {
      if (keptSet.has(p)) continue;
      if (r.currentPartitionEpoch(topicId, p) !== -1 && !ownPending.includes(p)) hasUnreleased = true;
      else pending.push(p);
    }
    if (kept.length > 0) assigned.set(topicId, kept);
    if (revoked.length > 0) revoking.set(topicId, revoked);
    if (pending.length > 0) toAssign.set(topicId, pending);
  }

  if (revoking.size > 0 && ownsAnyOf(r.owned, revoking)) {
    // Stay at the current epoch until the member confirms the revocation.
    return {
      ...withMemberEpoch(member, memberEpoch), state: MemberState.UNREVOKED_PARTITIONS,
      assignedPartitions: sorted(assigned), partitionsPendingRevocation: sorted(revoking), assignmentEpochs: epochsOf(member, [assigned, revoking], new Map(), r.targetAssignmentEpoch),
    };
  }
  const assignmentEpochs = epochsOf(member, [assigned], toAssign, r.targetAssignmentEpoch);
  for (const [topicId, partitions] of toAssign) assigned.set(topicId, [...(assigned.get(topicId) ?? []), ...partitions]);
  // Waiting for partitions others still hold, or done.
  const state = hasUnreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
  return {
    ...withMemberEpoch(member, r.targetAssignmentEpoch), state,
    assignedPartitions: sorted(assigned), partitionsPendingRevocation: new Map(), assignmentEpochs,
  };
}

/**
 * The epochs of `kept` (partitions of the member's assignment: the epochs it got them at) and
 * of `fresh` (newly assigned, `freshEpoch`; also a partition it was still revoking).
 */
function epochsOf(member: ConsumerGroupMember, kept: readonly ReadonlyMap<string, readonly number[]>[], fresh: ReadonlyMap<string, readonly number[]>, freshEpoch: number): AssignmentEpochs {
  const out = new Map<string, Map<number, number>>();
  const put = (topicId: string, p: number, epoch: number): void => {
    const byPartition = out.get(topicId) ?? new Map<number, number>();
    byPartition.set(p, epoch);
    out.set(topicId, byPartition);
  };
  for (const a of kept) for (const [topicId, partitions] of a) for (const p of partitions) put(topicId, p, assignmentEpochOf(member, topicId, p) ?? freshEpoch);
  for (const [topicId, partitions] of fresh) for (const p of partitions) put(topicId, p, freshEpoch);
  return out;
}

/**
 * Kafka's updateCurrentAssignment: a member at its target whose subscription changed gives
 * up, at once, the partitions of topics it no longer subscribes to (all of them when it
 * subscribes to nothing); they wait for its revocation as any other.
 */
function dropUnsubscribed(member: ConsumerGroupMember, r: Reconciliation): ConsumerGroupMember {
  const assigned = new Map(member.assignedPartitions);
  const revoking = new Map(member.partitionsPendingRevocation);
  let changed = false;
  for (const [topicId, partitions] of member.assignedPartitions) {
    if (r.subscribedTopicIds.has(topicId)) continue;
    assigned.delete(topicId);
    revoking.set(topicId, [...new Set([...(revoking.get(topicId) ?? []), ...partitions])]);
    changed = true;
  }
  if (!changed) return member;
  if (revoking.size > 0 && ownsAnyOf(r.owned, revoking)) {
    return { ...withMemberEpoch(member, member.memberEpoch), state: MemberState.UNREVOKED_PARTITIONS, assignedPartitions: sorted(assigned), partitionsPendingRevocation: sorted(revoking) };
  }
  // Already revoked by the member: it keeps its state, with what is left.
  return { ...withMemberEpoch(member, member.memberEpoch), assignedPartitions: sorted(assigned) };
}

/** Partitions in ascending order: the order only shows in records and responses. */
function sorted(a: ReadonlyMap<string, readonly number[]>): Assignment {
  return new Map([...a].map(([topicId, ps]) => [topicId, [...ps].sort((x, y) => x - y)]));
}
