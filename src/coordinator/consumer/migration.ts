/**
 * Online migration between classic and consumer groups (KIP-848's upgrade path), after
 * Kafka's GroupMetadataManager.convertToConsumerGroup / convertToClassicGroup,
 * ConsumerGroup.fromClassicGroup and ClassicGroup.fromConsumerGroup:
 *
 * - upgrade: a ConsumerGroupHeartbeat joining a classic group with members (policy
 *   `upgrade` or `bidirectional`) turns it into a consumer group at once: every classic
 *   member becomes a member of the consumer group at the group's generation, keeping its
 *   assignment, and the joining member then bumps the epoch (the classic members learn it
 *   from their heartbeats and rejoin with JoinGroup, served by the consumer group);
 * - downgrade: when the last consumer-protocol member leaves (or a classic static member
 *   replaces it), policy `downgrade` or `bidirectional`, the group becomes a classic group
 *   of the remaining members, Stable at the group epoch with their target assignments,
 *   which then rebalances.
 *
 * Each writes Kafka's records: the old group's tombstones, then the new group's records.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment, decodeSubscription, encodeAssignment } from '../../protocol/consumer-protocol.js';
import { ConsumerProtocolAssignment } from '../../protocol/messages/consumer-protocol-assignment.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { ClassicGroup } from '../classic/group.js';
import type { ClassicGroupMember } from '../classic/member.js';
import { writeRecord } from '../replay.js';
import { consumerRebalanceKey, consumerSessionKey, heartbeatKey, joinKey, syncKey, type Operation } from '../operation.js';
import { answerJoin, answerSync, prepareRebalance, rescheduleHeartbeat } from '../classic/rebalance.js';
import { groupMetadataRecord, groupMetadataTombstone } from '../records.js';
import { isDowngradeEnabled, isUpgradeEnabled } from '../types.js';
import { assignmentFromRecord, type Assignment } from './assignment.js';
import { consumerGroupTombstones } from './classic-apis.js';
import { ConsumerGroupError, groupIdNotFound } from './errors.js';
import type { ConsumerGroup } from './group.js';
import { javaSetOrder } from './java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import { MemberState, newMember, uniformAssignmentEpochs, usesClassicProtocol, type ConsumerGroupMember } from './member.js';
import { currentAssignmentRecord, epochRecord, memberSubscriptionRecord, subscriptionMetadataRecord, targetAssignmentEpochRecord, targetAssignmentRecord } from './records.js';
import { computeSubscriptionMetadata } from './subscription.js';
import { writeConsumerGroupRecords } from './write.js';
import type { SubscriptionCount } from './group.js';

/** Kafka's validateOnlineUpgrade: GROUP_ID_NOT_FOUND with its messages when not allowed. */
export function validateOnlineUpgrade(s: CoordinatorState, classic: ClassicGroup): void {
  const id = classic.groupId;
  if (!isUpgradeEnabled(s.config.consumerGroupMigrationPolicy)) {
    throw groupIdNotFound(`Cannot upgrade classic group ${id} to consumer group because online upgrade is disabled.`);
  }
  if (!classic.usesConsumerProtocol()) {
    throw groupIdNotFound(`Cannot upgrade classic group ${id} to consumer group because the group does not use the consumer embedded protocol.`);
  }
  if (classic.numMembers > s.config.consumerGroupMaxSize) {
    throw groupIdNotFound(`Cannot upgrade classic group ${id} to consumer group because the group size exceeds the consumer group maximum size.`);
  }
}

