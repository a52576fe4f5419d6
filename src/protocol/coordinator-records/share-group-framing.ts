/**
 * The KIP-932 share-group records in `__consumer_offsets` (Kafka's record types 10 to 15,
 * record-types.ts): as the consumer-group records (consumer-group-framing.ts), the key is an
 * int16 record type followed by the key body (version 0), the value an int16 version (0 for
 * all of them) followed by the flexible value body, or null for a tombstone.
 */
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import type { MessageCodec } from '../messages/runtime.js';
import type { ShareGroupMemberMetadataKey } from './share-group-member-metadata-key.js';
import type { ShareGroupMemberMetadataValue } from './share-group-member-metadata-value.js';
import type { ShareGroupMetadataKey } from './share-group-metadata-key.js';
import type { ShareGroupMetadataValue } from './share-group-metadata-value.js';
import type { ShareGroupTargetAssignmentMetadataKey } from './share-group-target-assignment-metadata-key.js';
import type { ShareGroupTargetAssignmentMetadataValue } from './share-group-target-assignment-metadata-value.js';
import type { ShareGroupTargetAssignmentMemberKey } from './share-group-target-assignment-member-key.js';
import type { ShareGroupTargetAssignmentMemberValue } from './share-group-target-assignment-member-value.js';
import type { ShareGroupCurrentMemberAssignmentKey } from './share-group-current-member-assignment-key.js';
import type { ShareGroupCurrentMemberAssignmentValue } from './share-group-current-member-assignment-value.js';
import type { ShareGroupStatePartitionMetadataKey } from './share-group-state-partition-metadata-key.js';
import type { ShareGroupStatePartitionMetadataValue } from './share-group-state-partition-metadata-value.js';
import { CONSUMER_OFFSETS_RECORDS, ConsumerOffsetsRecordType } from './record-types.js';

/** A share-group record decoded: its type, key and value (null: a tombstone). */
export type ShareGroupRecord =
  | { readonly type: 10; readonly key: ShareGroupMemberMetadataKey; readonly value: ShareGroupMemberMetadataValue | null }
  | { readonly type: 11; readonly key: ShareGroupMetadataKey; readonly value: ShareGroupMetadataValue | null }
  | { readonly type: 12; readonly key: ShareGroupTargetAssignmentMetadataKey; readonly value: ShareGroupTargetAssignmentMetadataValue | null }
  | { readonly type: 13; readonly key: ShareGroupTargetAssignmentMemberKey; readonly value: ShareGroupTargetAssignmentMemberValue | null }
  | { readonly type: 14; readonly key: ShareGroupCurrentMemberAssignmentKey; readonly value: ShareGroupCurrentMemberAssignmentValue | null }
  | { readonly type: 15; readonly key: ShareGroupStatePartitionMetadataKey; readonly value: ShareGroupStatePartitionMetadataValue | null };

interface Codecs {
  readonly key: MessageCodec<never>;
  readonly value: MessageCodec<never>;
}

const T = ConsumerOffsetsRecordType;
const SHARE_GROUP_TYPES = [
  T.ShareGroupMemberMetadata, T.ShareGroupMetadata, T.ShareGroupTargetAssignmentMetadata,
  T.ShareGroupTargetAssignmentMember, T.ShareGroupCurrentMemberAssignment, T.ShareGroupStatePartitionMetadata,
];
const CODECS = new Map<number, Codecs>(SHARE_GROUP_TYPES.map((type) => [type, CONSUMER_OFFSETS_RECORDS.get(type) as unknown as Codecs]));

const KEY_VERSION = 0;
const VALUE_VERSION = 0;

export function isShareGroupRecordType(type: number): type is ShareGroupRecord['type'] {
  return type >= T.ShareGroupMemberMetadata && type <= T.ShareGroupStatePartitionMetadata;
}

/** The record's key and value bytes, as they go to `__consumer_offsets`. */
export function encodeShareGroupRecord(record: ShareGroupRecord): { key: Buffer; value: Buffer | null } {
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
 * Decodes a record whose key starts with a share-group type (`r` is positioned after the
 * type). A newer value version is read with the version-0 layout, which later flexible
 * versions keep as a prefix.
 */
export function decodeShareGroupRecord(type: ShareGroupRecord['type'], r: Reader, value: Buffer | null): ShareGroupRecord {
  const codecs = CODECS.get(type)!;
  const key = codecs.key.read(r, KEY_VERSION) as unknown;
  if (value === null) return { type, key, value: null } as ShareGroupRecord;
  const vr = new Reader(value);
  const version = vr.readInt16();
  if (version < 0) vr.fail(`negative value version ${version} for coordinator record type ${type}`);
  const decoded = codecs.value.read(vr, Math.min(version, codecs.value.highestVersion)) as unknown;
  return { type, key, value: decoded } as ShareGroupRecord;
}
