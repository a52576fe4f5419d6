/**
 * A new target assignment (Kafka's TargetAssignmentBuilder): every member's subscription
 * and current target, with the updated member in place (a static member that replaces an
 * old one inherits that one's target), handed to the group's server assignor; a record for
 * each member whose target changed (and for a new member, even when empty), then the
 * assignment epoch and the time it was computed.
 *
 * Kafka 4.4 computes one at most every `group.consumer.assignment.interval.ms` (KIP-1263):
 * until then a member reconciles towards the last target, at its epoch
 * (maybeUpdateTargetAssignment), and the next heartbeat after the interval computes it.
 */
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { assignmentEquals, EMPTY_ASSIGNMENT, type Assignment } from './assignment.js';
import { BUILTIN_ASSIGNORS, PartitionAssignorError, type MemberSubscriptionSpec } from './assignors/index.js';
import { ConsumerGroupError } from './errors.js';
import type { ConsumerGroup, SubscriptionType } from './group.js';
import { JavaHashSet } from './java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import type { ConsumerGroupMember } from './member.js';
import { targetAssignmentEpochRecord, targetAssignmentRecord } from './records.js';
import { memberTopicIds } from './subscription.js';
import { computePreferredServerAssignor } from './views.js';

/** The assignor a group uses: the one most of its members ask for, else the configured default. */
export function preferredAssignor(s: CoordinatorState, group: ConsumerGroup, oldMember?: ConsumerGroupMember, newMember?: ConsumerGroupMember): string {
  return computePreferredServerAssignor(group, oldMember, newMember) ?? s.config.consumerGroupAssignors[0]!;
}

export interface TargetAssignment {
  readonly epoch: number;
  readonly assignment: Assignment;
}

/** Kafka's canComputeNextTargetAssignment: never computed (0), no interval, or the interval passed. */
export function canComputeNextTargetAssignment(lastMs: number, intervalMs: number, nowMs: number): boolean {
  return lastMs === 0 || intervalMs === 0 || nowMs >= lastMs + intervalMs;
}

/**
 * Kafka's maybeUpdateTargetAssignment: the member's target at the group epoch when the group
 * epoch passed the assignment epoch and the assignment interval allows a new computation,
 * else its last target at the assignment epoch.
 */
export function maybeUpdateTargetAssignment(
  s: CoordinatorState,
  group: ConsumerGroup,
  groupEpoch: number,
  member: ConsumerGroupMember | undefined,
  updatedMember: ConsumerGroupMember,
  subscriptionType: SubscriptionType,
  records: ConsumerGroupRecord[],
  nowMs: number,
): TargetAssignment {
  const last = { epoch: group.assignmentEpoch, assignment: group.targetAssignmentFor(updatedMember.memberId, updatedMember.instanceId) };
  if (group.assignmentEpoch >= groupEpoch) return last;
  if (!canComputeNextTargetAssignment(group.assignmentTimestampMs, s.config.consumerGroupAssignmentIntervalMs, nowMs)) return last;
  return { epoch: groupEpoch, assignment: updateTargetAssignment(s, group, groupEpoch, member, updatedMember, subscriptionType, records, nowMs) };
}

function updateTargetAssignment(
  s: CoordinatorState,
  group: ConsumerGroup,
  groupEpoch: number,
  member: ConsumerGroupMember | undefined,
  updatedMember: ConsumerGroupMember,
  subscriptionType: SubscriptionType,
  records: ConsumerGroupRecord[],
  nowMs: number,
): Assignment {
  const name = preferredAssignor(s, group, member, updatedMember);
  const assignor = BUILTIN_ASSIGNORS.get(name);
  if (assignor === undefined) throw new ConsumerGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, `Unknown assignor ${name}`);

  // The members as Kafka's HashMap of member specs holds them (its order feeds the assignor).
  // Kafka puts them in its TimelineHashMap's order, which only decides between ids of one
  // bucket; Brook puts them by member id, so that a replayed group assigns as the live one.
  const ids = JavaHashSet.empty(stringHash);
  const specs = new Map<string, MemberSubscriptionSpec>();
  const spec = (m: ConsumerGroupMember, assignment: Assignment): MemberSubscriptionSpec => ({
    instanceId: m.instanceId,
    rackId: m.rackId,
    subscribedTopicIds: memberTopicIds(m, group.resolvedRegularExpressions, s.metadata),
    assignment,
  });
  for (const [id, m] of [...group.members].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    ids.add(id);
    specs.set(id, spec(m, group.targetAssignmentOf(id)));
  }
  let assignment = group.targetAssignmentOf(updatedMember.memberId);
  const previousId = group.staticMemberId(updatedMember.instanceId);
  if (previousId !== undefined && previousId !== updatedMember.memberId) assignment = group.targetAssignmentOf(previousId);
  ids.add(updatedMember.memberId);
  specs.set(updatedMember.memberId, spec(updatedMember, assignment));
  if (previousId !== undefined && previousId !== updatedMember.memberId) {
    ids.delete(previousId);
    specs.delete(previousId);
  }

  let result;
  try {
    result = assignor.assign(
      {
        members: new Map(ids.values().map((id) => [id, specs.get(id)!])),
        subscriptionType,
        isPartitionAssigned: (topicId, p) => group.isPartitionAssigned(topicId, p),
      },
      { numPartitions: (topicId) => s.metadata.byId(topicId)?.numPartitions ?? -1 },
    );
  } catch (err) {
    if (!(err instanceof PartitionAssignorError)) throw err;
    throw new ConsumerGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, `Failed to compute a new target assignment for epoch ${groupEpoch}: ${err.message}`);
  }
  for (const id of ids.values()) {
    const next = result.get(id) ?? EMPTY_ASSIGNMENT;
    const old = group.targetAssignment.get(id);
    if (old === undefined || !assignmentEquals(old, next)) records.push(targetAssignmentRecord(group.groupId, id, next));
  }
  records.push(targetAssignmentEpochRecord(group.groupId, groupEpoch, nowMs));
  return result.get(updatedMember.memberId) ?? EMPTY_ASSIGNMENT;
}
