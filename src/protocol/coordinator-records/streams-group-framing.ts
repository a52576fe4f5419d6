/**
 * The KIP-1071 streams-group records in `__consumer_offsets` (Kafka's record types 17 and
 * 19 to 23, record-types.ts): as the consumer- and share-group records, the key is an int16
 * record type followed by the key body (version 0), the value an int16 version (0 for all of
 * them in Kafka 4.4) followed by the flexible value body, or null for a tombstone.
 */
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import type { MessageCodec } from '../messages/runtime.js';
import type { StreamsGroupMetadataKey } from './streams-group-metadata-key.js';
import type { StreamsGroupMetadataValue } from './streams-group-metadata-value.js';
import type { StreamsGroupMemberMetadataKey } from './streams-group-member-metadata-key.js';
import type { StreamsGroupMemberMetadataValue } from './streams-group-member-metadata-value.js';
import type { StreamsGroupTargetAssignmentMetadataKey } from './streams-group-target-assignment-metadata-key.js';
import type { StreamsGroupTargetAssignmentMetadataValue } from './streams-group-target-assignment-metadata-value.js';
import type { StreamsGroupTargetAssignmentMemberKey } from './streams-group-target-assignment-member-key.js';
import type { StreamsGroupTargetAssignmentMemberValue } from './streams-group-target-assignment-member-value.js';
import type { StreamsGroupCurrentMemberAssignmentKey } from './streams-group-current-member-assignment-key.js';
import type { StreamsGroupCurrentMemberAssignmentValue } from './streams-group-current-member-assignment-value.js';
import type { StreamsGroupTopologyKey } from './streams-group-topology-key.js';
import type { StreamsGroupTopologyValue } from './streams-group-topology-value.js';
import { CONSUMER_OFFSETS_RECORDS, ConsumerOffsetsRecordType } from './record-types.js';

/** A streams-group record decoded: its type, key and value (null: a tombstone). */
export type StreamsGroupRecord =
  | { readonly type: 17; readonly key: StreamsGroupMetadataKey; readonly value: StreamsGroupMetadataValue | null }
  | { readonly type: 19; readonly key: StreamsGroupMemberMetadataKey; readonly value: StreamsGroupMemberMetadataValue | null }
  | { readonly type: 20; readonly key: StreamsGroupTargetAssignmentMetadataKey; readonly value: StreamsGroupTargetAssignmentMetadataValue | null }
  | { readonly type: 21; readonly key: StreamsGroupTargetAssignmentMemberKey; readonly value: StreamsGroupTargetAssignmentMemberValue | null }
  | { readonly type: 22; readonly key: StreamsGroupCurrentMemberAssignmentKey; readonly value: StreamsGroupCurrentMemberAssignmentValue | null }
  | { readonly type: 23; readonly key: StreamsGroupTopologyKey; readonly value: StreamsGroupTopologyValue | null };

interface Codecs {
  readonly key: MessageCodec<never>;
  readonly value: MessageCodec<never>;
}

const T = ConsumerOffsetsRecordType;
const STREAMS_GROUP_TYPES: readonly number[] = [
  T.StreamsGroupMetadata, T.StreamsGroupMemberMetadata, T.StreamsGroupTargetAssignmentMetadata,
  T.StreamsGroupTargetAssignmentMember, T.StreamsGroupCurrentMemberAssignment, T.StreamsGroupTopology,
];
const CODECS = new Map<number, Codecs>(STREAMS_GROUP_TYPES.map((type) => [type, CONSUMER_OFFSETS_RECORDS.get(type) as unknown as Codecs]));

const KEY_VERSION = 0;
const VALUE_VERSION = 0;

export function isStreamsGroupRecordType(type: number): type is StreamsGroupRecord['type'] {
  return STREAMS_GROUP_TYPES.includes(type);
}

/** The record's key and value bytes, as they go to `__consumer_offsets`. */
export function encodeStreamsGroupRecord(record: StreamsGroupRecord): { key: Buffer; value: Buffer | null } {
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
 * Decodes a record whose key starts with a streams-group type (`r` is positioned after the
 * type). A newer value version is read with the version-0 layout, which later flexible
 * versions keep as a prefix.
 */
export function decodeStreamsGroupRecord(type: StreamsGroupRecord['type'], r: Reader, value: Buffer | null): StreamsGroupRecord {
  const codecs = CODECS.get(type)!;
  const key = codecs.key.read(r, KEY_VERSION) as unknown;
  if (value === null) return { type, key, value: null } as StreamsGroupRecord;
  const vr = new Reader(value);
  const version = vr.readInt16();
  if (version < 0) vr.fail(`negative value version ${version} for coordinator record type ${type}`);
  const decoded = codecs.value.read(vr, Math.min(version, codecs.value.highestVersion)) as unknown;
  return { type, key, value: decoded } as StreamsGroupRecord;
}
