/**
 * The uniform assignor when members subscribe to different topics (Kafka's
 * UniformHeterogeneousAssignmentBuilder): members keep the partitions of topics they still
 * subscribe to; the free partitions go, topic by topic, to the least loaded subscribers;
 * then partitions move from the most to the least loaded subscribers of each topic until
 * no move improves the balance (at most 16 rounds).
 *
 * Members are numbered in the spec's order (Kafka's hash order), which breaks every tie.
 * Topics are taken by partitions per subscriber (descending), then subscribers
 * (ascending), then topic id (Kafka's Uuid order).
 */
import type { Assignment } from '../assignment.js';
import { compareUuids, intHash, JavaHashSet, uuidHash } from '../java-hash.js';
import { MutableAssignment, PartitionAssignorError, type GroupAssignment, type GroupSpec, type SubscribedTopicDescriber } from './spec.js';

const MAX_ITERATION_COUNT = 16;

/** Above any member index of a group this size or smaller: a balancer's sort key is load * span + index (below 2^53). */
const MEMBER_INDEX_SPAN = 2 ** 24;

class Builder {
  readonly memberIds: string[];
  readonly subscribers = new Map<string, number[]>();
  readonly topicIds = JavaHashSet.empty(uuidHash);
  readonly sizes: Int32Array;
  readonly owners = new Map<string, Int32Array>();
  /** Per topic: how a member new to it makes its partition set (sized as Kafka sizes it). */
  readonly newSets = new Map<string, () => JavaHashSet<number>>();
  readonly target = new Map<string, Assignment | MutableAssignment>();
  /** By member index: its assignment once changed (target holds it too). */
  private readonly changed: (MutableAssignment | undefined)[];

  constructor(
    readonly spec: GroupSpec,
    readonly topics: SubscribedTopicDescriber,
  ) {
    this.memberIds = [...spec.members.keys()];
    this.sizes = new Int32Array(this.memberIds.length);
    this.changed = new Array<MutableAssignment | undefined>(this.memberIds.length);
    this.memberIds.forEach((memberId, index) => {
      for (const topicId of spec.members.get(memberId)!.subscribedTopicIds) {
        let list = this.subscribers.get(topicId);
        if (list === undefined) {
          // Looked up once per topic: the first member subscribed to a missing one fails.
          if (topics.numPartitions(topicId) === -1) {
            throw new PartitionAssignorError(`Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`);
          }
          this.subscribers.set(topicId, (list = []));
        }
        this.topicIds.add(topicId);
        list.push(index);
      }
    });
    for (const topicId of this.topicIds) {
      const numPartitions = topics.numPartitions(topicId);
      this.owners.set(topicId, new Int32Array(numPartitions).fill(-1));
      const numSubscribers = this.subscribers.get(topicId)!.length;
      const perSubscriber = Math.floor((numPartitions + numSubscribers - 1) / numSubscribers);
      const capacity = Math.floor(perSubscriber / 0.75 + 1);
      this.newSets.set(topicId, () => JavaHashSet.withCapacity(intHash, capacity));
    }
  }

  compareTopics = (a: string, b: string): number => {
    const pa = this.topics.numPartitions(a);
    const pb = this.topics.numPartitions(b);
    const sa = this.subscribers.get(a)!.length;
    const sb = this.subscribers.get(b)!.length;
    return pb / sb - pa / sa || sa - sb || compareUuids(a, b);
  };

  build(): GroupAssignment {
    if (this.topicIds.size === 0) return new Map();
    this.revoke();
    const unassigned = new Map<string, number[]>();
    for (const topicId of this.topicIds) {
      const free: number[] = [];
      this.owners.get(topicId)!.forEach((owner, p) => owner === -1 && free.push(p));
      if (free.length > 0) unassigned.set(topicId, free);
    }
    const balancer = new Balancer(this.sizes);
    for (const topicId of [...unassigned.keys()].sort(this.compareTopics)) {
      balancer.initialize(this.subscribers.get(topicId)!);
      const owners = this.owners.get(topicId)!;
      const newSet = this.newSets.get(topicId)!;
      for (const p of unassigned.get(topicId)!) this.assign(topicId, owners, newSet, p, balancer.nextLeastLoaded());
    }
    this.balance();
    return new Map([...this.target].map(([id, a]) => [id, a instanceof MutableAssignment ? a.toAssignment() : a]));
  }

