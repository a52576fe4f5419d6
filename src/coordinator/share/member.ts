/**
 * A member of a share group, as Kafka's ShareGroupMember: an immutable value; every change
 * builds a new one, which the records then persist. Share members have no instance id, no
 * rebalance timeout, no server assignor and no revocation: a member gets its target at once
 * (ShareGroupAssignmentBuilder), so its state is always STABLE.
 */
import { assignmentEquals, EMPTY_ASSIGNMENT, type Assignment } from '../consumer/assignment.js';
import { sameTopicNames } from '../consumer/member.js';
import type { MetadataImage } from '../consumer/metadata.js';

/** Kafka's MemberState.STABLE, as written in ShareGroupCurrentMemberAssignmentValue.State. */
export const SHARE_MEMBER_STABLE = 0;

/** ShareGroupHeartbeat's member epoch of a member leaving the group. */
export const SHARE_LEAVE_GROUP_MEMBER_EPOCH = -1;

export interface ShareGroupMember {
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: number;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** In the order Kafka's HashSet of them iterates (java-hash.ts). */
  readonly subscribedTopicNames: readonly string[];
  readonly assignedPartitions: Assignment;
}

/** Kafka's ShareGroupMember.Builder defaults: what a member is before its first record. */
export function newShareMember(memberId: string): ShareGroupMember {
  return {
    memberId,
    memberEpoch: 0,
    previousMemberEpoch: -1,
    state: SHARE_MEMBER_STABLE,
    rackId: null,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: [],
    assignedPartitions: EMPTY_ASSIGNMENT,
  };
}

/** The fields ShareGroupMemberMetadataValue carries. */
export function sameShareMetadata(a: ShareGroupMember, b: ShareGroupMember): boolean {
  return a.rackId === b.rackId && a.clientId === b.clientId && a.clientHost === b.clientHost && sameTopicNames(a.subscribedTopicNames, b.subscribedTopicNames);
}

/** Kafka's ShareGroupMember.equals. */
export function shareMemberEquals(a: ShareGroupMember, b: ShareGroupMember): boolean {
  return a === b || (a.memberId === b.memberId && a.memberEpoch === b.memberEpoch && a.previousMemberEpoch === b.previousMemberEpoch
    && a.state === b.state && sameShareMetadata(a, b) && assignmentEquals(a.assignedPartitions, b.assignedPartitions));
}

/**
 * Kafka's ShareGroupAssignmentBuilder: a member not at the target epoch (or whose
 * subscription changed) takes its target at once, restricted to the topics it subscribes to,
 * and moves to the target epoch.
 */
export function reconcileShareMember(m: ShareGroupMember, targetEpoch: number, target: Assignment, subscriptionChanged: boolean, image: MetadataImage): ShareGroupMember {
  if (targetEpoch !== m.memberEpoch) {
    return { ...m, state: SHARE_MEMBER_STABLE, assignedPartitions: subscribedOnly(target, m.subscribedTopicNames, image), previousMemberEpoch: m.memberEpoch, memberEpoch: targetEpoch };
  }
  if (subscriptionChanged) return { ...m, assignedPartitions: subscribedOnly(target, m.subscribedTopicNames, image) };
  return m;
}

/** Kafka's filterAssignedPartitions: the target's topics the member subscribes to (and that exist). */
function subscribedOnly(target: Assignment, subscribed: readonly string[], image: MetadataImage): Assignment {
  const names = new Set(subscribed);
  let all = true;
  for (const topicId of target.keys()) {
    const t = image.byId(topicId);
    if (t === undefined || !names.has(t.name)) all = false;
  }
  if (all) return target;
  return new Map([...target].filter(([topicId]) => {
    const t = image.byId(topicId);
    return t !== undefined && names.has(t.name);
  }));
}