/** A classic member as a member of the consumer group (ConsumerGroup.fromClassicGroup). */
function memberFromClassic(s: CoordinatorState, classic: ClassicGroup, m: ClassicGroupMember): { member: ConsumerGroupMember; target: Assignment } {
  const id = classic.groupId;
  const malformed = (): ConsumerGroupError =>
    groupIdNotFound(`Cannot upgrade classic group ${id} to consumer group because the embedded consumer protocol is malformed.`);
  let assigned: Assignment = new Map();
  if (m.assignment.length > 0) {
    let decoded;
    try {
      decoded = decodeAssignment(m.assignment).assignment;
    } catch {
      throw malformed();
    }
    // A custom assignor's user data would be lost: Kafka refuses the upgrade.
    if (decoded.userData !== null && decoded.userData.length > 0) {
      throw groupIdNotFound(`Cannot upgrade classic group ${id} to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade.`);
    }
    const topics: { topicId: string; partitions: number[] }[] = [];
    for (const t of decoded.assignedPartitions) {
      const topic = s.metadata.byName(t.topic);
      if (topic !== undefined) topics.push({ topicId: topic.topicId, partitions: t.partitions });
    }
    assigned = assignmentFromRecord(topics);
  }
  // Kafka reads the chosen protocol's metadata; a group that never chose one has none.
  if (classic.protocolName === null) throw new ConsumerGroupError(ErrorCode.UNKNOWN_SERVER_ERROR, `Group ${id} has no protocol.`);
  let subscription;
  try {
    subscription = decodeSubscription(m.metadata(classic.protocolName)).subscription;
  } catch {
    throw malformed();
  }
  const member: ConsumerGroupMember = {
    ...newMember(m.memberId),
    memberEpoch: classic.generationId,
    previousMemberEpoch: classic.generationId,
    state: MemberState.STABLE,
    instanceId: m.groupInstanceId,
    rackId: subscription.rackId !== null && subscription.rackId !== undefined && subscription.rackId !== '' ? subscription.rackId : null,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    clientId: m.clientId,
    clientHost: m.clientHost,
    subscribedTopicNames: javaSetOrder(stringHash, subscription.topics),
    classicMemberMetadata: { sessionTimeoutMs: m.sessionTimeoutMs, supportedProtocols: m.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })) },
    assignedPartitions: assigned,
    assignmentEpochs: uniformAssignmentEpochs(classic.generationId, assigned),
  };
  return { member, target: assigned };
}

/**
 * Kafka's convertToConsumerGroup: the classic group's parked JoinGroups and SyncGroups are
 * answered REBALANCE_IN_PROGRESS, its GroupMetadata is tombstoned, and the consumer group is
 * written (members, subscription metadata, epoch = the generation, targets = the current
 * assignments, assignment epoch, current assignments). Its members' sessions are the
 * classic members' session timeouts. Returns the consumer group.
 */
export function convertToConsumerGroup(s: CoordinatorState, op: Operation, classic: ClassicGroup): ConsumerGroup {
  const groupId = classic.groupId;
  // Computed first: a member that cannot be converted leaves the classic group untouched.
  const converted = [...classic.members.values()].map((m) => memberFromClassic(s, classic, m));

  for (const m of classic.members.values()) {
    answerJoin(op, classic, m, { errorCode: ErrorCode.REBALANCE_IN_PROGRESS, memberId: m.memberId });
    answerSync(op, classic, m, { errorCode: ErrorCode.REBALANCE_IN_PROGRESS });
    op.cancel(heartbeatKey(groupId, m.memberId));
  }
  for (const pending of classic.pendingJoinMembers) op.cancel(heartbeatKey(groupId, pending));
  op.cancel(joinKey(groupId));
  op.cancel(syncKey(groupId));
  writeRecord(s, op, groupMetadataTombstone(groupId));

  const counts = new Map<string, SubscriptionCount>();
  for (const { member } of converted) {
    for (const t of member.subscribedTopicNames) counts.set(t, { byName: (counts.get(t)?.byName ?? 0) + 1, byRegex: 0 });
  }
  const records: ConsumerGroupRecord[] = [
    ...converted.map(({ member }) => memberSubscriptionRecord(groupId, member)),
    subscriptionMetadataRecord(groupId, computeSubscriptionMetadata(counts, s.metadata)),
    epochRecord(groupId, classic.generationId),
    ...converted.map(({ member, target }) => targetAssignmentRecord(groupId, member.memberId, target)),
    targetAssignmentEpochRecord(groupId, classic.generationId, 0),
    ...converted.map(({ member }) => currentAssignmentRecord(groupId, member)),
  ];
  writeConsumerGroupRecords(s, op, records, null);
  op.event({ type: 'group-converted', groupId, from: 'classic', to: 'consumer', members: converted.length });
  for (const { member } of converted) {
    op.schedule(consumerSessionKey(groupId, member.memberId), member.classicMemberMetadata!.sessionTimeoutMs, { kind: 'consumer-session', groupId, memberId: member.memberId });
  }
  return s.consumerGroups.get(groupId)!;
}

