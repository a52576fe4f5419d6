/**
 * KafkaJS's `AssignerProtocol`: the JoinGroup metadata (MemberMetadata) and SyncGroup
 * assignment (MemberAssignment) encoders KafkaJS's assigners use, which are Kafka's
 * ConsumerProtocol subscription and assignment at the version given (KafkaJS writes 0).
 */
import { decodeAssignment, encodeAssignment, encodeSubscription } from '../protocol/consumer-protocol.js';

/**
 * KafkaJS writes and reads the subscription's version-0 fields (topics, user data) under
 * whatever version it is given: at version 0 these are Kafka's bytes; at 1 and above KafkaJS
 * leaves out the later fields (owned partitions, ...), and so does this, so that metadata
 * KafkaJS members wrote decodes, and ours decodes on their side. Decoding ignores what follows
 * the user data (a Java or Brook member's later fields).
 */
export const MemberMetadata = Object.freeze({
  encode({ version, topics, userData = Buffer.alloc(0) }: { version: number; topics: string[]; userData?: Buffer }): Buffer {
    const bytes = encodeSubscription({ topics, userData, ownedPartitions: [], generationId: -1, rackId: null }, 0);
    bytes.writeInt16BE(version, 0);
    return bytes;
  },
  decode(buffer: Buffer): { version: number; topics: string[]; userData: Buffer } {
    let at = 0;
    const int16 = (): number => { const v = buffer.readInt16BE(at); at += 2; return v; };
    const int32 = (): number => { const v = buffer.readInt32BE(at); at += 4; return v; };
    const version = int16();
    const topics: string[] = [];
    for (let n = int32(); n > 0; n--) {
      const length = int16();
      topics.push(buffer.toString('utf8', at, at + length));
      at += length;
    }
    const userDataLength = at + 4 <= buffer.length ? int32() : -1;
    const userData = userDataLength < 0 ? Buffer.alloc(0) : Buffer.from(buffer.subarray(at, at + userDataLength));
    return { version, topics, userData };
  },
});

export const MemberAssignment = Object.freeze({
  encode({ version, assignment, userData = Buffer.alloc(0) }: { version: number; assignment: Record<string, number[]>; userData?: Buffer }): Buffer {
    return encodeAssignment({ assignedPartitions: Object.entries(assignment).map(([topic, partitions]) => ({ topic, partitions })), userData }, version);
  },
  /** null for an empty buffer (a member the leader gave nothing), as KafkaJS. */
  decode(buffer: Buffer): { version: number; assignment: Record<string, number[]>; userData: Buffer } | null {
    if (buffer.length < 2) return null;
    const { version, assignment } = decodeAssignment(buffer);
    const out: Record<string, number[]> = {};
    for (const t of assignment.assignedPartitions) out[t.topic] = t.partitions;
    return { version, assignment: out, userData: assignment.userData ?? Buffer.alloc(0) };
  },
});

export const AssignerProtocol = Object.freeze({ MemberMetadata, MemberAssignment });
