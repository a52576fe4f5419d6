/**
 * How the group coordinator's records sit in `__consumer_offsets`: the record key is an
 * int16 record type followed by the key body (0 and 1: an offset commit, 2: group
 * metadata; higher types belong to the newer consumer-group protocol), and the value is an
 * int16 version followed by the value body, or null (a tombstone) for a deletion.
 */
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import { OffsetCommitKey } from './offset-commit-key.js';
import { OffsetCommitValue } from './offset-commit-value.js';
import { GroupMetadataKey } from './group-metadata-key.js';
import { GroupMetadataValue } from './group-metadata-value.js';
import type { MessageCodec } from '../messages/runtime.js';

export const OFFSET_COMMIT_RECORD_TYPE = 1;
export const GROUP_METADATA_RECORD_TYPE = 2;

/** Value versions Brook writes: the newest non-flexible ones, which every Kafka 2.x+ reads. */
export const OFFSET_COMMIT_VALUE_VERSION = 3;
export const GROUP_METADATA_VALUE_VERSION = 3;

export type CoordinatorKey =
  | { readonly kind: 'offset-commit'; readonly key: OffsetCommitKey }
  | { readonly kind: 'group-metadata'; readonly key: GroupMetadataKey }
  | { readonly kind: 'other'; readonly recordType: number };

function encodePrefixed<T>(codec: MessageCodec<T>, prefix: number, version: number, value: T): Buffer {
  const w = new Writer(64);
  w.writeInt16(prefix);
  codec.write(w, version, value);
  return w.toBuffer();
}

export function encodeOffsetCommitKey(key: OffsetCommitKey): Buffer {
  return encodePrefixed(OffsetCommitKey, OFFSET_COMMIT_RECORD_TYPE, OFFSET_COMMIT_RECORD_TYPE, key);
}

export function encodeGroupMetadataKey(key: GroupMetadataKey): Buffer {
  return encodePrefixed(GroupMetadataKey, GROUP_METADATA_RECORD_TYPE, GROUP_METADATA_RECORD_TYPE, key);
}

export function decodeCoordinatorKey(buf: Buffer): CoordinatorKey {
  const r = new Reader(buf);
  const recordType = r.readInt16();
  if (recordType === 0 || recordType === 1) return { kind: 'offset-commit', key: OffsetCommitKey.read(r, recordType) };
  if (recordType === GROUP_METADATA_RECORD_TYPE) return { kind: 'group-metadata', key: GroupMetadataKey.read(r, recordType) };
  if (recordType < 0) r.fail(`negative coordinator record type ${recordType}`);
  return { kind: 'other', recordType };
}

export function encodeOffsetCommitValue(value: OffsetCommitValue, version = OFFSET_COMMIT_VALUE_VERSION): Buffer {
  return encodePrefixed(OffsetCommitValue, version, version, value);
}

export function decodeOffsetCommitValue(buf: Buffer): OffsetCommitValue {
  const r = new Reader(buf);
  return OffsetCommitValue.read(r, r.readInt16());
}

export function encodeGroupMetadataValue(value: GroupMetadataValue, version = GROUP_METADATA_VALUE_VERSION): Buffer {
  return encodePrefixed(GroupMetadataValue, version, version, value);
}

export function decodeGroupMetadataValue(buf: Buffer): GroupMetadataValue {
  const r = new Reader(buf);
  return GroupMetadataValue.read(r, r.readInt16());
}
