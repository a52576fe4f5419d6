/**
 * Kafka's SimpleHeterogeneousAssignmentBuilder (share groups whose members subscribe to
 * different topics): the homogeneous rules applied to each topic on its own, among the
 * members subscribed to it. The maps walked are Java's, in Java's order (simple-shared.ts).
 *
 * As in Kafka, a topic no member subscribes to any more is left where it was, and a member
 * keeps a topic it dropped while others still subscribe to it only until the topic's
 * surplus is revoked (its desired count for the topic is 0).
 */
import type { Assignment } from '../../consumer/assignment.js';
import { intHash, JavaHashSet, uuidHash } from '../../consumer/java-hash.js';
import { PartitionAssignorError, type GroupAssignment, type SubscribedTopicDescriber } from '../../consumer/assignors/spec.js';
import { assignRemaining, ChangedAssignments, desiredCounts, desiredSharing, emptyIntSet, helperCapacity, JavaSetMap } from './simple-shared.js';
import type { ShareGroupSpec } from './spec.js';

export function assignSimpleHeterogeneous(spec: ShareGroupSpec, describer: SubscribedTopicDescriber): GroupAssignment {
  const memberIds = [...spec.members.keys()];
  const numMembers = memberIds.length;
  const old = memberIds.map((id) => spec.members.get(id)!.assignment);
  const topics = JavaHashSet.empty(uuidHash);
  for (const id of memberIds) for (const topicId of spec.members.get(id)!.subscribedTopicIds) topics.add(topicId);
  const topicIds = topics.values();

  const targetsByTopic = new Map<string, number[]>();
  for (const topicId of topicIds) {
    const n = describer.numPartitions(topicId);
    if (n === -1) throw new PartitionAssignorError(`Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`);
    const targets: number[] = [];
    for (let p = 0; p < n; p++) if (spec.isPartitionAssignable(topicId, p)) targets.push(p);
    targetsByTopic.set(topicId, targets);
  }
  const subscribersByTopic = new Map<string, number[]>();
  memberIds.forEach((id, m) => {
    for (const topicId of spec.members.get(id)!.subscribedTopicIds) {
      let list = subscribersByTopic.get(topicId);
      if (list === undefined) subscribersByTopic.set(topicId, (list = []));
      list.push(m);
    }
  });
  if (topicIds.length === 0) return new Map();

  const changed = new ChangedAssignments(memberIds, old);
  for (const topicId of topicIds) assignTopic(topicId, targetsByTopic.get(topicId)!, subscribersByTopic.get(topicId)!, numMembers, old, changed);
  return changed.result();
}

/** Kafka's TopicAssignmentPartialBuilder: one topic's partitions among its subscribers. */
function assignTopic(
  topicId: string, targets: readonly number[], subscribers: readonly number[], numMembers: number,
  old: readonly Assignment[], changed: ChangedAssignments,
): void {
  const byPartition = new JavaSetMap<number, number>(intHash, helperCapacity(targets.length), emptyIntSet);
  const byMember = new JavaSetMap<number, number>(intHash, helperCapacity(subscribers.length), emptyIntSet);
  const sharing = desiredSharing(subscribers.length, targets.length);
  const desired = new Array<number>(numMembers).fill(0);
  desiredCounts(sharing, targets.length, subscribers.length).forEach((count, i) => { desired[subscribers[i]!] = count; });

  // What each member had of the topic (every member: one that dropped it is over its count of 0).
  for (let m = 0; m < numMembers; m++) {
    const partitions = old[m]!.get(topicId);
    if (partitions === undefined) continue;
    for (const p of partitions) {
      byPartition.setOf(p).add(m);
      byMember.setOf(m).add(p);
    }
  }

  // A member's surplus.
  for (const m of byMember.keysInOrder()) {
    const set = byMember.get(m)!;
    const want = desired[m]!;
    for (const p of set.values()) {
      if (set.size <= want) break;
      byPartition.get(p)!.delete(m);
      set.delete(p);
      changed.of(m).get(topicId)!.delete(p);
    }
  }

  // A partition's surplus of members.
  for (const p of byPartition.keysInOrder()) {
    const assigned = byPartition.get(p)!;
    let count = assigned.size;
    if (count <= sharing) continue;
    for (const m of assigned.values()) {
      const partitions = changed.of(m).get(topicId);
      if (partitions !== undefined && partitions.delete(p)) {
        count--;
        assigned.delete(m);
        byMember.get(m)!.delete(p);
      }
      if (count <= sharing) break;
    }
  }

  const newMemberSet = (): JavaHashSet<number> => JavaHashSet.withCapacity(intHash, helperCapacity(subscribers.length));
  for (const p of targets) byPartition.setOf(p, newMemberSet);
  const unfilled = JavaHashSet.withCapacity(intHash, helperCapacity(numMembers));
  for (const m of subscribers) if ((byMember.get(m)?.size ?? 0) < desired[m]!) unfilled.add(m);
  assignRemaining(byPartition, unfilled, sharing, (m, p) => {
    changed.add(m, topicId, p);
    const set = byMember.setOf(m);
    set.add(p);
    return set.size >= desired[m]!;
  });
}
