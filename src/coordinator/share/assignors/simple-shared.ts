/**
 * What the simple assignor's two builders share: the Java maps and sets Kafka's builders
 * hold, with the iteration order Java gives them (../../consumer/java-hash.ts; the builders
 * walk them, and which member keeps or gets a partition follows that order), the members'
 * assignments as they change, and the last step, handing out what is left.
 */
import type { Assignment } from '../../consumer/assignment.js';
import { PartitionAssignorError, type GroupAssignment } from '../../consumer/assignors/spec.js';
import { intHash, JavaHashSet, uuidHash } from '../../consumer/java-hash.js';

/** AssignorHelpers.newHashMap / newHashSet: `new HashMap<>((int) ((n + 1) / 0.75f + 1))`, in float. */
export function helperCapacity(n: number): number {
  return Math.trunc(Math.fround(Math.fround(Math.fround(n + 1) / Math.fround(0.75)) + 1));
}

/** A Java HashMap from keys to HashSets (of members or partitions), filled with computeIfAbsent. */
export class JavaSetMap<K, V> {
  private readonly keys: JavaHashSet<K>;
  private readonly sets = new Map<K, JavaHashSet<V>>();

  constructor(hash: (k: K) => number, initialCapacity: number, private readonly newSet: () => JavaHashSet<V>) {
    this.keys = JavaHashSet.withCapacity(hash, initialCapacity);
  }

  /** computeIfAbsent(key, k -> newSet()): the key's set, created (at the head of its bucket, as Java does) when absent. */
  setOf(key: K, newSet: () => JavaHashSet<V> = this.newSet): JavaHashSet<V> {
    this.keys.addFirst(key);
    let set = this.sets.get(key);
    if (set === undefined) {
      set = newSet();
      this.sets.set(key, set);
    }
    return set;
  }

  get(key: K): JavaHashSet<V> | undefined {
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
 * The members' assignments as the builders change them, by member index: a member's is
 * copied from the spec's (AssignorHelpers.deepCopyAssignment) the first time it changes.
 * Only membership is read from the copies afterwards, so plain sets do.
 */
export class ChangedAssignments {
  private readonly changed = new Map<number, Map<string, Set<number>>>();

  constructor(private readonly memberIds: readonly string[], private readonly old: readonly Assignment[]) {}

  /** The member's changed assignment, copied from the spec's now if it was not yet. */
  of(m: number): Map<string, Set<number>> {
    let a = this.changed.get(m);
    if (a === undefined) {
      a = new Map([...this.old[m]!].map(([topicId, partitions]) => [topicId, new Set(partitions)]));
      this.changed.set(m, a);
    }
    return a;
  }

  /** Adds a partition to the member's assignment. */
  add(m: number, topicId: string, partition: number): void {
    const a = this.of(m);
    let partitions = a.get(topicId);
    if (partitions === undefined) a.set(topicId, (partitions = new Set()));
    partitions.add(partition);
  }

  /** Every member's assignment: the changed one, or the spec's when untouched (a topic emptied stays, as in Kafka). */
  result(): GroupAssignment {
    const result: GroupAssignment = new Map();
    this.memberIds.forEach((id, m) => {
      const a = this.changed.get(m);
      result.set(id, a === undefined ? this.old[m]! : new Map([...a].map(([topicId, partitions]) => [topicId, [...partitions]])));
    });
    return result;
  }
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

/**
 * Hands each partition short of `sharing` members to the members still short, going round
 * them (Kafka's assignRemainingPartitions, quirks included: a partition's members are not
 * updated as it is handed out). `give` assigns and says whether the member is now full.
 */
export function assignRemaining<K>(
  byPartition: JavaSetMap<K, number>, unfilled: JavaHashSet<number>, sharing: number, give: (member: number, key: K) => boolean,
): void {
  if (unfilled.size === 0) return;
  let members = unfilled.values();
  let at = 0;
  let gaveThisRound = false;
  for (const key of byPartition.keysInOrder()) {
    const assigned = byPartition.get(key)!;
    let toMake = sharing - assigned.size;
    while (toMake > 0) {
      if (at >= members.length) {
        if (!gaveThisRound) break;
        members = unfilled.values();
        at = 0;
        gaveThisRound = false;
        // Java's iterator.next() on an empty set.
        if (members.length === 0) throw new PartitionAssignorError('no member left to take a partition');
      }
      const m = members[at++]!;
      if (assigned.has(m)) continue;
      toMake--;
      gaveThisRound = true;
      if (give(m, key)) unfilled.delete(m);
    }
    if (unfilled.size === 0) break;
  }
}
