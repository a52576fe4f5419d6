/**
 * What the coordinator writes to `__consumer_offsets`, as Kafka's `GroupCoordinatorRecordHelpers`
 * builds it: an OffsetCommit record per committed partition, a GroupMetadata record per
 * completed generation (and when a group becomes or is created Empty), the KIP-848
 * consumer-group records (consumer/records.ts), the KIP-932 share-group records
 * (share/records.ts), and tombstones (null values) for deletions
 * and expirations.
 *
 * A record is built as a value (Kafka's CoordinatorRecord of key and value messages): the
 * coordinator applies it to its state through replay (replay.ts) and hands its bytes
 * (`encodeRecord`, Kafka's serializer) to the runtime. Replay at start-up decodes the bytes
 * back into the same value (`decodeRecord`) and applies it through the same code.
 */
import {
  decodeCoordinatorKey,
  decodeGroupMetadataValue,
  decodeOffsetCommitValue,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  OFFSET_COMMIT_VALUE_WITH_TOPIC_ID,
} from '../protocol/coordinator-records/framing.js';
import { decodeConsumerGroupRecord, encodeConsumerGroupRecord, isConsumerGroupRecordType, type ConsumerGroupRecord } from '../protocol/coordinator-records/consumer-group-framing.js';
import { decodeShareGroupRecord, encodeShareGroupRecord, isShareGroupRecordType, type ShareGroupRecord } from '../protocol/coordinator-records/share-group-framing.js';
import { decodeStreamsGroupRecord, encodeStreamsGroupRecord, type StreamsGroupRecord } from '../protocol/coordinator-records/streams-group-framing.js';
import { ZERO_UUID } from '../protocol/messages/runtime.js';
import type { GroupMetadataValue, MemberMetadata } from '../protocol/coordinator-records/group-metadata-value.js';
import type { ClassicGroup } from './classic/group.js';
import { assertNever, type CoordinatorRecord } from './types.js';

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

/** Record type 1 (0 when read from an old log): one partition's offset, or its tombstone. */
export interface OffsetCommitRecord {
  readonly type: 1;
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: OffsetAndMetadata | null;
  /** Written inside a transaction (TxnOffsetCommit): pending until the transaction's marker. */
  readonly producerId?: bigint;
  readonly producerEpoch?: number;
}

/** Record type 2: a classic group as of its last generation, or its tombstone. */
export interface GroupMetadataRecord {
  readonly type: 2;
  readonly groupId: string;
  readonly value: GroupMetadataValue | null;
}

/** Every record of `__consumer_offsets` the group coordinator writes and replays. */
export type GroupCoordinatorRecord = OffsetCommitRecord | GroupMetadataRecord | ConsumerGroupRecord | ShareGroupRecord | StreamsGroupRecord;

// OffsetCommitValue v1 is the only version with expireTimestamp; Kafka writes it only then.
const OFFSET_COMMIT_VALUE_WITH_EXPIRY = 1;

export function offsetCommitRecord(groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): OffsetCommitRecord {
  return { type: 1, groupId, topic, partition, offset };
}

/** An offset committed inside the producer's transaction (TxnOffsetCommit). */
export function transactionalOffsetCommitRecord(
  groupId: string, topic: string, partition: number, offset: OffsetAndMetadata, producerId: bigint, producerEpoch: number,
): OffsetCommitRecord {
  return { type: 1, groupId, topic, partition, offset, producerId, producerEpoch };
}

export function offsetCommitTombstone(groupId: string, topic: string, partition: number): OffsetCommitRecord {
  return { type: 1, groupId, topic, partition, offset: null };
}

/**
 * The group with its members' subscriptions (metadata of the chosen protocol) and the
 * given assignments. Written when the leader's assignment arrives, when a generation
 * completes Empty, when a static member's new id is stored, and when a consumer group
 * becomes a classic one.
 */
export function groupMetadataRecord(group: ClassicGroup, assignment: ReadonlyMap<string, Buffer>): GroupMetadataRecord {
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
    type: 2,
    groupId: group.groupId,
    value: {
      protocolType: group.protocolType ?? '',
      generation: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestamp: BigInt(group.currentStateTimestampMs ?? -1),
      members,
    },
  };
}

