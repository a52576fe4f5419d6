/**
 * Java's RangeAssignor ('range'): per topic, the subscribers in MemberInfo order (static
 * members by group instance id first, then member id) each take a contiguous range of
 * partitions; the first `count % subscribers` take one extra. Co-partitioned topics
 * therefore land on the same members. The member order and the split are the server's range
 * assignor's too (../util/range-split.ts).
 *
 * Java's rack-aware mode needs the replica racks of each partition; AssignmentInput carries
 * only partition counts, which is the case where Java itself falls back to this
 * non-rack-aware assignment (no partition racks known), so rack ids are ignored here.
 */
import { rangeStart } from '../util/range-split.js';
import { compareMembers, PartitionSpace, sortedMemberOrder } from './partition-space.js';
import type { AssignmentInput, MemberAssignment, PartitionAssignor, RebalanceProtocol } from './types.js';

export function assignRange(input: AssignmentInput): Map<string, MemberAssignment> {
  const space = new PartitionSpace(input);
  const owner = new Int32Array(space.total).fill(-1);
  const subscribers = space.subscribersByTopic(sortedMemberOrder(input.members, compareMembers));
  for (let t = 0; t < space.topics.length; t++) {
    const members = subscribers[t]!;
    const count = space.partitionCount(t);
    const base = space.offsets[t]!;
    for (let i = 0; i < members.length; i++) {
      owner.fill(members[i]!, base + rangeStart(count, members.length, i), base + rangeStart(count, members.length, i + 1));
    }
  }
  return space.toAssignment(input.members, owner);
}

export class RangeAssignor implements PartitionAssignor {
  readonly name = 'range';
  readonly supportedProtocols: readonly RebalanceProtocol[] = ['eager'];

  subscriptionUserData(): Buffer | null {
    return null;
  }

  assign(input: AssignmentInput): Map<string, MemberAssignment> {
    return assignRange(input);
  }

  onAssignment(): void {}
}
