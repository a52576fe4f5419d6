/**
 * What each consumer-group record does to the state (Kafka's GroupMetadataManager.replay
 * methods for record types 3 to 8 and 16). The live path applies the records it writes
 * through the same function, so a restart that replays them rebuilds the same groups.
 *
 * Kafka throws IllegalStateException on tombstones that arrive out of order (a member whose
 * current assignment was not deleted first, a group that still has members): Brook's own
 * writes keep Kafka's order, so replay applies them as they come instead of refusing to
 * start.
 */
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import { javaSetOrder } from './java-hash.js';
import { stringHash } from '../../util/string-hash.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { assignmentFromRecord, EMPTY_ASSIGNMENT } from './assignment.js';
import { EMPTY_ASSIGNMENT_EPOCHS, LEAVE_GROUP_MEMBER_EPOCH, memberStateFromValue, newMember } from './member.js';
import { assignmentEpochsFromRecord, assignmentTimestampOf } from './records.js';

export function applyConsumerGroupRecord(s: CoordinatorState, record: ConsumerGroupRecord, nowMs: number | null): void {
  const groupId = record.key.groupId;
  if (record.value === null) {
    const group = s.consumerGroups.get(groupId);
    if (group === undefined) return;
    switch (record.type) {
      case 3:
        s.removeConsumerGroup(groupId);
        return;
      case 4:
        group.setSubscriptionMetadata(new Map());
        return;
      case 5:
        group.removeMember(record.key.memberId);
        return;
      case 6:
        group.setAssignmentMetadata(-1, 0);
        return;
      case 7:
        group.removeTargetAssignment(record.key.memberId);
        return;
      case 8: {
        const m = group.member(record.key.memberId);
        if (m === undefined) return;
        group.updateMember({
          ...m,
          memberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
          previousMemberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
          assignedPartitions: EMPTY_ASSIGNMENT,
          partitionsPendingRevocation: EMPTY_ASSIGNMENT,
          assignmentEpochs: EMPTY_ASSIGNMENT_EPOCHS,
        });
        return;
      }
      case 16:
        group.updateResolvedRegex(record.key.regularExpression, null);
        return;
    }
  }
  const group = s.getOrCreateConsumerGroup(groupId, nowMs);
  switch (record.type) {
    case 3:
      group.setGroupEpoch(record.value.epoch);
      return;
    case 4:
      group.setSubscriptionMetadata(new Map(record.value.topics.map((t) => [t.topicName, { topicId: t.topicId, name: t.topicName, numPartitions: t.numPartitions }])));
      return;
    case 5: {
      const v = record.value;
      const m = group.member(record.key.memberId) ?? newMember(record.key.memberId);
      group.updateMember({
        ...m,
        instanceId: v.instanceId,
        rackId: v.rackId,
        clientId: v.clientId,
        clientHost: v.clientHost,
        // Kafka rebuilds a HashSet from the (sorted) list it wrote.
        subscribedTopicNames: javaSetOrder(stringHash, v.subscribedTopicNames),
        subscribedTopicRegex: v.subscribedTopicRegex,
        rebalanceTimeoutMs: v.rebalanceTimeoutMs,
        serverAssignorName: v.serverAssignor,
        classicMemberMetadata: v.classicMemberMetadata === null || v.classicMemberMetadata === undefined
          ? null
          : { sessionTimeoutMs: v.classicMemberMetadata.sessionTimeoutMs, supportedProtocols: v.classicMemberMetadata.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })) },
      });
      return;
    }
    case 6:
      group.setAssignmentMetadata(record.value.assignmentEpoch, assignmentTimestampOf(record.value));
      return;
    case 7:
      group.updateTargetAssignment(record.key.memberId, assignmentFromRecord(record.value.topicPartitions));
      return;
    case 8: {
      const v = record.value;
      const m = group.member(record.key.memberId) ?? newMember(record.key.memberId);
      group.updateMember({
        ...m,
        memberEpoch: v.memberEpoch,
        previousMemberEpoch: v.previousMemberEpoch,
        state: memberStateFromValue(v.state),
        assignedPartitions: assignmentFromRecord(v.assignedPartitions),
        partitionsPendingRevocation: assignmentFromRecord(v.partitionsPendingRevocation),
        assignmentEpochs: assignmentEpochsFromRecord(v.partitionsPendingRevocation, v.memberEpoch, assignmentEpochsFromRecord(v.assignedPartitions, v.memberEpoch)),
      });
      return;
    }
    case 16: {
      const v = record.value;
      // The image's version when the topics were matched (Kafka: the metadata offset). Brook's
      // image counts its own changes: one that restarts counts on from the versions it reads,
      // so a resolution read from the log is older than the topics given after the load.
      s.metadata.notBefore(Number(v.version));
      // Kafka writes the topics sorted and reads them back into a HashSet.
      group.updateResolvedRegex(record.key.regularExpression, { topics: javaSetOrder(stringHash, v.topics), version: Number(v.version), timestampMs: Number(v.timestamp) });
      return;
    }
  }
}
