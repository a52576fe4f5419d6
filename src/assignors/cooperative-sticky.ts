/**
 * Java's CooperativeStickyAssignor ('cooperative-sticky'): the sticky assignment, under the
 * cooperative protocol (eager too, as second choice, so a group can migrate). Members keep
 * their partitions while rejoining and report them in the subscription's ownedPartitions
 * with the generation (ConsumerProtocolSubscription v2+); the user data carries just the
 * generation (int32) for leaders that read older subscriptions. Partitions changing owner
 * are withheld for one round (see sticky-core.ts).
 */
import { assignSticky } from './sticky-core.js';
import { decodeCooperativeStickyUserData, encodeCooperativeStickyUserData, type StickyMemberData } from './sticky-user-data.js';
import { DEFAULT_GENERATION, type AssignmentInput, type MemberAssignment, type MemberSubscription, type PartitionAssignor, type RebalanceProtocol } from './types.js';

export class CooperativeStickyAssignor implements PartitionAssignor {
  readonly name = 'cooperative-sticky';
  readonly supportedProtocols: readonly RebalanceProtocol[] = ['cooperative', 'eager'];
  private generation = DEFAULT_GENERATION;

  subscriptionUserData(): Buffer | null {
    return encodeCooperativeStickyUserData(this.generation);
  }

  assign(input: AssignmentInput): Map<string, MemberAssignment> {
    return assignSticky(input, input.members.map(cooperativeMemberData), true);
  }

  onAssignment(_assignment: MemberAssignment, generationId: number): void {
    this.generation = generationId;
  }
}

/** Java's CooperativeStickyAssignor.memberData: the subscription's generation when present, else the user data's. */
export function cooperativeMemberData(m: MemberSubscription): StickyMemberData {
  const generation = m.generationId >= 0 ? m.generationId : decodeCooperativeStickyUserData(m.userData);
  return { partitions: m.ownedPartitions, generation };
}
