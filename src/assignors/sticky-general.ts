/**
 * The sticky assignment when members subscribe to different topics. It gives the same
 * guarantees as Java's AbstractStickyAssignor.GeneralAssignmentBuilder — every partition of
 * a subscribed topic assigned to one subscriber, balanced in Java's sense (no partition
 * could move to another subscriber of its topic holding two or more fewer partitions), and
 * previous owners keep what balance allows — but not Java's exact steps, whose cost grows
 * with partitions × members × moves. Here:
 *
 * 1. every standing claim is kept;
 * 2. topics with the fewest subscribers first, each free partition goes to the subscriber
 *    holding the fewest partitions (ties: lowest member id), from a heap per topic;
 * 3. until nothing changes: the busiest member gives one partition to the least loaded
 *    subscriber of a topic it holds, when that one holds two or more fewer — the partition
 *    it received most recently, so newly assigned partitions move before kept ones. Each
 *    move lowers the sum of squared counts, so this ends.
 */
import { NumberHeap } from './heap.js';
import type { PartitionSpace } from './partition-space.js';

export function assignGeneral(space: PartitionSpace, order: Int32Array, kept: readonly Int32Array[], owner: Int32Array): void {
  const members = order.length;
  const topicCount = space.topics.length;
  const rank = new Int32Array(members);
  order.forEach((m, r) => (rank[m] = r));
  const counts = new Int32Array(members);
  const subscribers = space.subscribersByTopic(order);
  const topicOrder = Array.from(subscribers.keys()).sort((a, b) => subscribers[a]!.length - subscribers[b]!.length || a - b);
  // Heap keys: count * members + rank, so ties break by member id and the member is key % members.
  const key = (m: number): number => counts[m]! * members + rank[m]!;

  const wasKept = new Uint8Array(space.total);
  kept.forEach((ids, m) => {
    for (const g of ids) {
      owner[g] = m;
      wasKept[g] = 1;
    }
    counts[m] = ids.length;
  });

  for (const t of topicOrder) {
    const subs = subscribers[t]!;
    if (subs.length === 0) continue;
    const heap = new NumberHeap();
    for (const m of subs) heap.push(key(m));
    for (let g = space.offsets[t]!; g < space.offsets[t + 1]!; g++) {
      if (owner[g] !== -1) continue;
      const m = order[heap.pop() % members]!;
      owner[g] = m;
      counts[m]!++;
      heap.push(key(m));
    }
  }

  // Per (member, topic), the partitions held, newly assigned ones on top.
  const held = new Map<number, number[]>();
  const stack = (m: number, t: number): number[] => {
    const k = m * topicCount + t;
    let s = held.get(k);
    if (s === undefined) held.set(k, (s = []));
    return s;
  };
  for (const pass of [1, 0]) {
    for (let t = 0; t < topicCount; t++) {
      for (let g = space.offsets[t]!; g < space.offsets[t + 1]!; g++) if (wasKept[g] === pass) stack(owner[g]!, t).push(g);
    }
  }

  // Lazy heaps: an entry is current while key(m) still equals it; every change of a count
  // pushes fresh entries, stale ones are dropped when they reach the top.
  const leastByTopic = subscribers.map((subs) => {
    const heap = new NumberHeap();
    for (const m of subs) heap.push(key(m));
    return heap;
  });
  const counted = (m: number): void => {
    for (const t of space.memberTopics[m]!) leastByTopic[t]!.push(key(m));
  };
  const leastSubscriber = (t: number): number => {
    const heap = leastByTopic[t]!;
    while (key(order[heap.peek() % members]!) !== heap.peek()) heap.pop();
    return order[heap.peek() % members]!;
  };

  // Busiest members give first, each to the least loaded subscriber among the topics it
  // holds, so a joining member is filled from the most loaded ones rather than in chains.
  let changed = true;
  while (changed) {
    changed = false;
    const busiest = new NumberHeap(); // negated keys
    for (let m = 0; m < members; m++) busiest.push(-key(m));
    while (busiest.size > 0) {
      const k = -busiest.pop();
      const from = order[k % members]!;
      if (key(from) !== k) continue;
      let to = -1;
      let topic = -1;
      for (const t of space.memberTopics[from]!) {
        if (subscribers[t]!.length < 2 || stack(from, t).length === 0) continue;
        const r = leastSubscriber(t);
        if (to === -1 || counts[r]! < counts[to]!) {
          to = r;
          topic = t;
        }
      }
      if (to === -1 || counts[from]! < counts[to]! + 2) continue;
      const g = stack(from, topic).pop()!;
      stack(to, topic).push(g);
      owner[g] = to;
      counts[from]!--;
      counts[to]!++;
      counted(from);
      counted(to);
      busiest.push(-key(from));
      busiest.push(-key(to));
      changed = true;
    }
  }
}
