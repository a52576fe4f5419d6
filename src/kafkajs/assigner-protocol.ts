/**
 * KafkaJS's `AssignerProtocol`: the JoinGroup metadata (MemberMetadata) and SyncGroup
 * assignment (MemberAssignment) encoders KafkaJS's assigners use, which are Kafka's
 * ConsumerProtocol subscription and assignment. As KafkaJS, the version given is written and
 * version 0's fields follow whatever it is (topics, assignment, user data: what KafkaJS reads).
 */
import { encodeAssignment, encodeSubscription } from '../protocol/consumer-protocol.js';
import { ConsumerProtocolAssignment } from '../protocol/messages/consumer-protocol-assignment.js';
import { ConsumerProtocolSubscription } from '../protocol/messages/consumer-protocol-subscription.js';
import { Reader } from '../protocol/primitives/reader.js';

/** Version 0's bytes under the version number given. */
function withVersion(bytes: Buffer, version: number): Buffer {
  bytes.writeInt16BE(version, 0);
  return bytes;
}

/**
 * KafkaJS writes and reads the subscription's version-0 fields (topics, user data) under
 * whatever version it is given: at version 0 these are Kafka's bytes; at 1 and above KafkaJS
 * leaves out the later fields (owned partitions, ...), and so does this, so that metadata
 * KafkaJS members wrote decodes, and ours decodes on their side. Decoding ignores what follows
 * the user data (a Java or Brook member's later fields).
 */
export const MemberMetadata = Object.freeze({
  encode({ version, topics, userData = Buffer.alloc(0) }: { version: number; topics: string[]; userData?: Buffer }): Buffer {
    return withVersion(encodeSubscription({ topics, userData, ownedPartitions: [], generationId: -1, rackId: null }, 0), version);
  },
  decode(buffer: Buffer): { version: number; topics: string[]; userData: Buffer } {
    const r = new Reader(buffer);
    const version = r.readInt16();
    const subscription = ConsumerProtocolSubscription.read(r, 0);
    return { version, topics: subscription.topics, userData: subscription.userData ?? Buffer.alloc(0) };
  },
});

export const MemberAssignment = Object.freeze({
  encode({ version, assignment, userData = Buffer.alloc(0) }: { version: number; assignment: Record<string, number[]>; userData?: Buffer }): Buffer {
    return withVersion(encodeAssignment({ assignedPartitions: Object.entries(assignment).map(([topic, partitions]) => ({ topic, partitions })), userData }, 0), version);
  },
  /** null for an empty buffer (a member the leader gave nothing), as KafkaJS. */
  decode(buffer: Buffer): { version: number; assignment: Record<string, number[]>; userData: Buffer } | null {
    if (buffer.length < 2) return null;
    const r = new Reader(buffer);
    const version = r.readInt16();
    const assignment = ConsumerProtocolAssignment.read(r, 0);
    const out: Record<string, number[]> = {};
    for (const t of assignment.assignedPartitions) out[t.topic] = t.partitions;
    return { version, assignment: out, userData: assignment.userData ?? Buffer.alloc(0) };
  },
});

export const AssignerProtocol = Object.freeze({ MemberMetadata, MemberAssignment });
