/**
 * The consumer-group records Kafka's GroupCoordinatorRecordHelpers builds, as Brook writes
 * them: record types 3 to 8 and 16 at value version 0. The subscription metadata is
 * ConsumerGroupPartitionMetadata, which Kafka 4.1 replaced by a hash in
 * ConsumerGroupMetadataValue and still reads. The current assignment's topics carry Kafka
 * 4.4's AssignmentEpochs, the target assignment metadata its AssignmentTimestamp.
 */
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import type { ConsumerGroupCurrentMemberAssignmentValueTopicPartitions } from '../../protocol/coordinator-records/consumer-group-current-member-assignment-value.js';
import type { ConsumerGroupTargetAssignmentMetadataValue } from '../../protocol/coordinator-records/consumer-group-target-assignment-metadata-value.js';
import { toTopicPartitions, type Assignment } from './assignment.js';
import type { ConsumerGroup, ResolvedRegex, SubscribedTopicMetadata } from './group.js';
import type { AssignmentEpochs, ConsumerGroupMember } from './member.js';

type TopicPartitions = ConsumerGroupCurrentMemberAssignmentValueTopicPartitions;

/** The topics of an assignment, each with its partitions' epochs as Kafka 4.4 writes them (same order as the partitions). */
function withAssignmentEpochs(a: Assignment, epochs: AssignmentEpochs, memberEpoch: number): TopicPartitions[] {
  return toTopicPartitions(a).map((t) => ({
    ...t,
    assignmentEpochs: t.partitions.map((p) => epochs.get(t.topicId)?.get(p) ?? Math.max(memberEpoch, 0)),
  }));
}

/**
 * A record's partition epochs (Kafka 4.4's Utils.assignmentFromTopicPartitions): its
 * AssignmentEpochs when there is one per partition, else the member epoch (at least 0).
 */
export function assignmentEpochsFromRecord(
  topics: readonly TopicPartitions[],
  memberEpoch: number,
  into = new Map<string, Map<number, number>>(),
): Map<string, Map<number, number>> {
  for (const t of topics) {
    const epochs = t.assignmentEpochs ?? null;
    const byPartition = into.get(t.topicId) ?? new Map<number, number>();
    t.partitions.forEach((p, i) => byPartition.set(p, epochs !== null && epochs.length === t.partitions.length ? epochs[i]! : Math.max(memberEpoch, 0)));
    into.set(t.topicId, byPartition);
  }
  return into;
}

export function epochRecord(groupId: string, epoch: number): ConsumerGroupRecord {
  return { type: 3, key: { groupId }, value: { epoch } };
}

export function epochTombstone(groupId: string): ConsumerGroupRecord {
  return { type: 3, key: { groupId }, value: null };
}

export function subscriptionMetadataRecord(groupId: string, metadata: ReadonlyMap<string, SubscribedTopicMetadata>): ConsumerGroupRecord {
  const topics = [...metadata.values()].map((t) => ({ topicId: t.topicId, topicName: t.name, numPartitions: t.numPartitions, partitionMetadata: [] }));
  return { type: 4, key: { groupId }, value: { topics } };
}

export function subscriptionMetadataTombstone(groupId: string): ConsumerGroupRecord {
  return { type: 4, key: { groupId }, value: null };
}

/** Kafka sorts the topic names it writes. */
export function memberSubscriptionRecord(groupId: string, m: ConsumerGroupMember): ConsumerGroupRecord {
  return {
    type: 5,
    key: { groupId, memberId: m.memberId },
    value: {
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames].sort(),
      subscribedTopicRegex: m.subscribedTopicRegex,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      serverAssignor: m.serverAssignorName,
      classicMemberMetadata: m.classicMemberMetadata === null
        ? null
        : { sessionTimeoutMs: m.classicMemberMetadata.sessionTimeoutMs, supportedProtocols: m.classicMemberMetadata.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })) },
    },
  };
}

