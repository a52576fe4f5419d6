/**
 * What each share-group record does to the state (Kafka's GroupMetadataManager.replay
 * methods for record types 10 to 15). The live path applies the records it writes through
 * the same function, so a restart that replays them rebuilds the same groups.
 */
import type { ShareGroupRecord } from '../../protocol/coordinator-records/share-group-framing.js';
import type { TopicPartitionsInfo } from '../../protocol/coordinator-records/share-group-state-partition-metadata-value.js';
import { javaSetOrder } from '../consumer/java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import { assignmentFromRecord, EMPTY_ASSIGNMENT } from '../consumer/assignment.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { InitMapValue } from './group.js';
import { newShareMember, SHARE_LEAVE_GROUP_MEMBER_EPOCH } from './member.js';

/** Kafka gives the partitions it reads the replay's time (an initializing topic is retried after group.share.initialize.retry.interval.ms). */
function initMap(topics: readonly TopicPartitionsInfo[], nowMs: number): Map<string, InitMapValue> {
  return new Map(topics.map((t) => [t.topicId, { name: t.topicName, partitions: [...t.partitions], timestampMs: nowMs }]));
}

export function applyShareGroupRecord(s: CoordinatorState, record: ShareGroupRecord, nowMs: number | null): void {
  const groupId = record.key.groupId;
  if (record.value === null) {
    const group = s.shareGroups.get(groupId);
    if (group === undefined) return;
    switch (record.type) {
      case 10:
        group.removeMember(record.key.memberId);
        return;
      case 11:
        s.removeShareGroup(groupId);
        return;
      case 12:
        group.setAssignmentMetadata(-1, 0);
        return;
      case 13:
        group.removeTargetAssignment(record.key.memberId);
        return;
      case 14: {
        const m = group.member(record.key.memberId);
        if (m !== undefined) group.updateMember({ ...m, memberEpoch: SHARE_LEAVE_GROUP_MEMBER_EPOCH, previousMemberEpoch: SHARE_LEAVE_GROUP_MEMBER_EPOCH, assignedPartitions: EMPTY_ASSIGNMENT });
        return;
      }
      case 15:
        group.setStatePartitionMetadata(null);
        return;
    }
  }
  const group = s.getOrCreateShareGroup(groupId, nowMs);
  switch (record.type) {
    case 10: {
      const v = record.value;
      const m = group.member(record.key.memberId) ?? newShareMember(record.key.memberId);
      // Kafka rebuilds a HashSet from the (sorted) list it wrote.
      group.updateMember({ ...m, rackId: v.rackId, clientId: v.clientId, clientHost: v.clientHost, subscribedTopicNames: javaSetOrder(stringHash, v.subscribedTopicNames) });
      return;
    }
    case 11:
      group.setGroupEpoch(record.value.epoch, record.value.metadataHash);
      return;
    case 12:
      group.setAssignmentMetadata(record.value.assignmentEpoch, Number(record.value.assignmentTimestamp ?? 0n));
      return;
    case 13:
      group.updateTargetAssignment(record.key.memberId, assignmentFromRecord(record.value.topicPartitions));
      return;
    case 14: {
      const v = record.value;
      const m = group.member(record.key.memberId) ?? newShareMember(record.key.memberId);
      group.updateMember({ ...m, memberEpoch: v.memberEpoch, previousMemberEpoch: v.previousMemberEpoch, state: v.state, assignedPartitions: assignmentFromRecord(v.assignedPartitions) });
      return;
    }
    case 15: {
      const v = record.value;
      const at = nowMs ?? 0;
      group.setStatePartitionMetadata({
        initializingTopics: initMap(v.initializingTopics, at),
        initializedTopics: initMap(v.initializedTopics, at),
        deletingTopics: new Set(v.deletingTopics.map((t) => t.topicId)),
      });
      return;
    }
  }
}
