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
 * 3. until nothing changes: per topic, while its busiest holder has two or more partitions
 *    more than its least loaded subscriber, one partition moves between them — the one the
 *    holder received most recently, so newly assigned partitions move before kept ones.
 *    Each move lowers the sum of squared counts, so this ends.
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

  let changed = true;
  while (changed) {
    changed = false;
    for (const t of topicOrder) {
      const subs = subscribers[t]!;
      if (subs.length < 2) continue;
      // Lazy heaps: an entry is current while key(m) still equals it; a change pushes a new one.
      const least = new NumberHeap();
      const busiest = new NumberHeap(); // negated keys
      for (const m of subs) {
        least.push(key(m));
        if (stack(m, t).length > 0) busiest.push(-key(m));
      }
      for (;;) {
        while (key(order[least.peek() % members]!) !== least.peek()) least.pop();
        while (busiest.size > 0) {
          const k = -busiest.peek();
          const m = order[k % members]!;
          if (key(m) === k && stack(m, t).length > 0) break;
          busiest.pop();
        }
        if (busiest.size === 0) break;
        const to = order[least.peek() % members]!;
        const from = order[-busiest.peek() % members]!;
        if (counts[from]! <= counts[to]! + 1) break;
        const g = stack(from, t).pop()!;
        stack(to, t).push(g);
        owner[g] = to;
        counts[from]!--;
        counts[to]!++;
        least.push(key(to));
        least.push(key(from));
        busiest.push(-key(to));
        if (stack(from, t).length > 0) busiest.push(-key(from));
        changed = true;
      }
    }
  }
}
