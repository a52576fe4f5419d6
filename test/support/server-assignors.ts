/**
 * Brook's server-side (KIP-848) assignors on the same input as Kafka's (java-oracle.ts,
 * kafkaServerAssignments): the group spec Kafka's TargetAssignmentBuilder would build from a
 * request, and the assignment as sets, for comparisons. Shared by the interop test
 * server-assignors-java.test.ts and the benchmark bench/scenarios/server-assignors.ts.
 */
import { assignmentFromRecord } from '../../src/coordinator/consumer/assignment.js';
import type { GroupSpec, MemberSubscriptionSpec } from '../../src/coordinator/consumer/assignors/index.js';
import { JavaHashSet } from '../../src/coordinator/consumer/java-hash.js';
import { stringHash } from '../../src/util/string-hash.js';
import type { KafkaServerAssignRequest } from './java-oracle.js';

/** Member id → topics and partitions, in the order an assignor's result lists them. */
export type TopicAssignments = Map<string, { topicId: string; partitions: number[] }[]>;

/**
 * The group spec of `req` as Kafka builds it: members put into a HashMap in the request's
 * order (so listed in Java's iteration order), each member's current assignment as replayed
 * from its record; a partition is assigned when some member's assignment holds it.
 */
export function groupSpecOf(req: KafkaServerAssignRequest): GroupSpec {
  const ids = JavaHashSet.empty(stringHash);
  const specs = new Map<string, MemberSubscriptionSpec>();
  const owners = new Map<string, Set<number>>();
  for (const m of req.members) {
    ids.add(m.memberId);
    specs.set(m.memberId, { instanceId: m.instanceId, rackId: m.rackId, subscribedTopicIds: m.subscribedTopicIds, assignment: assignmentFromRecord(m.assignment) });
    for (const t of m.assignment) {
      let set = owners.get(t.topicId);
      if (set === undefined) owners.set(t.topicId, (set = new Set()));
      for (const p of t.partitions) set.add(p);
    }
  }
  return {
    members: new Map(ids.values().map((id) => [id, specs.get(id)!])),
    subscriptionType: req.subscriptionType,
    isPartitionAssigned: (topicId, p) => owners.get(topicId)?.has(p) ?? false,
  };
}

/** Member → topic → partitions, all sorted: the assignment as sets. */
export function sortedAssignment(a: TopicAssignments): Record<string, Record<string, number[]>> {
  const out: Record<string, Record<string, number[]>> = {};
  for (const [id, topics] of [...a].sort()) {
    out[id] = {};
    for (const t of [...topics].sort((x, y) => (x.topicId < y.topicId ? -1 : 1))) out[id][t.topicId] = [...t.partitions].sort((x, y) => x - y);
  }
  return out;
}
