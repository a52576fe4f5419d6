/**
 * The uniform assignor when every member subscribes to the same topics (Kafka's
 * UniformHomogeneousAssignmentBuilder): balance first (sizes differ by at most one), then
 * stickiness. Each member keeps its partitions up to its quota; the rest, with the
 * partitions nobody holds, go to the members below their quota in member order.
 *
 * Members, topics and a member's partitions are walked in Kafka's hash order (the spec's
 * member order, java-hash.ts), which decides who gets the extra partitions and which
 * partitions a member over its quota keeps.
 */
import type { Assignment } from '../assignment.js';
import { JavaHashSet, uuidHash } from '../java-hash.js';
import { MutableAssignment, PartitionAssignorError, type GroupAssignment, type GroupSpec, type SubscribedTopicDescriber } from './spec.js';

export function assignHomogeneous(spec: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
  const memberIds = [...spec.members.keys()];
  const subscribed = JavaHashSet.copyOf(uuidHash, spec.members.get(memberIds[0]!)!.subscribedTopicIds);
  if (subscribed.size === 0) return new Map();

  // The partitions to hand out, in order: topic and partition in two columns (no pair per partition).
  const unassignedTopics: string[] = [];
  const unassignedPartitions: number[] = [];
  let total = 0;
  for (const topicId of subscribed.values()) {
    const n = topics.numPartitions(topicId);
    if (n === -1) throw new PartitionAssignorError(`Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`);
    for (let p = 0; p < n; p++) {
      if (spec.isPartitionAssigned(topicId, p)) continue;
      unassignedTopics.push(topicId);
      unassignedPartitions.push(p);
    }
    total += n;
  }
  const minQuota = Math.floor(total / memberIds.length);
  let extra = total % memberIds.length;

  // Each member keeps what it may of its assignment; what it must give up joins the unassigned.
  const target = new Map<string, Assignment | MutableAssignment>();
  const unfilled: [string, number][] = [];
  memberIds.forEach((memberId, index) => {
    const old = spec.members.get(memberId)!.assignment;
    let copy: MutableAssignment | null = null;
    let quota = minQuota;
    let hasExtra = false;
    if (extra > 0) {
      quota++;
      hasExtra = true;
    }
    for (const [topicId, partitions] of old) {
      if (!subscribed.has(topicId)) {
        (copy ??= MutableAssignment.deepCopy(old)).removeTopic(topicId);
      } else if (partitions.length <= quota) {
        quota -= partitions.length;
      } else {
        for (const p of partitions) {
          if (quota > 0) {
            quota--;
          } else {
            (copy ??= MutableAssignment.deepCopy(old)).remove(topicId, p);
            unassignedTopics.push(topicId);
            unassignedPartitions.push(p);
          }
        }
      }
    }
    // The extra partition is left for another member unless this one is among the last
    // members that must take one.
    if (quota > 0 && hasExtra && memberIds.length - index > extra) {
      quota--;
      hasExtra = false;
    }
    if (quota > 0) unfilled.push([memberId, quota]);
    if (hasExtra) extra--;
    target.set(memberId, copy ?? old);
  });

  let next = 0;
  for (const [memberId, quota] of unfilled) {
    const current = target.get(memberId)!;
    const a = current instanceof MutableAssignment ? current : MutableAssignment.deepCopy(current);
    target.set(memberId, a);
    for (let i = 0; i < quota && next < unassignedTopics.length; i++, next++) a.add(unassignedTopics[next]!, unassignedPartitions[next]!);
  }
  if (next < unassignedTopics.length) throw new PartitionAssignorError('Partitions were left unassigned');
  const result: GroupAssignment = new Map();
  for (const [id, a] of target) result.set(id, a instanceof MutableAssignment ? a.toAssignment() : a);
  return result;
}