  /** Drops the topics members no longer subscribe to; the rest stays where it is. */
  private revoke(): void {
    this.memberIds.forEach((memberId, index) => {
      const member = this.spec.members.get(memberId)!;
      let subscribed: Set<string> | null = null;
      let copy: MutableAssignment | null = null;
      for (const [topicId, partitions] of member.assignment) {
        if ((subscribed ??= new Set(member.subscribedTopicIds)).has(topicId)) {
          this.sizes[index]! += partitions.length;
          for (const p of partitions) this.owners.get(topicId)![p] = index;
        } else {
          (copy ??= MutableAssignment.deepCopy(member.assignment)).removeTopic(topicId);
        }
      }
      if (copy !== null) this.changed[index] = copy;
      this.target.set(memberId, copy ?? member.assignment);
    });
  }

  private balance(): void {
    const topicIds = [...this.topicIds].filter((t) => this.subscribers.get(t)!.length >= 2).sort(this.compareTopics);
    if (topicIds.length === 0) return;
    const balancer = new Balancer(this.sizes);
    let lastRebalanced = -1;
    for (let i = 0; i < MAX_ITERATION_COUNT; i++) {
      for (let t = 0; t < topicIds.length; t++) {
        // A whole round without moves since this topic last moved something: done.
        if (t === lastRebalanced) return;
        if (this.balanceTopic(topicIds[t]!, balancer) > 0 || lastRebalanced === -1) lastRebalanced = t;
      }
    }
  }

  private balanceTopic(topicId: string, balancer: Balancer): number {
    const owners = this.owners.get(topicId)!;
    const subscribers = this.subscribers.get(topicId)!;
    // Balanced already (most rounds find most topics so): no sort of its subscribers.
    let least = Infinity;
    let most = -Infinity;
    for (const m of subscribers) {
      const size = this.sizes[m]!;
      if (size < least) least = size;
      if (size > most) most = size;
    }
    if (most - least <= 1) return 0;
    if (balancer.initialize(subscribers) <= 1) return 0;
    const newSet = this.newSets.get(topicId)!;
    // The topic's partitions grouped by owner, each owner's range given up from its end.
    const partitions = [...owners.keys()].sort((a, b) => owners[a]! - owners[b]! || a - b);
    const start = new Map<number, number>();
    const end = new Map<number, number>();
    partitions.forEach((p, i) => {
      if (!start.has(owners[p]!)) start.set(owners[p]!, i);
      end.set(owners[p]!, i + 1);
    });
    let moved = 0;
    while (!balancer.isBalanced()) {
      let from: number;
      for (;;) {
        from = balancer.nextMostLoaded();
        if (from === -1) break;
        if (!end.has(from) || end.get(from)! - start.get(from)! <= 0) {
          balancer.excludeMostLoaded();
          continue;
        }
        break;
      }
      if (from === -1) break;
      const p = partitions[end.get(from)! - 1]!;
      end.set(from, end.get(from)! - 1);
      const to = balancer.nextLeastLoaded();
      if (balancer.isBalanced()) break;
      this.assign(topicId, owners, newSet, p, to);
      moved++;
    }
    return moved;
  }

  /** Gives `partition` of the topic (`owners` its owners, `newSet` its new partition sets) to a member. */
  private assign(topicId: string, owners: Int32Array, newSet: () => JavaHashSet<number>, partition: number, memberIndex: number): void {
    const previous = owners[partition]!;
    if (previous !== -1) {
      this.mutable(previous).remove(topicId, partition);
      owners[partition] = -1;
      this.sizes[previous]!--;
    }
    this.mutable(memberIndex).add(topicId, partition, newSet);
    owners[partition] = memberIndex;
    this.sizes[memberIndex]!++;
  }

