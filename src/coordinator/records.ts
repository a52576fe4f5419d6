/**
 * What the coordinator writes to `__consumer_offsets`, in Kafka's record format (as
 * Kafka's `GroupCoordinatorRecordHelpers`): an OffsetCommit record per committed partition,
 * a GroupMetadata record per completed generation (and when a group becomes or is created
 * Empty), and tombstones (null values) for deletions and expirations.
 */
import {
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  OFFSET_COMMIT_VALUE_WITH_TOPIC_ID,
} from '../protocol/coordinator-records/framing.js';
import { ZERO_UUID } from '../protocol/messages/runtime.js';
import type { MemberMetadata } from '../protocol/coordinator-records/group-metadata-value.js';
import type { ClassicGroup } from './classic/group.js';
import type { CoordinatorRecord } from './types.js';

/** A committed offset as the coordinator keeps it (Kafka's `OffsetAndMetadata`). */
export interface OffsetAndMetadata {
  readonly committedOffset: bigint;
  /** -1 when the committer did not know the leader epoch. */
  readonly leaderEpoch: number;
  readonly metadata: string;
  readonly commitTimestampMs: number;
  /** Only set by OffsetCommit v2-4 with an explicit retention time (old expiration rule). */
  readonly expireTimestampMs: number | null;
  /**
   * The id of the topic the offset was committed for (the broker resolves it whatever the
   * version, as Kafka 4.4's KafkaApis; ZERO_UUID for offsets written before): a fetch by topic
   * id does not see an offset committed under another id of the same name (a deleted and
   * re-created topic), as Kafka 4.4's OffsetMetadataManager.
   */
  readonly topicId: string;
}

// OffsetCommitValue v1 is the only version with expireTimestamp; Kafka writes it only then.
const OFFSET_COMMIT_VALUE_WITH_EXPIRY = 1;

export function offsetCommitRecord(groupId: string, topic: string, partition: number, o: OffsetAndMetadata): CoordinatorRecord {
  const key = encodeOffsetCommitKey({ group: groupId, topic, partition });
  const value = {
    offset: o.committedOffset,
    leaderEpoch: o.leaderEpoch,
    metadata: o.metadata,
    commitTimestamp: BigInt(o.commitTimestampMs),
    expireTimestamp: o.expireTimestampMs === null ? -1n : BigInt(o.expireTimestampMs),
    topicId: o.topicId,
  };
  let version: number | undefined;
  if (o.expireTimestampMs !== null) version = OFFSET_COMMIT_VALUE_WITH_EXPIRY;
  else if (o.topicId !== ZERO_UUID) version = OFFSET_COMMIT_VALUE_WITH_TOPIC_ID;
  return { key, value: encodeOffsetCommitValue(value, version) };
}

export function offsetCommitTombstone(groupId: string, topic: string, partition: number): CoordinatorRecord {
  return { key: encodeOffsetCommitKey({ group: groupId, topic, partition }), value: null };
}

/**
 * The group with its members' subscriptions (metadata of the chosen protocol) and the
 * given assignments. Written when the leader's assignment arrives and when a generation
 * completes Empty.
 */
export function groupMetadataRecord(group: ClassicGroup, assignment: ReadonlyMap<string, Buffer>): CoordinatorRecord {
  const members: MemberMetadata[] = [];
  for (const m of group.members.values()) {
    if (group.protocolName === null) throw new Error(`group ${group.groupId} has members but no protocol`);
    const memberAssignment = assignment.get(m.memberId);
    if (memberAssignment === undefined) throw new Error(`no assignment for member ${m.memberId} of ${group.groupId}`);
    members.push({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeout: m.rebalanceTimeoutMs,
      sessionTimeout: m.sessionTimeoutMs,
      subscription: m.metadata(group.protocolName),
      assignment: memberAssignment,
    });
  }
  return {
    key: encodeGroupMetadataKey({ group: group.groupId }),
    value: encodeGroupMetadataValue({
      protocolType: group.protocolType ?? '',
      generation: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestamp: BigInt(group.currentStateTimestampMs ?? -1),
      members,
    }),
  };
}

/** Kafka's record for a group just created by a JoinGroup: generation 0, nothing else. */
export function emptyGroupMetadataRecord(group: ClassicGroup): CoordinatorRecord {
  return {
    key: encodeGroupMetadataKey({ group: group.groupId }),
    value: encodeGroupMetadataValue({
      protocolType: '',
      generation: 0,
      protocol: null,
      leader: null,
      currentStateTimestamp: BigInt(group.currentStateTimestampMs ?? -1),
      members: [],
    }),
  };
}

export function groupMetadataTombstone(groupId: string): CoordinatorRecord {
  return { key: encodeGroupMetadataKey({ group: groupId }), value: null };
}

/** The members' current assignments, for a GroupMetadata record outside the sync path. */
export function currentAssignments(group: ClassicGroup): Map<string, Buffer> {
  return new Map([...group.members.values()].map((m) => [m.memberId, m.assignment]));
}
