/**
 * What Kafka's share-group assignment builders hold in Java maps and sets, with the
 * iteration order Java gives them (../../consumer/java-hash.ts): the builders walk them, and
 * which member keeps or gets a partition follows that order.
 */
import type { Assignment } from '../../consumer/assignment.js';
import { intHash, JavaHashSet, uuidHash } from '../../consumer/java-hash.js';

/** AssignorHelpers.newHashMap / newHashSet: `new HashMap<>((int) ((n + 1) / 0.75f + 1))`, in float. */
export function helperCapacity(n: number): number {
  return Math.trunc(Math.fround(Math.fround(Math.fround(n + 1) / Math.fround(0.75)) + 1));
}

/** A Java HashMap from keys to HashSets of member or partition numbers, filled with computeIfAbsent. */
export class JavaSetMap<K> {
  private readonly keys: JavaHashSet<K>;
  private readonly sets = new Map<K, JavaHashSet<number>>();

  constructor(hash: (k: K) => number, initialCapacity: number) {
    this.keys = JavaHashSet.withCapacity(hash, initialCapacity);
  }

  /** computeIfAbsent(key, k -> newSet()): the key's set, created (at the head of its bucket, as Java does) when absent. */
  setOf(key: K, newSet: () => JavaHashSet<number> = emptyIntSet): JavaHashSet<number> {
    this.keys.addFirst(key);
    let set = this.sets.get(key);
    if (set === undefined) {
      set = newSet();
      this.sets.set(key, set);
    }
    return set;
  }

  get(key: K): JavaHashSet<number> | undefined {
    return this.sets.get(key);
  }

  /** The keys in Java's iteration order (a snapshot). */
  keysInOrder(): readonly K[] {
    return this.keys.values();
  }
}

/** `new HashSet<>()` of Integers. */
export function emptyIntSet(): JavaHashSet<number> {
  return JavaHashSet.empty(intHash);
}

/** A partition of a topic, one object per pair (keys compare by identity); the hash of Kafka's TopicIdPartition record. */
export interface TopicIdPartition {
  readonly topicId: string;
  readonly partition: number;
  /** Objects.hash-like record hash: 31 * topicId.hashCode() + partition. */
  readonly hash: number;
}

export class TopicIdPartitions {
  private readonly byKey = new Map<string, TopicIdPartition>();

  of(topicId: string, partition: number): TopicIdPartition {
    const key = `${topicId}:${partition}`;
    let tp = this.byKey.get(key);
    if (tp === undefined) {
      tp = { topicId, partition, hash: (Math.imul(uuidHash(topicId), 31) + partition) | 0 };
      this.byKey.set(key, tp);
    }
    return tp;
  }
}

export function topicIdPartitionHash(tp: TopicIdPartition): number {
  return tp.hash;
}

/**
 * A member's assignment as the builders change it: AssignorHelpers.deepCopyAssignment of the
 * spec's. Only membership is read from it afterwards, so plain sets do.
 */
export type ChangedAssignment = Map<string, Set<number>>;

export function deepCopy(a: Assignment): ChangedAssignment {
  return new Map([...a].map(([topicId, partitions]) => [topicId, new Set(partitions)]));
}

/** The builders' result for each member: the changed assignment, or the spec's when untouched. */
export function toAssignment(changed: ChangedAssignment | undefined, old: Assignment): Assignment {
  if (changed === undefined) return old;
  return new Map([...changed].map(([topicId, partitions]) => [topicId, [...partitions]]));
}

/**
 * The desired assignment count of each of `members` members so that every one of `partitions`
 * partitions is shared `sharing` times, spread as Kafka spreads it (in doubles, rounded up).
 */
export function desiredCounts(sharing: number, partitions: number, members: number): number[] {
  const precise = (sharing * partitions) / members;
  const counts = new Array<number>(members);
  for (let i = 0; i < members; i++) counts[i] = Math.ceil(precise * (i + 1)) - Math.ceil(precise * i);
  return counts;
}

/** How many members each partition should have: every member gets one at least. */
export function desiredSharing(members: number, partitions: number): number {
  return partitions === 0 ? 0 : Math.trunc((members + partitions - 1) / partitions);
}
