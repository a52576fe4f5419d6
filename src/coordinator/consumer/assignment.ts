/**
 * A member's partitions, as Kafka keeps them: topic id → partition ids. Maps and arrays hold
 * them in the order Kafka's in-memory Java maps and sets iterate them (java-hash.ts), which
 * the uniform assignor's outcome depends on; comparisons are set comparisons.
 */
import { intHash, JavaHashSet, javaSetOrder, uuidHash } from './java-hash.js';

export type Assignment = ReadonlyMap<string, readonly number[]>;

export const EMPTY_ASSIGNMENT: Assignment = new Map();

export interface TopicPartitions {
  readonly topicId: string;
  readonly partitions: readonly number[];
}

/**
 * The assignment a record's topic list gives once Kafka replays it (Assignment.fromRecord,
 * Utils.assignmentFromTopicPartitions): a HashMap filled in list order, each partition list
 * copied into a HashSet.
 */
export function assignmentFromRecord(topics: readonly TopicPartitions[]): Assignment {
  const keys = JavaHashSet.empty(uuidHash);
  const byTopic = new Map<string, readonly number[]>();
  for (const t of topics) {
    keys.add(t.topicId);
    byTopic.set(t.topicId, javaSetOrder(intHash, t.partitions));
  }
  return new Map(keys.values().map((id) => [id, byTopic.get(id)!]));
}

/** The assignment as a record's (or a response's) topic list, in iteration order. */
export function toTopicPartitions(a: Assignment): { topicId: string; partitions: number[] }[] {
  return [...a].map(([topicId, partitions]) => ({ topicId, partitions: [...partitions] }));
}

/** Set equality, as Java's Map<Uuid, Set<Integer>>.equals. */
export function assignmentEquals(a: Assignment, b: Assignment): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [topicId, partitions] of a) {
    const other = b.get(topicId);
    if (other === undefined || other.length !== partitions.length) return false;
    const set = new Set(other);
    for (const p of partitions) if (!set.has(p)) return false;
  }
  return true;
}

/** Whether the partitions a member says it owns (a heartbeat's topicPartitions) are exactly `a`. */
export function ownedEquals(owned: readonly { readonly topicId: string; readonly partitions: readonly number[] }[], a: Assignment): boolean {
  let topics = 0;
  for (const t of owned) {
    if (t.partitions.length === 0) continue;
    topics++;
    const assigned = a.get(t.topicId);
    if (assigned === undefined || assigned.length !== new Set(t.partitions).size) return false;
    for (const p of t.partitions) if (!assigned.includes(p)) return false;
  }
  return topics === a.size;
}

export function hasPartition(a: Assignment, topicId: string, partition: number): boolean {
  return a.get(topicId)?.includes(partition) ?? false;
}
