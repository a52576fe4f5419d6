/**
 * The consumer-group records Kafka's GroupCoordinatorRecordHelpers builds, as Brook writes
 * them: record types 3 to 8 at value version 0, with the fields of the schemas Brook has
 * (those of Kafka 4.0: the subscription metadata is ConsumerGroupPartitionMetadata, which
 * Kafka 4.1 replaced by a hash in ConsumerGroupMetadataValue and still reads).
 */
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import { toTopicPartitions, type Assignment } from './assignment.js';
import type { SubscribedTopicMetadata } from './group.js';
import type { ConsumerGroupMember } from './member.js';

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
      classicMemberMetadata: null,
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

export function targetAssignmentEpochRecord(groupId: string, assignmentEpoch: number): ConsumerGroupRecord {
  return { type: 6, key: { groupId }, value: { assignmentEpoch } };
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
      assignedPartitions: toTopicPartitions(m.assignedPartitions),
      partitionsPendingRevocation: toTopicPartitions(m.partitionsPendingRevocation),
    },
  };
}

export function currentAssignmentTombstone(groupId: string, memberId: string): ConsumerGroupRecord {
  return { type: 8, key: { groupId, memberId }, value: null };
}

/** Kafka's removeMember: the member's three records go, in this order. */
export function memberTombstones(groupId: string, memberId: string): ConsumerGroupRecord[] {
  return [currentAssignmentTombstone(groupId, memberId), targetAssignmentTombstone(groupId, memberId), memberSubscriptionTombstone(groupId, memberId)];
}