function numClassicProtocolMembers(group: ConsumerGroup): number {
  let n = 0;
  for (const m of group.members.values()) if (usesClassicProtocol(m)) n++;
  return n;
}

/**
 * Kafka's ConsumerGroup.supportsClassicProtocols: a JoinGroup may join when its protocol
 * type is "consumer" and one of its protocols is supported by every classic member.
 */
export function supportsClassicProtocols(group: ConsumerGroup, protocolType: string, protocols: ReadonlySet<string>): boolean {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE) return false;
  if (group.numMembers === 0) return protocols.size > 0;
  const classicMembers = numClassicProtocolMembers(group);
  const counts = new Map<string, number>();
  for (const m of group.members.values()) for (const p of m.classicMemberMetadata?.supportedProtocols ?? []) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
  for (const name of protocols) if ((counts.get(name) ?? 0) === classicMembers) return true;
  return false;
}

/** Kafka's validateOnlineDowngradeWithFencedMembers: every member left after them uses the classic protocol. */
export function canDowngradeWithFencedMembers(s: CoordinatorState, group: ConsumerGroup, fenced: readonly ConsumerGroupMember[]): boolean {
  const leaving = new Set(fenced.map((m) => m.memberId));
  for (const m of group.members.values()) if (!leaving.has(m.memberId) && !usesClassicProtocol(m)) return false;
  if (group.numMembers - fenced.length <= 0) return false;
  if (!isDowngradeEnabled(s.config.consumerGroupMigrationPolicy)) return false;
  return group.numMembers - fenced.length <= s.config.maxGroupSize;
}

/** Kafka's validateOnlineDowngradeWithReplacedMember: the replaced static member was the last consumer-protocol one. */
export function canDowngradeWithReplacedMember(s: CoordinatorState, group: ConsumerGroup, replaced: ConsumerGroupMember): boolean {
  if (usesClassicProtocol(replaced)) return false;
  for (const m of group.members.values()) if (m.memberId !== replaced.memberId && !usesClassicProtocol(m)) return false;
  if (!isDowngradeEnabled(s.config.consumerGroupMigrationPolicy)) return false;
  return group.numMembers <= s.config.maxGroupSize;
}

/**
 * A member's target as a consumer-protocol assignment, encoded at the version of its
 * subscription (Kafka's toConsumerProtocolAssignment and ConsumerProtocol.serializeAssignment):
 * topics the broker no longer has are left out.
 */
export function classicAssignment(s: CoordinatorState, assignment: Assignment, subscriptionMetadata: Buffer): Buffer {
  const assignedPartitions: { topic: string; partitions: number[] }[] = [];
  for (const [topicId, partitions] of assignment) {
    const topic = s.metadata.byId(topicId);
    if (topic !== undefined) assignedPartitions.push({ topic: topic.name, partitions: [...partitions] });
  }
  const version = subscriptionMetadata.length >= 2 ? subscriptionMetadata.readInt16BE(0) : 0;
  const clamped = Math.max(ConsumerProtocolAssignment.lowestVersion, Math.min(version, ConsumerProtocolAssignment.highestVersion));
  return encodeAssignment({ assignedPartitions, userData: null }, clamped);
}

