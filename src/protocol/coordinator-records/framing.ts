/**
 * How the group coordinator's records sit in `__consumer_offsets`: the record key is an
 * int16 record type (record-types.ts, each key schema's apiKey: 0 and 1 an offset commit,
 * 2 group metadata, 3 to 8 and 16 KIP-848 consumer groups, see consumer-group-framing.ts, 10 to 15 KIP-932
 * share groups, see share-group-framing.ts, 17 and 19 to 23 KIP-1071 streams groups, see streams-group-framing.ts) followed by the key
 * body at version 0, and the value is an int16 version followed by the value body, or null
 * (a tombstone) for a deletion.
 */
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import { OffsetCommitKey } from './offset-commit-key.js';
import { OffsetCommitValue } from './offset-commit-value.js';
import { GroupMetadataKey } from './group-metadata-key.js';
import { GroupMetadataValue } from './group-metadata-value.js';
import type { MessageCodec } from '../messages/runtime.js';
import { ZERO_UUID } from '../messages/runtime.js';
import { isConsumerGroupRecordType, type ConsumerGroupRecord } from './consumer-group-framing.js';
import { isShareGroupRecordType, type ShareGroupRecord } from './share-group-framing.js';
import { isStreamsGroupRecordType, type StreamsGroupRecord } from './streams-group-framing.js';
import { CONSUMER_OFFSETS_RECORDS, ConsumerOffsetsRecordType } from './record-types.js';

export const OFFSET_COMMIT_RECORD_TYPE = ConsumerOffsetsRecordType.OffsetCommit;
export const GROUP_METADATA_RECORD_TYPE = ConsumerOffsetsRecordType.GroupMetadata;

/** Every key body is written at version 0, the only version the key schemas define. */
const KEY_VERSION = 0;

/**
 * Value versions Brook writes: the newest non-flexible ones, which every Kafka 2.x+ reads;
 * an offset with its topic's id (every commit the broker resolved the topic of) is written
 * at version 4, the first that carries it, as Kafka 4.4 writes every offset.
 */
export const OFFSET_COMMIT_VALUE_VERSION = 3;
export const OFFSET_COMMIT_VALUE_WITH_TOPIC_ID = 4;
export const GROUP_METADATA_VALUE_VERSION = 3;

export type CoordinatorKey =
  | { readonly kind: 'offset-commit'; readonly key: OffsetCommitKey }
  | { readonly kind: 'group-metadata'; readonly key: GroupMetadataKey }
  /** KIP-848 consumer-group records: decodeConsumerGroupRecord reads the key body from `keyReader`. */
  | { readonly kind: 'consumer-group'; readonly type: ConsumerGroupRecord['type']; readonly keyReader: Reader }
  /** KIP-932 share-group records: decodeShareGroupRecord reads the key body from `keyReader`. */
  | { readonly kind: 'share-group'; readonly type: ShareGroupRecord['type']; readonly keyReader: Reader }
  /** KIP-1071 streams-group records: decodeStreamsGroupRecord reads the key body from `keyReader`. */
  | { readonly kind: 'streams-group'; readonly type: StreamsGroupRecord['type']; readonly keyReader: Reader }
  /**
   * A record Brook does not act on: one of the schemas' types it has no state for (type 18,
   * which no Kafka version writes) or a type no schema defines. Kafka's loader
   * skips the latter too ("a left over from an aborted upgrade").
   */
  | { readonly kind: 'other'; readonly recordType: number; readonly name: string | null };

function encodePrefixed<T>(codec: MessageCodec<T>, prefix: number, version: number, value: T): Buffer {
  const w = new Writer(64);
  w.writeInt16(prefix);
  codec.write(w, version, value);
  return w.toBuffer();
}

/** Writes a non-flexible `string` (int16 length, UTF-8) at `at`; returns the next position. */
function putString(buf: Buffer, at: number, v: string, byteLength: number): number {
  buf.writeInt16BE(byteLength, at);
  if (byteLength > 0) buf.write(v, at + 2, byteLength, 'utf8');
  return at + 2 + byteLength;
}

function stringBytes(v: string): number {
  const n = Buffer.byteLength(v, 'utf8');
  if (n > 0x7fff) throw new RangeError(`string of ${n} bytes exceeds 32767`);
  return n;
}

/**
 * The offset-commit key (type 1: group, topic, partition), written directly: one key per
 * committed partition makes this the coordinator's hottest encoder, and the generic codec
 * (Writer growth, per-field dispatch) cost several times the bytes' worth. Same bytes as
 * `OffsetCommitKey.write` (tests compare them).
 */
