/**
 * Java's StickyAssignor ('sticky', eager protocol only): balanced and sticky. Its members
 * revoke everything before joining, so they carry their previous assignment and generation
 * in the subscription's user data (StickyAssignorUserData v1, see sticky-user-data.ts),
 * remembered from the last `onAssignment`.
 */
import { assignSticky } from './sticky-core.js';
import { decodeStickyUserData, encodeStickyUserData } from './sticky-user-data.js';
import type { AssignmentInput, MemberAssignment, PartitionAssignor, RebalanceProtocol, TopicPartition } from './types.js';

export class StickyAssignor implements PartitionAssignor {
  readonly name = 'sticky';
  readonly supportedProtocols: readonly RebalanceProtocol[] = ['eager'];
  private memberAssignment: readonly TopicPartition[] | null = null;
  private generation = -1;

  subscriptionUserData(): Buffer | null {
    if (this.memberAssignment === null) return null;
    return encodeStickyUserData({ partitions: this.memberAssignment, generation: this.generation });
  }

  assign(input: AssignmentInput): Map<string, MemberAssignment> {
    return assignSticky(input, input.members.map((m) => decodeStickyUserData(m.userData)), false);
  }

  onAssignment(assignment: MemberAssignment, generationId: number): void {
    this.memberAssignment = [...assignment.partitions];
    this.generation = generationId;
  }
}
