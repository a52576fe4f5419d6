/**
 * The KIP-848 consumer-group records in `__consumer_offsets` (Kafka's record types 3 to 8,
 * and 16, ConsumerGroupRegularExpression: a regular expression's resolved topics, which Kafka
 * writes since 4.0; record-types.ts): the key is an int16 record type followed by the key body
 * (version 0), the value an int16 version (0 for all of them) followed by the flexible value
 * body, or null for a tombstone.
 */
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import type { MessageCodec } from '../messages/runtime.js';
import type { ConsumerGroupMetadataKey } from './consumer-group-metadata-key.js';
import type { ConsumerGroupMetadataValue } from './consumer-group-metadata-value.js';
import type { ConsumerGroupPartitionMetadataKey } from './consumer-group-partition-metadata-key.js';
import type { ConsumerGroupPartitionMetadataValue } from './consumer-group-partition-metadata-value.js';
import type { ConsumerGroupMemberMetadataKey } from './consumer-group-member-metadata-key.js';
import type { ConsumerGroupMemberMetadataValue } from './consumer-group-member-metadata-value.js';
import type { ConsumerGroupTargetAssignmentMetadataKey } from './consumer-group-target-assignment-metadata-key.js';
import type { ConsumerGroupTargetAssignmentMetadataValue } from './consumer-group-target-assignment-metadata-value.js';
import type { ConsumerGroupTargetAssignmentMemberKey } from './consumer-group-target-assignment-member-key.js';
import type { ConsumerGroupTargetAssignmentMemberValue } from './consumer-group-target-assignment-member-value.js';
import type { ConsumerGroupCurrentMemberAssignmentKey } from './consumer-group-current-member-assignment-key.js';
import type { ConsumerGroupCurrentMemberAssignmentValue } from './consumer-group-current-member-assignment-value.js';
import type { ConsumerGroupRegularExpressionKey } from './consumer-group-regular-expression-key.js';
import type { ConsumerGroupRegularExpressionValue } from './consumer-group-regular-expression-value.js';
import { CONSUMER_OFFSETS_RECORDS, ConsumerOffsetsRecordType } from './record-types.js';

/** A consumer-group record decoded: its type, key and value (null: a tombstone). */
export type ConsumerGroupRecord =
  | { readonly type: 3; readonly key: ConsumerGroupMetadataKey; readonly value: ConsumerGroupMetadataValue | null }
  | { readonly type: 4; readonly key: ConsumerGroupPartitionMetadataKey; readonly value: ConsumerGroupPartitionMetadataValue | null }
  | { readonly type: 5; readonly key: ConsumerGroupMemberMetadataKey; readonly value: ConsumerGroupMemberMetadataValue | null }
  | { readonly type: 6; readonly key: ConsumerGroupTargetAssignmentMetadataKey; readonly value: ConsumerGroupTargetAssignmentMetadataValue | null }
  | { readonly type: 7; readonly key: ConsumerGroupTargetAssignmentMemberKey; readonly value: ConsumerGroupTargetAssignmentMemberValue | null }
  | { readonly type: 8; readonly key: ConsumerGroupCurrentMemberAssignmentKey; readonly value: ConsumerGroupCurrentMemberAssignmentValue | null }
  | { readonly type: 16; readonly key: ConsumerGroupRegularExpressionKey; readonly value: ConsumerGroupRegularExpressionValue | null };

interface Codecs {
  readonly key: MessageCodec<never>;
  readonly value: MessageCodec<never>;
}

const T = ConsumerOffsetsRecordType;
/** Kafka's record types of the consumer-group records, 3 to 8 and 16. */
const CONSUMER_GROUP_TYPES = [
  T.ConsumerGroupMetadata, T.ConsumerGroupPartitionMetadata, T.ConsumerGroupMemberMetadata,
  T.ConsumerGroupTargetAssignmentMetadata, T.ConsumerGroupTargetAssignmentMember, T.ConsumerGroupCurrentMemberAssignment,
  T.ConsumerGroupRegularExpression,
];
const CODECS = new Map<number, Codecs>(CONSUMER_GROUP_TYPES.map((type) => [type, CONSUMER_OFFSETS_RECORDS.get(type) as unknown as Codecs]));

/** Every key body is at version 0; every consumer-group value at version 0, the only one the schemas define. */
const KEY_VERSION = 0;
const VALUE_VERSION = 0;

export function isConsumerGroupRecordType(type: number): type is ConsumerGroupRecord['type'] {
  return (type >= T.ConsumerGroupMetadata && type <= T.ConsumerGroupCurrentMemberAssignment) || type === T.ConsumerGroupRegularExpression;
}

/** The record's key and value bytes, as they go to `__consumer_offsets`. */
export function encodeConsumerGroupRecord(record: ConsumerGroupRecord): { key: Buffer; value: Buffer | null } {
  const codecs = CODECS.get(record.type)!;
  const kw = new Writer(64);
  kw.writeInt16(record.type);
  codecs.key.write(kw, KEY_VERSION, record.key as never);
  if (record.value === null) return { key: kw.toBuffer(), value: null };
  const vw = new Writer(128);
  vw.writeInt16(VALUE_VERSION);
  codecs.value.write(vw, VALUE_VERSION, record.value as never);
  return { key: kw.toBuffer(), value: vw.toBuffer() };
}

/**
 * Decodes a record whose key starts with a consumer-group type (`r` is positioned after the
 * type). Values of a newer version than Brook knows are read with the version-0 layout,
 * which every later flexible version keeps as a prefix (new fields are tagged).
 */
export function decodeConsumerGroupRecord(type: ConsumerGroupRecord['type'], r: Reader, value: Buffer | null): ConsumerGroupRecord {
  const codecs = CODECS.get(type)!;
  const key = codecs.key.read(r, KEY_VERSION) as unknown;
  if (value === null) return { type, key, value: null } as ConsumerGroupRecord;
  const vr = new Reader(type === T.ConsumerGroupMemberMetadata ? withoutLegacyNullMarker(value) : value);
  const version = vr.readInt16();
  if (version < 0) vr.fail(`negative value version ${version} for coordinator record type ${type}`);
  const decoded = codecs.value.read(vr, Math.min(version, codecs.value.highestVersion)) as unknown;
  return { type, key, value: decoded } as ConsumerGroupRecord;
}

/**
 * The member-metadata value of a member without classic metadata, as Brook wrote it before it
 * followed Kafka's encoding of a null tagged struct: its tagged fields end with the one field
 * ClassicMemberMetadata (tag 0, 1 byte) holding an int8 -1 where Kafka writes an unsigned
 * varint 0. Such a value is read as Kafka's (the same bytes with 0 there); any other is kept.
 */
const LEGACY_NULL_CLASSIC_METADATA = Buffer.from([1, 0, 1, 0xff]);

function withoutLegacyNullMarker(value: Buffer): Buffer {
  const n = value.length;
  if (n < LEGACY_NULL_CLASSIC_METADATA.length || value.compare(LEGACY_NULL_CLASSIC_METADATA, 0, 4, n - 4, n) !== 0) return value;
  const fixed = Buffer.from(value);
  fixed[n - 1] = 0;
  return fixed;
}

