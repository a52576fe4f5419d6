/**
 * The sticky assignment when every member subscribes to the same topics: Java's
 * AbstractStickyAssignor.ConstrainedAssignmentBuilder, step for step, with members visited
 * in member-id order (Java visits them in HashMap order, so which members end up with the
 * extra partition can differ; the quotas and what is kept are the same).
 *
 * 1. Each member keeps its previously owned partitions up to its quota: all of them when it
 *    owns fewer than minQuota; maxQuota while fewer than `total % members` members have been
 *    given maxQuota; otherwise minQuota. Owned partitions are taken in (partition, topic)
 *    order, as Java does.
 * 2. The remaining partitions, in (topic, partition) order, go round-robin to the members
 *    still under minQuota, then one each to members at minQuota until `total % members`
 *    members hold maxQuota.
 */
import { AssignorError } from './errors.js';
import type { PartitionSpace } from './partition-space.js';

/**
 * Fills `owner` (global id → member index, all -1 on entry). `order` lists member indices by
 * member id; `kept[m]` holds member m's standing claims.
 */
export function assignConstrained(space: PartitionSpace, order: Int32Array, kept: readonly Int32Array[], owner: Int32Array): void {
  const total = space.total;
  const members = order.length;
  const topicCount = space.topics.length;
  const minQuota = Math.floor(total / members);
  const maxQuota = Math.ceil(total / members);
  const expectedOver = total % members;
  let currentOver = 0;
  const counts = new Int32Array(members);
  const topicOf = space.topicOfPartition();

  let under: number[] = [];
  let exactlyMin: number[] = [];
  let exactlyMinHead = 0;
  for (const m of order) {
    const owned = kept[m]!;
    // Sort keys (partition, topic): partition * topics + topic, exact in a double.
    const keys = new Float64Array(owned.length);
    for (let i = 0; i < owned.length; i++) {
      const g = owned[i]!;
      const t = topicOf[g]!;
      keys[i] = (g - space.offsets[t]!) * topicCount + t;
    }
    let keep: number;
    if (owned.length < minQuota) {
      keep = owned.length;
      under.push(m);
    } else if (owned.length >= maxQuota && currentOver < expectedOver) {
      keep = maxQuota;
      currentOver++;
      if (currentOver === expectedOver) {
        exactlyMin = [];
        exactlyMinHead = 0;
      }
    } else {
      keep = minQuota;
      if (currentOver < expectedOver) exactlyMin.push(m);
    }
    if (keep < owned.length) keys.sort();
    for (let i = 0; i < keep; i++) {
      const key = keys[i]!;
      const t = key % topicCount;
      owner[space.offsets[t]! + (key - t) / topicCount] = m;
    }
    counts[m] = keep;
  }

  // Round-robin over the members under minQuota; a member reaching minQuota leaves that
  // list for the "exactly minQuota" queue, which is served once the list is empty.
  let next: number[] = [];
  let i = 0;
  for (let g = 0; g < total; g++) {
    if (owner[g] !== -1) continue;
    let m: number;
    let fromUnder: boolean;
    if (i < under.length) {
      m = under[i++]!;
      fromUnder = true;
    } else if (next.length > 0) {
      under = next;
      next = [];
      i = 0;
      m = under[i++]!;
      fromUnder = true;
    } else if (exactlyMinHead < exactlyMin.length) {
      m = exactlyMin[exactlyMinHead++]!;
      fromUnder = false;
    } else {
      throw new AssignorError('sticky assignment: no member left below its quota for an unassigned partition');
    }
    owner[g] = m;
    const count = ++counts[m]!;
    if (count === minQuota && fromUnder) {
      exactlyMin.push(m);
    } else {
      if (fromUnder) next.push(m);
      if (count === maxQuota) currentOver++;
    }
  }
  for (let k = i; k < under.length; k++) next.push(under[k]!);
  for (const m of next) {
    if (counts[m] !== minQuota) throw new AssignorError(`sticky assignment: member ${m} ended below minQuota`);
  }
}
