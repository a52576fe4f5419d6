/**
 * Integer ids for the partitions an assignment works on, so the assignors can keep their
 * state in typed arrays instead of per-partition objects: topics are numbered in name order
 * and partition `p` of topic `t` has the global id `offsets[t] + p`. Ascending global ids
 * are therefore ascending (topic name, partition), the order Java's assignors list
 * partitions in.
 */
import { compareKeyedFirst, compareStrings } from '../util/range-split.js';
import { AssignorError } from './errors.js';
import type { AssignmentInput, MemberAssignment, MemberSubscription, TopicPartition } from './types.js';

export { compareStrings };

/**
 * Java's AbstractPartitionAssignor.MemberInfo order, used by range and roundrobin: static
 * members (with a group instance id) first, by instance id, then dynamic members by member
 * id (the order the server's range assignor uses too: ../util/range-split.ts).
 */
export function compareMembers(a: MemberSubscription, b: MemberSubscription): number {
  return compareKeyedFirst(a.groupInstanceId, a.memberId, b.groupInstanceId, b.memberId);
}

export class PartitionSpace {
  /** Topic names in ascending order. */
  readonly topics: string[];
  readonly topicIndex = new Map<string, number>();
  /** offsets[t] = global id of partition 0 of topic t; offsets[topics.length] = total. */
  readonly offsets: Int32Array;
  readonly total: number;
  /** For each member (input order), the ids of the existing topics it subscribes to, ascending, no repeats. */
  readonly memberTopics: Int32Array[];

  /**
   * Only topics that exist with at least one partition and that some member subscribes to
   * take part, as in Java's AbstractPartitionAssignor.
   */
  constructor(input: AssignmentInput) {
    checkUniqueMembers(input.members);
    const subscribed = new Set<string>();
    for (const m of input.members) for (const topic of m.topics) subscribed.add(topic);
    this.topics = [...subscribed].filter((t) => (input.partitionsPerTopic.get(t) ?? 0) > 0).sort(compareStrings);
    this.offsets = new Int32Array(this.topics.length + 1);
    this.topics.forEach((topic, t) => {
      this.topicIndex.set(topic, t);
      this.offsets[t + 1] = this.offsets[t]! + input.partitionsPerTopic.get(topic)!;
    });
    this.total = this.offsets[this.topics.length]!;
    this.memberTopics = input.members.map((m) => {
      const ids = new Set<number>();
      for (const topic of m.topics) {
        const t = this.topicIndex.get(topic);
        if (t !== undefined) ids.add(t);
      }
      return Int32Array.from(ids).sort();
    });
  }

  partitionCount(t: number): number {
    return this.offsets[t + 1]! - this.offsets[t]!;
  }

  /** The global id of a partition, or -1 when its topic takes no part or the partition does not exist. */
  globalId(tp: TopicPartition): number {
    const t = this.topicIndex.get(tp.topic);
    if (t === undefined || !Number.isInteger(tp.partition) || tp.partition < 0 || tp.partition >= this.partitionCount(t)) return -1;
    return this.offsets[t]! + tp.partition;
  }

  /** Topic id of every global id (built on demand: 4 bytes a partition). */
  topicOfPartition(): Int32Array {
    const topicOf = new Int32Array(this.total);
    for (let t = 0; t < this.topics.length; t++) topicOf.fill(t, this.offsets[t]!, this.offsets[t + 1]!);
    return topicOf;
  }

  /** Subscribers of each topic, as member indices in the order `order` lists them. */
  subscribersByTopic(order: ArrayLike<number>): Int32Array[] {
    const counts = new Int32Array(this.topics.length);
    for (const topics of this.memberTopics) for (const t of topics) counts[t]!++;
    const lists = Array.from(counts, (n) => new Int32Array(n));
    const fill = new Int32Array(this.topics.length);
    for (let i = 0; i < order.length; i++) {
      const m = order[i]!;
      for (const t of this.memberTopics[m]!) lists[t]![fill[t]!++] = m;
    }
    return lists;
  }

  /**
   * Turns `owner` (global id → member index, -1 for none) into the result map: every member
   * gets an entry, its partitions in (topic, partition) order.
   */
  toAssignment(members: readonly MemberSubscription[], owner: Int32Array): Map<string, MemberAssignment> {
    const lists: TopicPartition[][] = members.map(() => []);
    for (let t = 0; t < this.topics.length; t++) {
      const topic = this.topics[t]!;
      const base = this.offsets[t]!;
      const end = this.offsets[t + 1]!;
      for (let g = base; g < end; g++) {
        const m = owner[g]!;
        if (m >= 0) lists[m]!.push({ topic, partition: g - base });
      }
    }
    const result = new Map<string, MemberAssignment>();
    members.forEach((m, i) => result.set(m.memberId, { partitions: lists[i]!, userData: null }));
    return result;
  }
}

function checkUniqueMembers(members: readonly MemberSubscription[]): void {
  const seen = new Set<string>();
  for (const m of members) {
    if (seen.has(m.memberId)) throw new AssignorError(`member id ${JSON.stringify(m.memberId)} appears twice in the assignment input`);
    seen.add(m.memberId);
  }
}

/** Member indices sorted by `compare` over the members. */
export function sortedMemberOrder(members: readonly MemberSubscription[], compare: (a: MemberSubscription, b: MemberSubscription) => number): Int32Array {
  const order = Array.from(members.keys());
  order.sort((a, b) => compare(members[a]!, members[b]!));
  return Int32Array.from(order);
}
