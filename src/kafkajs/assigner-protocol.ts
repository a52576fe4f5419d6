/**
 * KafkaJS's `AssignerProtocol`: the JoinGroup metadata (MemberMetadata) and SyncGroup
 * assignment (MemberAssignment) encoders KafkaJS's assigners use, which are Kafka's
 * ConsumerProtocol subscription and assignment at the version given (KafkaJS writes 0).
 */
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from '../protocol/consumer-protocol.js';

export const MemberMetadata = Object.freeze({
  encode({ version, topics, userData = Buffer.alloc(0) }: { version: number; topics: string[]; userData?: Buffer }): Buffer {
    return encodeSubscription({ topics, userData, ownedPartitions: [], generationId: -1, rackId: null }, version);
  },
  decode(buffer: Buffer): { version: number; topics: string[]; userData: Buffer } {
    const { version, subscription } = decodeSubscription(buffer);
    return { version, topics: subscription.topics, userData: subscription.userData ?? Buffer.alloc(0) };
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
