/**
 * Java's RoundRobinAssignor ('roundrobin'): all partitions of all subscribed topics in
 * (topic name, partition) order are dealt to the members in MemberInfo order, circularly;
 * a member not subscribed to a partition's topic is skipped (and the deal continues after
 * the member that took it).
 *
 * Instead of stepping over unsubscribed members one at a time (O(partitions × members) for
 * uneven subscriptions), each topic keeps its subscribers' positions in the circular order
 * and the next one is found by binary search; the result is the same.
 */
import { compareMembers, PartitionSpace, sortedMemberOrder } from './partition-space.js';
import type { AssignmentInput, MemberAssignment, PartitionAssignor, RebalanceProtocol } from './types.js';

export function assignRoundRobin(input: AssignmentInput): Map<string, MemberAssignment> {
  const space = new PartitionSpace(input);
  const owner = new Int32Array(space.total).fill(-1);
  const order = sortedMemberOrder(input.members, compareMembers);
  const position = new Int32Array(order.length);
  order.forEach((m, i) => (position[m] = i));
  // subscribersByTopic lists members in `order`, so their positions come out ascending.
  const positionsByTopic = space.subscribersByTopic(order).map((members) => members.map((m) => position[m]!));
  let cursor = 0;
  for (let t = 0; t < space.topics.length; t++) {
    const positions = positionsByTopic[t]!;
    const members = positions.length;
    let i = firstAtOrAfter(positions, cursor);
    for (let g = space.offsets[t]!; g < space.offsets[t + 1]!; g++) {
      if (i === members) i = 0;
      const at = positions[i]!;
      owner[g] = order[at]!;
      cursor = at + 1 === order.length ? 0 : at + 1;
      i++;
    }
  }
  return space.toAssignment(input.members, owner);
}

/** Index of the first element >= value in an ascending array (its length when none). */
function firstAtOrAfter(sorted: Int32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class RoundRobinAssignor implements PartitionAssignor {
  readonly name = 'roundrobin';
  readonly supportedProtocols: readonly RebalanceProtocol[] = ['eager'];

  subscriptionUserData(): Buffer | null {
    return null;
  }

  assign(input: AssignmentInput): Map<string, MemberAssignment> {
    return assignRoundRobin(input);
  }

  onAssignment(): void {}
}