/**
 * Kafka's convertToClassicGroup: the consumer group's records are tombstoned (the joining
 * static member in place of the one it replaced) and a classic group of the remaining
 * members is written: Stable at the group epoch, protocol voted among the members, each
 * member's target assignment as its assignment. Its members' classic sessions start, and
 * it rebalances when asked (`rebalance`: a member left, or the assignment was stale).
 *
 * `group` is as the request found it: `pending` are the records the request built on it
 * (the joining member replacing the old one), written first, as Kafka writes them.
 */
export function convertToClassicGroup(
  s: CoordinatorState,
  op: Operation,
  group: ConsumerGroup,
  leaving: readonly ConsumerGroupMember[],
  joining: ConsumerGroupMember | null,
  rebalance: boolean,
  pending: readonly ConsumerGroupRecord[] = [],
): ClassicGroup {
  const groupId = group.groupId;
  const replaced = joining === null ? undefined : group.staticMember(joining.instanceId);
  if (joining !== null && replaced === undefined) throw new Error('joiningMember must be a static member when not null.');
  const classic = new ClassicGroup(groupId, 'Stable', op.nowMs, s.journal, { generationId: group.groupEpoch, protocolType: CONSUMER_PROTOCOL_TYPE, protocolName: null, leaderId: null });
  const gone = new Set(leaving.map((m) => m.memberId));
  const classicMember = (m: ConsumerGroupMember): ClassicGroupMember =>
    classic.newMember(m.memberId, m.instanceId, m.clientId, m.clientHost, m.rebalanceTimeoutMs, m.classicMemberMetadata!.sessionTimeoutMs, CONSUMER_PROTOCOL_TYPE,
      m.classicMemberMetadata!.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })));
  for (const m of group.members.values()) {
    if (gone.has(m.memberId) || (joining !== null && m.instanceId !== null && m.instanceId === joining.instanceId)) continue;
    classic.add(classicMember(m), null);
  }
  if (joining !== null) classic.add(classicMember(joining), null);
  classic.protocolName = classic.selectProtocol();
  classic.subscribedTopics = classic.computeSubscribedTopics();
  // Each member's target as its assignment: the classic group's record carries them.
  const assignments = new Map<string, Buffer>();
  for (const m of classic.members.values()) {
    const targetOf = joining !== null && m.memberId === joining.memberId ? replaced!.memberId : m.memberId;
    assignments.set(m.memberId, classicAssignment(s, group.targetAssignmentOf(targetOf), m.metadata(classic.protocolName)));
  }

  // The consumer group's records go; its members' timers with it.
  const tombstones = consumerGroupTombstones(group);
  const records = replaced === undefined || joining === null
    ? tombstones
    : tombstones.map((r) => ('memberId' in r.key && r.key.memberId === replaced.memberId ? withMember(r, joining.memberId) : r));
  for (const m of group.members.values()) {
    op.cancel(consumerSessionKey(groupId, m.memberId));
    op.cancel(consumerRebalanceKey(groupId, m.memberId));
  }
  writeConsumerGroupRecords(s, op, [...pending, ...records], null);

  // The group is built in memory with what its record cannot carry (every protocol of each
  // member, for the votes to come), then takes what the record carries from its replay.
  s.putGroup(classic);
  writeRecord(s, op, groupMetadataRecord(classic, assignments));
  op.event({ type: 'group-converted', groupId, from: 'consumer', to: 'classic', members: classic.numMembers });
  if (joining !== null) {
    op.event({
      type: 'member-joined', groupType: 'classic', groupId, memberId: joining.memberId, groupInstanceId: joining.instanceId,
      clientId: joining.clientId, clientHost: joining.clientHost, protocol: 'classic',
    });
  }
  for (const m of classic.members.values()) rescheduleHeartbeat(op, classic, m);
  if (rebalance) prepareRebalance(s, op, classic, `downgrade group ${groupId} from consumer to classic`);
  return classic;
}

function withMember(record: ConsumerGroupRecord, memberId: string): ConsumerGroupRecord {
  return { ...record, key: { ...record.key, memberId } } as ConsumerGroupRecord;
}
