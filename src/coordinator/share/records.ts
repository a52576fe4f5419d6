/**
 * The share-group records (Kafka's GroupCoordinatorRecordHelpers.newShareGroup*): types 10
 * to 15 as values, built by the operations and applied by replay.ts.
 */
import type { ShareGroupRecord } from '../../protocol/coordinator-records/share-group-framing.js';
import { toTopicPartitions, type Assignment } from '../consumer/assignment.js';
import type { InitMapValue } from './group.js';
import type { ShareGroupMember } from './member.js';

export function shareEpochRecord(groupId: string, epoch: number, metadataHash: bigint): ShareGroupRecord {
  return { type: 11, key: { groupId }, value: { epoch, metadataHash } };
}

export function shareEpochTombstone(groupId: string): ShareGroupRecord {
  return { type: 11, key: { groupId }, value: null };
}

/** Kafka sorts the topic names it writes. */
export function shareMemberSubscriptionRecord(groupId: string, m: ShareGroupMember): ShareGroupRecord {
  return {
    type: 10,
    key: { groupId, memberId: m.memberId },
    value: { rackId: m.rackId, clientId: m.clientId, clientHost: m.clientHost, subscribedTopicNames: [...m.subscribedTopicNames].sort() },
  };
}

export function shareMemberSubscriptionTombstone(groupId: string, memberId: string): ShareGroupRecord {
  return { type: 10, key: { groupId, memberId }, value: null };
}

export function shareTargetAssignmentRecord(groupId: string, memberId: string, assignment: Assignment): ShareGroupRecord {
  return { type: 13, key: { groupId, memberId }, value: { topicPartitions: toTopicPartitions(assignment) } };
}

export function shareTargetAssignmentTombstone(groupId: string, memberId: string): ShareGroupRecord {
  return { type: 13, key: { groupId, memberId }, value: null };
}

/** The target assignment's epoch and when it was computed (0: not computed, e.g. the last member left). */
export function shareTargetAssignmentEpochRecord(groupId: string, assignmentEpoch: number, timestampMs: number): ShareGroupRecord {
  return { type: 12, key: { groupId }, value: { assignmentEpoch, assignmentTimestamp: BigInt(timestampMs) } };
}

export function shareTargetAssignmentEpochTombstone(groupId: string): ShareGroupRecord {
  return { type: 12, key: { groupId }, value: null };
}

export function shareCurrentAssignmentRecord(groupId: string, m: ShareGroupMember): ShareGroupRecord {
  return {
    type: 14,
    key: { groupId, memberId: m.memberId },
    value: { memberEpoch: m.memberEpoch, previousMemberEpoch: m.previousMemberEpoch, state: m.state, assignedPartitions: toTopicPartitions(m.assignedPartitions) },
  };
}

export function shareCurrentAssignmentTombstone(groupId: string, memberId: string): ShareGroupRecord {
  return { type: 14, key: { groupId, memberId }, value: null };
}

function topicsInfo(topics: ReadonlyMap<string, InitMapValue>): { topicId: string; topicName: string; partitions: number[] }[] {
  return [...topics].map(([topicId, v]) => ({ topicId, topicName: v.name, partitions: [...v.partitions] }));
}

/**
 * Kafka's newShareGroupStatePartitionMetadataRecord: the initializing and initialized
 * topics with their partitions, and the topics being deleted (`deletingNames`: id → name).
 */
export function shareStatePartitionMetadataRecord(
  groupId: string,
  initializing: ReadonlyMap<string, InitMapValue>,
  initialized: ReadonlyMap<string, InitMapValue>,
  deletingNames: ReadonlyMap<string, string>,
): ShareGroupRecord {
  return {
    type: 15,
    key: { groupId },
    value: {
      initializingTopics: topicsInfo(initializing),
      initializedTopics: topicsInfo(initialized),
      deletingTopics: [...deletingNames].map(([topicId, topicName]) => ({ topicId, topicName })),
    },
  };
}

export function shareStatePartitionMetadataTombstone(groupId: string): ShareGroupRecord {
  return { type: 15, key: { groupId }, value: null };
}

/** Kafka's shareGroupFenceMember: the member's three records go, in this order. */
export function shareMemberTombstones(groupId: string, memberId: string): ShareGroupRecord[] {
  return [shareCurrentAssignmentTombstone(groupId, memberId), shareTargetAssignmentTombstone(groupId, memberId), shareMemberSubscriptionTombstone(groupId, memberId)];
}

/** Kafka's ShareGroup.createGroupTombstoneRecords of an Empty group (DeleteGroups). */
export function shareGroupTombstones(groupId: string): ShareGroupRecord[] {
  return [shareTargetAssignmentEpochTombstone(groupId), shareStatePartitionMetadataTombstone(groupId), shareEpochTombstone(groupId)];
}