  private mutable(memberIndex: number): MutableAssignment {
    const changed = this.changed[memberIndex];
    if (changed !== undefined) return changed;
    const memberId = this.memberIds[memberIndex]!;
    const copy = MutableAssignment.deepCopy(this.target.get(memberId) as Assignment);
    this.target.set(memberId, copy);
    this.changed[memberIndex] = copy;
    return copy;
  }
}

/**
 * Kafka's MemberAssignmentBalancer: the subscribers of one topic sorted by load, with a
 * least loaded range that grows rightwards (members receive partitions in turn) and a most
 * loaded range that grows leftwards (members give partitions up in turn).
 */
class Balancer {
  private sorted: number[] = [];
  private leastEnd = 0;
  private leastCount = -1;
  private nextLeast = 0;
  private mostStart = 0;
  private mostEnd = 0;
  private mostCount = 1;
  private nextMost = -1;

  /** Sort keys, reused topic after topic. */
  private keys = new Float64Array(0);

  constructor(private readonly sizes: Int32Array) {}

  /** Returns the spread between the most and the least loaded subscriber. */
  initialize(members: readonly number[]): number {
    if (members.length === 0) throw new Error('Cannot balance an empty subscriber list.');
    // By load, then member index: one number per member (load * span + index), sorted as
    // numbers, which is several times faster than a comparator over the sizes.
    const n = members.length;
    if (this.sizes.length <= MEMBER_INDEX_SPAN) {
      if (this.keys.length < n) this.keys = new Float64Array(n);
      const keys = this.keys.subarray(0, n);
      for (let i = 0; i < n; i++) keys[i] = this.sizes[members[i]!]! * MEMBER_INDEX_SPAN + members[i]!;
      keys.sort();
      const sorted = new Array<number>(n);
      for (let i = 0; i < n; i++) sorted[i] = keys[i]! % MEMBER_INDEX_SPAN;
      this.sorted = sorted;
    } else {
      this.sorted = [...members].sort((a, b) => this.sizes[a]! - this.sizes[b]! || a - b);
    }
    this.leastEnd = 0;
    this.leastCount = this.sizes[this.sorted[0]!]! - 1;
    this.nextLeast = 0;
    this.mostStart = n;
    this.mostEnd = n;
    this.mostCount = this.sizes[this.sorted[n - 1]!]! + 1;
    this.nextMost = n - 1;
    return this.sizes[this.sorted[n - 1]!]! - this.sizes[this.sorted[0]!]!;
  }

  nextLeastLoaded(): number {
    if (this.nextLeast >= this.leastEnd) {
      this.leastCount++;
      while (this.leastEnd < this.sorted.length && this.sizes[this.sorted[this.leastEnd]!] === this.leastCount) this.leastEnd++;
      this.nextLeast = 0;
    }
    return this.sorted[this.nextLeast++]!;
  }

  nextMostLoaded(): number {
    if (this.nextMost < this.mostStart) {
      if (this.mostEnd <= this.mostStart && this.mostStart > 0) {
        // Emptied by exclusions: restart from the next level down, or the range never grows.
        this.mostCount = this.sizes[this.sorted[this.mostStart - 1]!]!;
      } else {
        this.mostCount--;
      }
      while (this.mostStart > 0 && this.sizes[this.sorted[this.mostStart - 1]!] === this.mostCount) this.mostStart--;
      this.nextMost = this.mostEnd - 1;
    }
    if (this.nextMost < 0) return -1;
    return this.sorted[this.nextMost--]!;
  }

  /** The member nextMostLoaded returned last has nothing to give: out of the range. */
  excludeMostLoaded(): void {
    const member = this.sorted[this.nextMost + 1]!;
    this.sorted[this.nextMost + 1] = this.sorted[this.mostEnd - 1]!;
    this.sorted[this.mostEnd - 1] = member;
    this.mostEnd--;
  }

  isBalanced(): boolean {
    return this.mostCount - this.leastCount <= 1;
  }
}

export function assignHeterogeneous(spec: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
  return new Builder(spec, topics).build();
}
