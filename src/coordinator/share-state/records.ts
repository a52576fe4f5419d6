/**
 * `__share_group_state` records in Kafka's format: the key is the int16 record type
 * (ShareSnapshot 0, ShareUpdate 1) and the key body at version 0 (group id, topic id,
 * partition); the value is the int16 value version (0, the only one) and the value. A
 * share-partition's state is deleted by a ShareSnapshot tombstone (Kafka writes none for
 * ShareUpdate keys). The state a record carries is Kafka's ShareGroupOffset.
 */
import { Reader } from '../../protocol/primitives/reader.js';
import { Writer } from '../../protocol/primitives/writer.js';
import {
  ShareGroupStateRecordType, ShareSnapshotKey, ShareSnapshotValue, ShareUpdateKey, ShareUpdateValue,
} from '../../protocol/coordinator-records/index.js';
import type { CoordinatorRecord } from '../types.js';
import type { StateBatch } from './state-batches.js';

const KEY_VERSION = 0;
const VALUE_VERSION = 0;

/** A share-partition, as Kafka's SharePartitionKey. */
export interface SharePartitionKey {
  readonly groupId: string;
  readonly topicId: string;
  readonly partition: number;
}

/**
 * Kafka's SharePartitionKey.asCoordinatorKey ("group:topicId:partition"): the map key, and
 * what `__share_group_state`'s partition is chosen by. Unambiguous although a group id may
 * contain ':', since a topic id (base64, 22 characters) and a partition number cannot.
 */
export function coordinatorKey(k: SharePartitionKey): string {
  return `${k.groupId}:${k.topicId}:${k.partition}`;
}

/** Kafka's ShareGroupOffset: what a snapshot holds (an update holds a part of it). */
export interface ShareGroupOffset {
  readonly snapshotEpoch: number;
  readonly stateEpoch: number;
  readonly leaderEpoch: number;
  readonly startOffset: bigint;
  /** -1: not known (a log written before Kafka 4.2 tracked it, or an uninitialized start offset). */
  readonly deliveryCompleteCount: number;
  readonly stateBatches: readonly StateBatch[];
  readonly createTimestamp: bigint;
  readonly writeTimestamp: bigint;
}

/** What an update record carries (no state epoch, no timestamps). */
export type ShareUpdate = Pick<ShareGroupOffset, 'snapshotEpoch' | 'leaderEpoch' | 'startOffset' | 'deliveryCompleteCount' | 'stateBatches'>;

export type DecodedShareRecord =
  | { readonly type: 'snapshot'; readonly key: SharePartitionKey; readonly value: ShareGroupOffset | null }
  | { readonly type: 'update'; readonly key: SharePartitionKey; readonly value: ShareUpdate | null };

function encodeKey(type: number, k: SharePartitionKey): Buffer {
  const w = new Writer(64);
  w.writeInt16(type);
  const body = { groupId: k.groupId, topicId: k.topicId, partition: k.partition };
  if (type === ShareGroupStateRecordType.ShareSnapshot) ShareSnapshotKey.write(w, KEY_VERSION, body);
  else ShareUpdateKey.write(w, KEY_VERSION, body);
  return w.toBuffer();
}

function batches(list: readonly StateBatch[]): { firstOffset: bigint; lastOffset: bigint; deliveryState: number; deliveryCount: number }[] {
  return list.map((b) => ({ firstOffset: b.firstOffset, lastOffset: b.lastOffset, deliveryState: b.deliveryState, deliveryCount: b.deliveryCount }));
}

/** Kafka's ShareCoordinatorRecordHelpers.newShareSnapshotRecord. */
export function shareSnapshotRecord(k: SharePartitionKey, offset: ShareGroupOffset): CoordinatorRecord {
  const w = new Writer(128);
  w.writeInt16(VALUE_VERSION);
  ShareSnapshotValue.write(w, VALUE_VERSION, {
    snapshotEpoch: offset.snapshotEpoch, stateEpoch: offset.stateEpoch, leaderEpoch: offset.leaderEpoch, startOffset: offset.startOffset,
    deliveryCompleteCount: offset.deliveryCompleteCount, createTimestamp: offset.createTimestamp, writeTimestamp: offset.writeTimestamp,
    stateBatches: batches(offset.stateBatches),
  });
  return { key: encodeKey(ShareGroupStateRecordType.ShareSnapshot, k), value: w.toBuffer() };
}

