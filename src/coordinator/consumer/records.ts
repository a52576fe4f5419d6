/**
 * The consumer-group records Kafka's GroupCoordinatorRecordHelpers builds, as Brook writes
 * them: record types 3 to 8 at value version 0, with the fields of the schemas Brook has
 * (those of Kafka 4.0: the subscription metadata is ConsumerGroupPartitionMetadata, which
 * Kafka 4.1 replaced by a hash in ConsumerGroupMetadataValue and still reads). The current
 * assignment's topics carry Kafka 4.4's AssignmentEpochs (tagged field 0 of TopicPartitions,
 * which these schemas predate) as a raw tagged field.
 */
import type { ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import { toTopicPartitions, type Assignment } from './assignment.js';
import type { ConsumerGroup, SubscribedTopicMetadata } from './group.js';
import type { AssignmentEpochs, ConsumerGroupMember } from './member.js';
import { Reader } from '../../protocol/primitives/reader.js';
import { Writer } from '../../protocol/primitives/writer.js';
import type { RawTaggedField } from '../../protocol/messages/runtime.js';

/** Kafka 4.4's ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions.AssignmentEpochs. */
const ASSIGNMENT_EPOCHS_TAG = 0;

/** The topics of an assignment, each with its partitions' epochs as Kafka 4.4 writes them (same order as the partitions). */
function withAssignmentEpochs(a: Assignment, epochs: AssignmentEpochs, memberEpoch: number): { topicId: string; partitions: number[]; unknownTaggedFields?: RawTaggedField[] }[] {
  return toTopicPartitions(a).map((t) => {
    const w = new Writer(16);
    w.writeUnsignedVarint(t.partitions.length + 1);
    for (const p of t.partitions) w.writeInt32(epochs.get(t.topicId)?.get(p) ?? Math.max(memberEpoch, 0));
    return { ...t, unknownTaggedFields: [{ tag: ASSIGNMENT_EPOCHS_TAG, data: w.toBuffer() }] };
  });
}

/**
 * A record's partition epochs (Kafka 4.4's Utils.assignmentFromTopicPartitions): the tagged
 * AssignmentEpochs when there is one per partition, else the member epoch (at least 0).
 */
export function assignmentEpochsFromRecord(
  topics: readonly { topicId: string; partitions: readonly number[]; unknownTaggedFields?: readonly RawTaggedField[] }[],
  memberEpoch: number,
  into = new Map<string, Map<number, number>>(),
): Map<string, Map<number, number>> {
  for (const t of topics) {
    let epochs: number[] | null = null;
    const raw = t.unknownTaggedFields?.find((f) => f.tag === ASSIGNMENT_EPOCHS_TAG);
    if (raw !== undefined) {
      const r = new Reader(raw.data);
      const n = r.readUnsignedVarint() - 1;
      if (n >= 0) epochs = Array.from({ length: n }, () => r.readInt32());
    }
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
 * Kafka 4.4's ConsumerGroupTargetAssignmentMetadataValue carries the time the assignment was
 * computed as tagged field 0 (AssignmentTimestamp, int64, written only when not 0; KIP-1263).
 * Brook's schemas predate it: it goes as a raw tagged field, the bytes Kafka writes.
 */
const ASSIGNMENT_TIMESTAMP_TAG = 0;

export function targetAssignmentEpochRecord(groupId: string, assignmentEpoch: number, timestampMs: number): ConsumerGroupRecord {
  if (timestampMs === 0) return { type: 6, key: { groupId }, value: { assignmentEpoch } };
  const data = Buffer.alloc(8);
  data.writeBigInt64BE(BigInt(timestampMs));
  return { type: 6, key: { groupId }, value: { assignmentEpoch, unknownTaggedFields: [{ tag: ASSIGNMENT_TIMESTAMP_TAG, data }] } };
}

/** The AssignmentTimestamp a record carries (0 when absent: written before Kafka 4.4, or never computed). */
export function assignmentTimestampOf(value: { unknownTaggedFields?: readonly { tag: number; data: Buffer }[] }): number {
  const field = value.unknownTaggedFields?.find((f) => f.tag === ASSIGNMENT_TIMESTAMP_TAG);
  return field !== undefined && field.data.length === 8 ? Number(field.data.readBigInt64BE()) : 0;
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
