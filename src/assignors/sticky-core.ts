/**
 * What 'sticky' and 'cooperative-sticky' share (Java's AbstractStickyAssignor): resolve
 * the members' claims on their previous partitions, then build a balanced assignment that
 * keeps as many of them as balance allows — the constrained builder when all members
 * subscribe to the same topics, the general one otherwise.
 *
 * Cooperative rebalancing (Java's CooperativeStickyAssignor.adjustAssignment): a member may
 * only start consuming a partition once its previous owner has given it up, so a partition
 * assigned to a member other than its standing owner, while some other member still claims
 * it, is left out of this round. Its owner sees it missing from its assignment, revokes it,
 * and rejoins; the follow-up rebalance assigns it.
 */
import { compareStrings, PartitionSpace, sortedMemberOrder } from './partition-space.js';
import { assignConstrained } from './sticky-constrained.js';
import { assignGeneral } from './sticky-general.js';
import { resolveClaims, SEVERAL_CLAIMERS } from './sticky-claims.js';
import type { StickyMemberData } from './sticky-user-data.js';
import type { AssignmentInput, MemberAssignment } from './types.js';

export function assignSticky(
  input: AssignmentInput,
  memberData: readonly StickyMemberData[],
  cooperative: boolean,
): Map<string, MemberAssignment> {
  const space = new PartitionSpace(input);
  const owner = new Int32Array(space.total).fill(-1);
  if (input.members.length > 0) {
    const claims = resolveClaims(space, memberData);
    const order = sortedMemberOrder(input.members, (a, b) => compareStrings(a.memberId, b.memberId));
    if (sameTopics(space.memberTopics)) assignConstrained(space, order, claims.kept, owner);
    else assignGeneral(space, order, claims.kept, owner);
    if (cooperative) {
      for (let g = 0; g < space.total; g++) {
        const m = owner[g]!;
        const claimer = claims.claimer[g]!;
        const claimedByOther = claimer === SEVERAL_CLAIMERS || (claimer >= 0 && claimer !== m);
        if (claimedByOther && claims.previousOwner[g] !== m) owner[g] = -1;
      }
    }
  }
  return space.toAssignment(input.members, owner);
}

function sameTopics(memberTopics: readonly Int32Array[]): boolean {
  const first = memberTopics[0]!;
  return memberTopics.every((topics) => topics.length === first.length && topics.every((t, i) => t === first[i]));
}