export function encodeOffsetCommitKey(key: OffsetCommitKey): Buffer {
  const g = stringBytes(key.group);
  const t = stringBytes(key.topic);
  const buf = Buffer.allocUnsafe(2 + 2 + g + 2 + t + 4);
  buf.writeInt16BE(OFFSET_COMMIT_RECORD_TYPE, 0);
  let at = putString(buf, 2, key.group, g);
  at = putString(buf, at, key.topic, t);
  buf.writeInt32BE(key.partition, at);
  return buf;
}

export function encodeGroupMetadataKey(key: GroupMetadataKey): Buffer {
  return encodePrefixed(GroupMetadataKey, GROUP_METADATA_RECORD_TYPE, KEY_VERSION, key);
}

/**
 * Strings that repeat from one key to the next (the group and topic of a commit's
 * partitions, one record each): the last bytes read and their string, so a replay of a
 * million records does not decode the same names a million times.
 */
class StringCache {
  private bytes = Buffer.alloc(0);
  private value = '';

  read(buf: Buffer, start: number, end: number): string {
    const n = end - start;
    if (n === this.bytes.length) {
      // A byte loop: names are short, and Buffer.compare's argument checks cost more.
      let i = 0;
      while (i < n && buf[start + i] === this.bytes[i]) i++;
      if (i === n) return this.value;
    }
    this.value = buf.toString('utf8', start, end);
    this.bytes = Buffer.from(buf.subarray(start, end));
    return this.value;
  }
}

const keyGroups = new StringCache();
const keyTopics = new StringCache();

/** An offset-commit key read directly (the replay's hottest path); null when it is not a plain one (the codec then decides). */
function readOffsetCommitKeyDirect(buf: Buffer): OffsetCommitKey | null {
  if (buf.length < 10) return null;
  const g = buf.readInt16BE(2);
  if (g < 0 || 4 + g + 2 > buf.length) return null;
  const t = buf.readInt16BE(4 + g);
  const topicStart = 6 + g;
  if (t < 0 || topicStart + t + 4 !== buf.length) return null;
  return {
    group: keyGroups.read(buf, 4, 4 + g),
    topic: keyTopics.read(buf, topicStart, topicStart + t),
    partition: buf.readInt32BE(topicStart + t),
  };
}

/** Whether a record key is an offset commit's (record type 0 or 1), without decoding it. */
export function isOffsetCommitKey(buf: Buffer): boolean {
  if (buf.length < 2) return false;
  const type = buf.readInt16BE(0);
  return type === ConsumerOffsetsRecordType.LegacyOffsetCommit || type === OFFSET_COMMIT_RECORD_TYPE;
}

export function decodeCoordinatorKey(buf: Buffer): CoordinatorKey {
  if (buf.length >= 2 && (buf.readInt16BE(0) === ConsumerOffsetsRecordType.LegacyOffsetCommit || buf.readInt16BE(0) === OFFSET_COMMIT_RECORD_TYPE)) {
    const key = readOffsetCommitKeyDirect(buf);
    if (key !== null) return { kind: 'offset-commit', key };
  }
  const r = new Reader(buf);
  const recordType = r.readInt16();
  // Types 0 and 1 share one key layout (LegacyOffsetCommitKey is OffsetCommitKey's).
  if (recordType === ConsumerOffsetsRecordType.LegacyOffsetCommit || recordType === OFFSET_COMMIT_RECORD_TYPE) return { kind: 'offset-commit', key: OffsetCommitKey.read(r, KEY_VERSION) };
  if (recordType === GROUP_METADATA_RECORD_TYPE) return { kind: 'group-metadata', key: GroupMetadataKey.read(r, KEY_VERSION) };
  if (isConsumerGroupRecordType(recordType)) return { kind: 'consumer-group', type: recordType, keyReader: r };
  if (isShareGroupRecordType(recordType)) return { kind: 'share-group', type: recordType, keyReader: r };
  if (isStreamsGroupRecordType(recordType)) return { kind: 'streams-group', type: recordType, keyReader: r };
  if (recordType < 0) r.fail(`negative coordinator record type ${recordType}`);
  return { kind: 'other', recordType, name: CONSUMER_OFFSETS_RECORDS.get(recordType)?.name ?? null };
}

/** Bytes of an unsigned varint. */
function varintBytes(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v >>>= 7;
    n++;
  }
  return n;
}