/** Kafka's ShareCoordinatorRecordHelpers.newShareUpdateRecord. */
export function shareUpdateRecord(k: SharePartitionKey, update: ShareUpdate): CoordinatorRecord {
  const w = new Writer(128);
  w.writeInt16(VALUE_VERSION);
  ShareUpdateValue.write(w, VALUE_VERSION, {
    snapshotEpoch: update.snapshotEpoch, leaderEpoch: update.leaderEpoch, startOffset: update.startOffset,
    deliveryCompleteCount: update.deliveryCompleteCount, stateBatches: batches(update.stateBatches),
  });
  return { key: encodeKey(ShareGroupStateRecordType.ShareUpdate, k), value: w.toBuffer() };
}

/** Kafka's ShareCoordinatorRecordHelpers.newShareStateTombstoneRecord. */
export function shareStateTombstone(k: SharePartitionKey): CoordinatorRecord {
  return { key: encodeKey(ShareGroupStateRecordType.ShareSnapshot, k), value: null };
}

/** The inverse of coordinatorKey: the partition and topic id from the right (a group id may hold ':'). */
export function parseCoordinatorKey(key: string): SharePartitionKey {
  const p = key.lastIndexOf(':');
  const t = key.lastIndexOf(':', p - 1);
  return { groupId: key.slice(0, t), topicId: key.slice(t + 1, p), partition: Number(key.slice(p + 1)) };
}

/**
 * The coordinator key of a ShareSnapshot record (a tombstone too), null for any other: what
 * the prune point follows, read from the key alone.
 */
export function snapshotCoordinatorKey(record: CoordinatorRecord): string | null {
  const kr = new Reader(record.key);
  if (kr.readInt16() !== ShareGroupStateRecordType.ShareSnapshot) return null;
  const body = ShareSnapshotKey.read(kr, KEY_VERSION);
  return coordinatorKey(body);
}

/** A `__share_group_state` record as a value; null for a type Kafka 4.4 does not write (skipped, as Kafka's loader skips them). */
export function decodeShareRecord(record: CoordinatorRecord): DecodedShareRecord | null {
  const kr = new Reader(record.key);
  const type = kr.readInt16();
  if (type !== ShareGroupStateRecordType.ShareSnapshot && type !== ShareGroupStateRecordType.ShareUpdate) return null;
  const body = type === ShareGroupStateRecordType.ShareSnapshot ? ShareSnapshotKey.read(kr, KEY_VERSION) : ShareUpdateKey.read(kr, KEY_VERSION);
  const key: SharePartitionKey = { groupId: body.groupId, topicId: body.topicId, partition: body.partition };
  if (record.value === null) return type === ShareGroupStateRecordType.ShareSnapshot ? { type: 'snapshot', key, value: null } : { type: 'update', key, value: null };
  const vr = new Reader(record.value);
  const version = vr.readInt16();
  if (version !== VALUE_VERSION) throw new Error(`unknown __share_group_state value version ${version} (record type ${type})`);
  if (type === ShareGroupStateRecordType.ShareSnapshot) {
    const v = ShareSnapshotValue.read(vr, version);
    return {
      type: 'snapshot',
      key,
      value: {
        snapshotEpoch: v.snapshotEpoch, stateEpoch: v.stateEpoch, leaderEpoch: v.leaderEpoch, startOffset: v.startOffset,
        deliveryCompleteCount: v.deliveryCompleteCount ?? -1, stateBatches: batches(v.stateBatches),
        createTimestamp: v.createTimestamp, writeTimestamp: v.writeTimestamp,
      },
    };
  }
  const v = ShareUpdateValue.read(vr, version);
  return {
    type: 'update',
    key,
    value: {
      snapshotEpoch: v.snapshotEpoch, leaderEpoch: v.leaderEpoch, startOffset: v.startOffset,
      deliveryCompleteCount: v.deliveryCompleteCount ?? -1, stateBatches: batches(v.stateBatches),
    },
  };
}
