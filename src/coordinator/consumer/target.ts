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
import { compareIds, javaPutOrder } from './java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import type { ConsumerGroupMember } from './member.js';
import { targetAssignmentEpochRecord, targetAssignmentRecord } from './records.js';
import { memberTopicIds } from './subscription.js';
import { computePreferredServerAssignor } from './views.js';

/** The assignor a group uses: the one most of its members ask for, else the configured default. */
export function preferredAssignor(s: CoordinatorState, group: ConsumerGroup, oldMember?: ConsumerGroupMember, newMember?: ConsumerGroupMember): string {
  return computePreferredServerAssignor(group, oldMember, newMember) ?? s.config.consumerGroupAssignors[0]!;
}

/**
 * A member as the assignor sees it. Its topic ids are resolved when the assignor asks: the
 * uniform assignor of a homogeneous group reads one member's only.
 */
class MemberSpec implements MemberSubscriptionSpec {
  private topicIds: string[] | null = null;

  constructor(
    private readonly member: ConsumerGroupMember,
    readonly assignment: Assignment,
    private readonly group: ConsumerGroup,
    private readonly s: CoordinatorState,
  ) {}

  get instanceId(): string | null {
    return this.member.instanceId;
  }

  get rackId(): string | null {
    return this.member.rackId;
  }

  get subscribedTopicIds(): readonly string[] {
    this.topicIds ??= memberTopicIds(this.member, this.group.resolvedRegularExpressions, this.s.metadata);
    return this.topicIds;
  }
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
  // The updated member goes in last; a static member's previous id is taken out.
  const updatedId = updatedMember.memberId;
  const staticId = group.staticMemberId(updatedMember.instanceId);
  const previousId = staticId !== undefined && staticId !== updatedId ? staticId : undefined;
  const ids = javaPutOrder(stringHash, group.members.keys(), compareIds, updatedId, previousId);
  // A member inherits its static predecessor's target.
  const updatedAssignment = group.targetAssignmentOf(previousId ?? updatedId);
  const specs = new Map<string, MemberSubscriptionSpec>();
  for (const id of ids) {
    const m = id === updatedId ? updatedMember : group.members.get(id)!;
    specs.set(id, new MemberSpec(m, id === updatedId ? updatedAssignment : group.targetAssignmentOf(id), group, s));
  }

  let result;
  try {
    result = assignor.assign(
      {
        members: specs,
        subscriptionType,
        isPartitionAssigned: (topicId, p) => group.isPartitionAssigned(topicId, p),
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
    if (old === undefined || !assignmentEquals(old, next)) records.push(targetAssignmentRecord(group.groupId, id, next));
  }
  records.push(targetAssignmentEpochRecord(group.groupId, groupEpoch, nowMs));
  return result.get(updatedMember.memberId) ?? EMPTY_ASSIGNMENT;
}