function putUnsignedVarint(buf: Buffer, at: number, v: number): number {
  while (v >= 0x80) {
    buf[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[at++] = v;
  return at;
}

/** Tagged field 0 of OffsetCommitValue v4 (the topic id): tag, size 16, then the 16 bytes. */
const TOPIC_ID_TAG = 0;
const UUID_BYTES = 16;

export function encodeOffsetCommitValue(value: OffsetCommitValue, version = OFFSET_COMMIT_VALUE_VERSION): Buffer {
  if ((version !== 3 && version !== 4) || value.unknownTaggedFields !== undefined) return encodePrefixed(OffsetCommitValue, version, version, value);
  // v3 and v4, the versions written for every commit: direct, as encodeOffsetCommitKey.
  const m = stringBytes(value.metadata);
  if (version === 3) {
    const buf = Buffer.allocUnsafe(2 + 8 + 4 + 2 + m + 8);
    buf.writeInt16BE(3, 0);
    buf.writeBigInt64BE(value.offset, 2);
    buf.writeInt32BE(value.leaderEpoch ?? -1, 10);
    const at = putString(buf, 14, value.metadata, m);
    buf.writeBigInt64BE(value.commitTimestamp, at);
    return buf;
  }
  const withId = value.topicId !== undefined && value.topicId !== ZERO_UUID;
  const buf = Buffer.allocUnsafe(2 + 8 + 4 + varintBytes(m + 1) + m + 8 + (withId ? 3 + UUID_BYTES : 1));
  buf.writeInt16BE(4, 0);
  buf.writeBigInt64BE(value.offset, 2);
  buf.writeInt32BE(value.leaderEpoch ?? -1, 10);
  let at = putUnsignedVarint(buf, 14, m + 1);
  if (m > 0) at += buf.write(value.metadata, at, m, 'utf8');
  buf.writeBigInt64BE(value.commitTimestamp, at);
  at += 8;
  if (!withId) {
    buf[at] = 0;
    return buf;
  }
  buf[at] = 1;
  buf[at + 1] = TOPIC_ID_TAG;
  buf[at + 2] = UUID_BYTES;
  if (buf.write(value.topicId!, at + 3, UUID_BYTES, 'base64url') !== UUID_BYTES) throw new RangeError(`not a 16-byte UUID: ${value.topicId}`);
  return buf;
}

export function decodeOffsetCommitValue(buf: Buffer): OffsetCommitValue {
  const version = buf.length >= 2 ? buf.readInt16BE(0) : -1;
  if (version === 3 && buf.length >= 24) {
    // v3, what Brook and Kafka 2.1+ write: direct, as readOffsetCommitKeyDirect.
    const m = buf.readInt16BE(14);
    if (m >= 0 && 16 + m + 8 === buf.length) {
      return {
        offset: buf.readBigInt64BE(2),
        leaderEpoch: buf.readInt32BE(10),
        metadata: m === 0 ? '' : buf.toString('utf8', 16, 16 + m),
        commitTimestamp: buf.readBigInt64BE(16 + m),
        expireTimestamp: -1n,
        topicId: ZERO_UUID,
      };
    }
  }
  if (version === 4) {
    const direct = readOffsetCommitValueV4(buf);
    if (direct !== null) return direct;
  }
  const r = new Reader(buf);
  return OffsetCommitValue.read(r, r.readInt16());
}

/**
 * v4, what Kafka 4.4 and Brook (with a topic id) write: direct when its tagged fields are none
 * or the topic id alone; null otherwise (the codec then reads it).
 */
function readOffsetCommitValueV4(buf: Buffer): OffsetCommitValue | null {
  if (buf.length < 2 + 8 + 4 + 1 + 8 + 1) return null;
  // The metadata's length + 1, as an unsigned varint of at most two bytes (metadata < 16 KiB).
  let at = 14;
  let n = buf[at++]!;
  if (n >= 0x80) n = (n & 0x7f) | (buf[at++]! << 7);
  if (n >= 0x4000 || n === 0) return null;
  const m = n - 1;
  const tags = at + m + 8;
  if (tags >= buf.length) return null;
  let topicId = ZERO_UUID;
  if (buf[tags] === 0 && tags + 1 === buf.length) topicId = ZERO_UUID;
  else if (buf[tags] === 1 && buf[tags + 1] === TOPIC_ID_TAG && buf[tags + 2] === UUID_BYTES && tags + 3 + UUID_BYTES === buf.length) {
    topicId = buf.toString('base64url', tags + 3, tags + 3 + UUID_BYTES);
  } else return null;
  return {
    offset: buf.readBigInt64BE(2),
    leaderEpoch: buf.readInt32BE(10),
    metadata: m === 0 ? '' : buf.toString('utf8', at, at + m),
    commitTimestamp: buf.readBigInt64BE(at + m),
    expireTimestamp: -1n,
    topicId,
  };
}

export function encodeGroupMetadataValue(value: GroupMetadataValue, version = GROUP_METADATA_VALUE_VERSION): Buffer {
  return encodePrefixed(GroupMetadataValue, version, version, value);
}

export function decodeGroupMetadataValue(buf: Buffer): GroupMetadataValue {
  const r = new Reader(buf);
  return GroupMetadataValue.read(r, r.readInt16());
}
