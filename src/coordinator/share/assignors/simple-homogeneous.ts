/**
 * Kafka's SimpleHomogeneousAssignmentBuilder (share groups whose members all subscribe to the
 * same topics). Every partition goes to `desiredSharing` members (one, unless there are more
 * members than partitions), each member gets its desired count (they differ by one at most),
 * and a member keeps what it had as far as that allows: first what it no longer subscribes to
 * is revoked, then a member's surplus, then a partition's surplus of members, and what is
 * left is handed round the members still short. The maps walked are Java's, in Java's order
 * (simple-shared.ts), so the outcome is Kafka's.
 */
import { intHash, JavaHashSet } from '../../consumer/java-hash.js';
import { PartitionAssignorError, type GroupAssignment, type SubscribedTopicDescriber } from '../../consumer/assignors/spec.js';
import {
  assignRemaining, ChangedAssignments, desiredCounts, desiredSharing, emptyIntSet, helperCapacity, JavaSetMap, topicIdPartitionHash,
  TopicIdPartitions, type TopicIdPartition,
} from './simple-shared.js';
import type { ShareGroupSpec } from './spec.js';

export function assignSimpleHomogeneous(spec: ShareGroupSpec, describer: SubscribedTopicDescriber): GroupAssignment {
  const memberIds = [...spec.members.keys()];
  const numMembers = memberIds.length;
  const old = memberIds.map((id) => spec.members.get(id)!.assignment);
  const subscribed = spec.members.get(memberIds[0]!)!.subscribedTopicIds;
  const tps = new TopicIdPartitions();
  const targets = targetPartitions(spec, subscribed, describer, tps);
  if (subscribed.length === 0) return new Map();
  const subscribedSet = new Set(subscribed);
  const sharing = desiredSharing(numMembers, targets.length);
  const desired = desiredCounts(sharing, targets.length, numMembers);

  const changed = new ChangedAssignments(memberIds, old);
  const byPartition = new JavaSetMap<TopicIdPartition, number>(topicIdPartitionHash, helperCapacity(targets.length), emptyIntSet);
  const byMember = new JavaSetMap<number, TopicIdPartition>(intHash, helperCapacity(numMembers), () => JavaHashSet.empty(topicIdPartitionHash));
  const unfilled = JavaHashSet.withCapacity(intHash, helperCapacity(numMembers));
  const overfilled = JavaHashSet.withCapacity(intHash, helperCapacity(numMembers));

  // What each member had of the subscribed topics; the others are revoked.
  for (let m = 0; m < numMembers; m++) {
    let count = 0;
    for (const [topicId, partitions] of old[m]!) {
      if (!subscribedSet.has(topicId)) {
        changed.of(m).delete(topicId);
        continue;
      }
      for (const p of partitions) {
        const tp = tps.of(topicId, p);
        count++;
        byPartition.setOf(tp).add(m);
        byMember.setOf(m).add(tp);
        if (count >= desired[m]!) changed.of(m);
      }
    }
    if (count < desired[m]!) unfilled.add(m);
    else if (count > desired[m]!) overfilled.add(m);
  }

  // A member's surplus.
  for (const m of overfilled.values()) {
    const set = byMember.get(m)!;
    const want = desired[m]!;
    if (set.size <= want) continue;
    for (const tp of set.values()) {
      changed.of(m).get(tp.topicId)!.delete(tp.partition);
      byPartition.get(tp)!.delete(m);
      set.delete(tp);
      if (set.size === want) break;
    }
  }

  // A partition's surplus of members.
  for (const tp of byPartition.keysInOrder()) {
    const assigned = byPartition.get(tp)!;
    let count = assigned.size;
    if (count <= sharing) continue;
    for (const m of assigned.values()) {
      const partitions = changed.of(m).get(tp.topicId);
      if (partitions !== undefined && partitions.delete(tp.partition)) {
        count--;
        assigned.delete(m);
        byMember.get(m)!.delete(tp);
        unfilled.add(m);
      }
      if (count <= sharing) break;
    }
  }

  for (const tp of targets) byPartition.setOf(tp);
  assignRemaining(byPartition, unfilled, sharing, (m, tp) => {
    changed.add(m, tp.topicId, tp.partition);
    const set = byMember.setOf(m);
    set.add(tp);
    return set.size >= desired[m]!;
  });

  return changed.result();
}

/** The subscribed topics' assignable partitions, topic by topic in subscription order. */
function targetPartitions(spec: ShareGroupSpec, topicIds: readonly string[], describer: SubscribedTopicDescriber, tps: TopicIdPartitions): TopicIdPartition[] {
  const targets: TopicIdPartition[] = [];
  for (const topicId of topicIds) {
    const n = describer.numPartitions(topicId);
    if (n === -1) throw new PartitionAssignorError(`Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`);
    for (let p = 0; p < n; p++) if (spec.isPartitionAssignable(topicId, p)) targets.push(tps.of(topicId, p));
  }
  return targets;
}