export function memberSubscriptionTombstone(groupId: string, memberId: string): ConsumerGroupRecord {
  return { type: 5, key: { groupId, memberId }, value: null };
}

export function targetAssignmentRecord(groupId: string, memberId: string, assignment: Assignment): ConsumerGroupRecord {
  return { type: 7, key: { groupId, memberId }, value: { topicPartitions: toTopicPartitions(assignment) } };
}

export function targetAssignmentTombstone(groupId: string, memberId: string): ConsumerGroupRecord {
  return { type: 7, key: { groupId, memberId }, value: null };
}

/**
 * The target assignment's epoch, with the time it was computed (Kafka 4.4's
 * AssignmentTimestamp, KIP-1263; written only when not 0, its default).
 */
export function targetAssignmentEpochRecord(groupId: string, assignmentEpoch: number, timestampMs: number): ConsumerGroupRecord {
  return { type: 6, key: { groupId }, value: { assignmentEpoch, assignmentTimestamp: BigInt(timestampMs) } };
}

/** The AssignmentTimestamp a record carries (0 when absent: written before Kafka 4.4, or never computed). */
export function assignmentTimestampOf(value: ConsumerGroupTargetAssignmentMetadataValue): number {
  return Number(value.assignmentTimestamp ?? 0n);
}

export function targetAssignmentEpochTombstone(groupId: string): ConsumerGroupRecord {
  return { type: 6, key: { groupId }, value: null };
}

export function currentAssignmentRecord(groupId: string, m: ConsumerGroupMember): ConsumerGroupRecord {
  return {
    type: 8,
    key: { groupId, memberId: m.memberId },
    value: {
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: m.state,
      assignedPartitions: withAssignmentEpochs(m.assignedPartitions, m.assignmentEpochs, m.memberEpoch),
      partitionsPendingRevocation: withAssignmentEpochs(m.partitionsPendingRevocation, m.assignmentEpochs, m.memberEpoch),
    },
  };
}

export function currentAssignmentTombstone(groupId: string, memberId: string): ConsumerGroupRecord {
  return { type: 8, key: { groupId, memberId }, value: null };
}

/**
 * A regular expression's resolution (type 16): the matching topics (sorted, as Kafka writes
 * them), the metadata image's version and the time the resolution was asked for.
 */
export function regexRecord(groupId: string, regex: string, resolved: ResolvedRegex): ConsumerGroupRecord {
  return {
    type: 16,
    key: { groupId, regularExpression: regex },
    value: { topics: [...resolved.topics].sort(), version: BigInt(resolved.version), timestamp: BigInt(resolved.timestampMs) },
  };
}

export function regexTombstone(groupId: string, regex: string): ConsumerGroupRecord {
  return { type: 16, key: { groupId, regularExpression: regex }, value: null };
}

/** Kafka's removeMember: the member's three records go, in this order. */
export function memberTombstones(groupId: string, memberId: string): ConsumerGroupRecord[] {
  return [currentAssignmentTombstone(groupId, memberId), targetAssignmentTombstone(groupId, memberId), memberSubscriptionTombstone(groupId, memberId)];
}

/**
 * Kafka's static member replacement (both protocols): the member coming back under a new
 * member id takes the old one's place at epoch 0 with its target; the old member's records
 * go and the new one's are written. Returns the replacement.
 */
export function replaceStaticMember(group: ConsumerGroup, existing: ConsumerGroupMember, memberId: string, records: ConsumerGroupRecord[]): ConsumerGroupMember {
  const replacement: ConsumerGroupMember = { ...existing, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
  records.push(
    ...memberTombstones(group.groupId, existing.memberId),
    memberSubscriptionRecord(group.groupId, replacement),
    targetAssignmentRecord(group.groupId, memberId, group.targetAssignmentOf(existing.memberId)),
    currentAssignmentRecord(group.groupId, replacement),
  );
  return replacement;
}