/** Kafka's record for a group just created by a JoinGroup: generation 0, nothing else. */
export function emptyGroupMetadataRecord(groupId: string, nowMs: number): GroupMetadataRecord {
  return {
    type: 2,
    groupId,
    value: { protocolType: '', generation: 0, protocol: null, leader: null, currentStateTimestamp: BigInt(nowMs), members: [] },
  };
}

export function groupMetadataTombstone(groupId: string): GroupMetadataRecord {
  return { type: 2, groupId, value: null };
}

/** The members' current assignments, for a GroupMetadata record outside the sync path. */
export function currentAssignments(group: ClassicGroup): Map<string, Buffer> {
  return new Map([...group.members.values()].map((m) => [m.memberId, m.assignment]));
}

/** The record's bytes, as they go to `__consumer_offsets` (Kafka's serializer). */
export function encodeRecord(record: GroupCoordinatorRecord): CoordinatorRecord {
  switch (record.type) {
    case 1: {
      const key = encodeOffsetCommitKey({ group: record.groupId, topic: record.topic, partition: record.partition });
      const o = record.offset;
      if (o === null) return { key, value: null };
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
      const encoded = { key, value: encodeOffsetCommitValue(value, version) };
      return record.producerId === undefined ? encoded : { ...encoded, producerId: record.producerId, producerEpoch: record.producerEpoch };
    }
    case 2:
      return { key: encodeGroupMetadataKey({ group: record.groupId }), value: record.value === null ? null : encodeGroupMetadataValue(record.value) };
    default:
      if (isConsumerGroupRecordType(record.type)) return encodeConsumerGroupRecord(record as ConsumerGroupRecord);
      if (isShareGroupRecordType(record.type)) return encodeShareGroupRecord(record as ShareGroupRecord);
      return encodeStreamsGroupRecord(record as StreamsGroupRecord);
  }
}

/**
 * Decoded bytes are views into the log's read buffer: the state keeps copies, so that it
 * does not pin every buffer a record was read from.
 */
function ownedGroupMetadata(value: GroupMetadataValue): GroupMetadataValue {
  return { ...value, members: value.members.map((m) => ({ ...m, subscription: Buffer.from(m.subscription), assignment: Buffer.from(m.assignment) })) };
}

/**
 * A record read from `__consumer_offsets`, as the value it was built as; null for a type
 * Brook keeps no state for or no schema defines, which Kafka's
 * loader skips too. Throws (ProtocolDecodeError) on bytes that do not decode.
 */
export function decodeRecord(record: CoordinatorRecord): GroupCoordinatorRecord | null {
  const key = decodeCoordinatorKey(record.key);
  switch (key.kind) {
    case 'offset-commit': {
      const { group: groupId, topic, partition } = key.key;
      if (record.value === null) return { type: 1, groupId, topic, partition, offset: null };
      const v = decodeOffsetCommitValue(record.value);
      const offset: OffsetAndMetadata = {
        committedOffset: v.offset,
        leaderEpoch: v.leaderEpoch ?? -1,
        metadata: v.metadata,
        commitTimestampMs: Number(v.commitTimestamp),
        expireTimestampMs: v.expireTimestamp === undefined || v.expireTimestamp === -1n ? null : Number(v.expireTimestamp),
        topicId: v.topicId ?? ZERO_UUID,
      };
      // Written inside a transaction: the batch's producer (Kafka's replay with a producer id).
      if (record.producerId !== undefined && record.producerId >= 0n) {
        return { type: 1, groupId, topic, partition, offset, producerId: record.producerId, producerEpoch: record.producerEpoch ?? -1 };
      }
      return { type: 1, groupId, topic, partition, offset };
    }
    case 'group-metadata':
      return { type: 2, groupId: key.key.group, value: record.value === null ? null : ownedGroupMetadata(decodeGroupMetadataValue(record.value)) };
    case 'consumer-group':
      return decodeConsumerGroupRecord(key.type, key.keyReader, record.value);
    case 'share-group':
      return decodeShareGroupRecord(key.type, key.keyReader, record.value);
    case 'streams-group':
      return decodeStreamsGroupRecord(key.type, key.keyReader, record.value);
    case 'other':
      return null;
    default:
      return assertNever(key, 'coordinator record key');
  }
}
