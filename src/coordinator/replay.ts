/**
 * What each record of `__consumer_offsets` does to the state (Kafka's GroupCoordinatorShard
 * and OffsetMetadataManager/GroupMetadataManager replay methods), and writing: the one path
 * by which the records' state changes, live as at start-up.
 *
 * An operation validates its request, builds its records (records.ts) and writes them
 * (`writeRecords`): each is applied here, then handed to the runtime, as Kafka's runtime
 * replays every record a write operation returns into its shard. Start-up decodes each record
 * of the log and applies it through the same function (`replayBytes`), so a restarted
 * coordinator has the state the live one had. Since every change is made to timeline
 * structures, a failed append is undone by the timeline alone.
 */
import type { GroupMetadataValue } from '../protocol/coordinator-records/group-metadata-value.js';
import { isConsumerGroupRecordType, type ConsumerGroupRecord } from '../protocol/coordinator-records/consumer-group-framing.js';
import { isShareGroupRecordType, type ShareGroupRecord } from '../protocol/coordinator-records/share-group-framing.js';
import type { StreamsGroupRecord } from '../protocol/coordinator-records/streams-group-framing.js';
import { applyStreamsGroupRecord } from './streams/replay.js';
import { applyConsumerGroupRecord } from './consumer/replay.js';
import { applyShareGroupRecord } from './share/replay.js';
import type { CoordinatorState } from './coordinator-state.js';
import { ClassicGroup } from './classic/group.js';
import type { Operation } from './operation.js';
import { decodeRecord, encodeRecord, type GroupCoordinatorRecord, type OffsetAndMetadata } from './records.js';
import type { CoordinatorRecord } from './types.js';

/**
 * Applies one record to the state. `nowMs` is the time of the operation writing it, null
 * at start-up (a group a record creates then has no state timestamp of its own).
 */
export function replayRecord(s: CoordinatorState, record: GroupCoordinatorRecord, nowMs: number | null): void {
  switch (record.type) {
    case 1:
      if (record.offset === null) s.offsets.remove(record.groupId, record.topic, record.partition);
      // Written inside a transaction: pending until its marker (Kafka's replay with a producer id).
      else if (record.producerId !== undefined) s.pendingTxnOffsets.put(record.producerId, record.groupId, record.topic, record.partition, record.offset);
      else replayOffset(s, record.groupId, record.topic, record.partition, record.offset, nowMs);
      return;
    case 2:
      if (record.value === null) s.removeGroup(record.groupId, nowMs ?? 0);
      else replayGroupMetadata(s, record.groupId, record.value);
      return;
    default:
      if (isConsumerGroupRecordType(record.type)) applyConsumerGroupRecord(s, record as ConsumerGroupRecord, nowMs);
      else if (isShareGroupRecordType(record.type)) applyShareGroupRecord(s, record as ShareGroupRecord, nowMs);
      else applyStreamsGroupRecord(s, record as StreamsGroupRecord);
  }
}

/**
 * A classic group's GroupMetadata: the group of that id becomes what the record says
 * (ClassicGroup.replayMetadata); a group the record creates (a JoinGroup's new group, or at
 * start-up) starts Empty, as Kafka creates it, with the record's state timestamp.
 */
function replayGroupMetadata(s: CoordinatorState, groupId: string, value: GroupMetadataValue): void {
  let group = s.groups.get(groupId);
  if (group === undefined) {
    const stateTimestamp = value.currentStateTimestamp ?? -1n;
    group = new ClassicGroup(groupId, 'Empty', stateTimestamp === -1n ? null : Number(stateTimestamp), s.journal);
    s.putGroup(group);
  }
  group.replayMetadata(value);
}

/** Start-up: one record as read from the log. Types Brook keeps no state for are skipped. */
export function replayBytes(s: CoordinatorState, bytes: CoordinatorRecord): void {
  const record = decodeRecord(bytes);
  if (record !== null) replayRecord(s, record, null);
}

/** Writes records: each is applied to the state, then appended by the runtime, in order. */
export function writeRecords(s: CoordinatorState, op: Operation, records: readonly GroupCoordinatorRecord[]): void {
  for (const record of records) writeRecord(s, op, record);
}

export function writeRecord(s: CoordinatorState, op: Operation, record: GroupCoordinatorRecord): void {
  replayRecord(s, record, op.nowMs);
  op.record(encodeRecord(record));
}

/**
 * A committed offset: a group's offset record, or a transaction's pending offset once its
 * COMMIT marker is replayed (Kafka's replayEndTransactionMarker).
 */
export function replayOffset(s: CoordinatorState, group: string, topic: string, partition: number, o: OffsetAndMetadata, nowMs: number | null): void {
  // Offsets without a group come from consumers that do not use group management:
  // their group is a "simple" one, created here as on commit.
  if (!s.consumerGroups.has(group) && !s.shareGroups.has(group) && !s.streamsGroups.has(group)) s.getOrCreateGroup(group, nowMs);
  s.offsets.put(group, topic, partition, o);
}

/**
 * The transaction of `producerId` ended: its marker is in `__consumer_offsets` (live, once
 * appended; or met by replay). COMMIT makes its pending offsets the committed ones, ABORT
 * drops them (Kafka's replayEndTransactionMarker).
 */
export function replayEndTransactionMarker(s: CoordinatorState, producerId: bigint, commit: boolean, nowMs: number | null): void {
  const pending = s.pendingTxnOffsets.take(producerId);
  if (pending === undefined || !commit) return;
  for (const [groupId, topics] of pending) {
    for (const [topic, partitions] of topics) {
      for (const [partition, offset] of partitions) replayOffset(s, groupId, topic, partition, offset, nowMs);
    }
  }
}
