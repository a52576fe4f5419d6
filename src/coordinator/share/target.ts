/**
 * A new target assignment for a share group (Kafka's ShareTargetAssignmentBuilder): every
 * member's subscription and current target, with the updated member in place, handed to the
 * share assignor (`group.share.assignors`' first, `simple`), which may give out only
 * partitions whose share state is initialized; a record for each member whose target
 * changed (and a new member's, even when empty), then the assignment epoch and the time it
 * was computed. As for consumer groups, Kafka 4.4 computes one at most every
 * `group.share.assignment.interval.ms`; until then members stay on the last one.
 */
import type { ShareGroupRecord } from '../../protocol/coordinator-records/share-group-framing.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { assignmentEquals, EMPTY_ASSIGNMENT, type Assignment } from '../consumer/assignment.js';
import { PartitionAssignorError, type MemberSubscriptionSpec } from '../consumer/assignors/spec.js';
import { ConsumerGroupError } from '../consumer/errors.js';
import type { SubscriptionType } from '../consumer/group.js';
import { compareIds, javaPutOrder } from '../consumer/java-hash.js';
import { canComputeNextTargetAssignment } from '../consumer/target.js';
import { stringHash } from '../../util/string-hash.js';
import { SHARE_ASSIGNORS } from './assignors/index.js';
import type { ShareGroup } from './group.js';
import type { ShareGroupMember } from './member.js';
import { shareTargetAssignmentEpochRecord, shareTargetAssignmentRecord } from './records.js';

export interface ShareTargetAssignment {
  readonly epoch: number;
  readonly assignment: Assignment;
}

function topicIds(m: ShareGroupMember, s: CoordinatorState): string[] {
  const ids: string[] = [];
  for (const name of m.subscribedTopicNames) {
    const t = s.metadata.byName(name);
    if (t !== undefined) ids.push(t.topicId);
  }
  return ids;
}

/**
 * Kafka's maybeUpdateTargetAssignment for share groups: the member's target at the group
 * epoch when the group epoch passed the assignment epoch and the interval allows it, else
 * its last target at the assignment epoch.
 */
export function maybeUpdateShareTargetAssignment(
  s: CoordinatorState,
  group: ShareGroup,
  groupEpoch: number,
  updatedMember: ShareGroupMember,
  subscriptionType: SubscriptionType,
  records: ShareGroupRecord[],
  nowMs: number,
): ShareTargetAssignment {
  const last = { epoch: group.assignmentEpoch, assignment: group.targetAssignmentOf(updatedMember.memberId) };
  if (group.assignmentEpoch >= groupEpoch) return last;
  if (!canComputeNextTargetAssignment(group.assignmentTimestampMs, s.config.shareGroupAssignmentIntervalMs, nowMs)) return last;
  const name = s.config.shareGroupAssignors[0]!;
  const assignor = SHARE_ASSIGNORS.get(name);
  if (assignor === undefined) throw new ConsumerGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, `Unknown assignor ${name}`);

  // The members as Kafka's HashMap of member specs holds them, the updated one put last
  // (Brook puts the others by member id, so that a replayed group assigns as the live one).
  const updatedId = updatedMember.memberId;
  const ids = javaPutOrder(stringHash, group.members.keys(), compareIds, updatedId);
  const specs = new Map<string, MemberSubscriptionSpec>();
  for (const id of ids) {
    const m = id === updatedId ? updatedMember : group.members.get(id)!;
    specs.set(id, { instanceId: null, rackId: m.rackId, subscribedTopicIds: topicIds(m, s), assignment: group.targetAssignmentOf(id) });
  }
  let result;
  try {
    result = assignor.assign(
      {
        members: specs,
        subscriptionType,
        isPartitionAssigned: (topicId, p) => group.isPartitionAssigned(topicId, p),
        isPartitionAssignable: (topicId, p) => group.isPartitionInitialized(topicId, p),
      },
      { numPartitions: (topicId) => s.metadata.byId(topicId)?.numPartitions ?? -1 },
    );
  } catch (err) {
    if (!(err instanceof PartitionAssignorError)) throw err;
    throw new ConsumerGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, `Failed to compute a new target assignment for epoch ${groupEpoch}: ${err.message}`);
  }
  for (const id of ids) {
    const next = result.get(id) ?? EMPTY_ASSIGNMENT;
    const old = group.targetAssignment.get(id);
    if (old === undefined || !assignmentEquals(old, next)) records.push(shareTargetAssignmentRecord(group.groupId, id, next));
  }
  records.push(shareTargetAssignmentEpochRecord(group.groupId, groupEpoch, nowMs));
  return { epoch: groupEpoch, assignment: result.get(updatedId) ?? EMPTY_ASSIGNMENT };
}
