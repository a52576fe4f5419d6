/**
 * The user data the sticky assignors put in their subscriptions, byte-compatible with
 * Java's so that Brook and Java members can share a group:
 *
 * - StickyAssignor ('sticky'), schema StickyAssignorUserData v1:
 *     previous_assignment: ARRAY(INT32 count) of { topic: STRING(INT16 length), partitions: ARRAY of INT32 }
 *     generation: INT32
 *   v0 is the same without the generation. Java reads v1 first and falls back to v0 when the
 *   bytes run out; bytes neither can read mean "no previous assignment, generation -1".
 * - CooperativeStickyAssignor ('cooperative-sticky'): just generation: INT32. Its previous
 *   assignment travels in the subscription's ownedPartitions instead.
 */
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import { DEFAULT_GENERATION, type TopicPartition } from './types.js';

/** What a sticky member reports about its previous assignment (Java's AbstractStickyAssignor.MemberData). */
export interface StickyMemberData {
  readonly partitions: readonly TopicPartition[];
  /** null when the data carries no generation (v0 user data, or none at all). */
  readonly generation: number | null;
}

export function encodeStickyUserData(data: StickyMemberData): Buffer {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of data.partitions) {
    let list = byTopic.get(topic);
    if (list === undefined) byTopic.set(topic, (list = []));
    list.push(partition);
  }
  const w = new Writer(16 + data.partitions.length * 4);
  w.writeInt32(byTopic.size);
  for (const [topic, partitions] of byTopic) {
    w.writeString(topic);
    w.writeInt32(partitions.length);
    for (const p of partitions) w.writeInt32(p);
  }
  // Java writes v1 only; a member data without a generation is never serialized by Java.
  if (data.generation !== null) w.writeInt32(data.generation);
  return w.toBuffer();
}

/** Decodes v1, else v0, else (unreadable) an empty assignment with generation -1, as Java does. */
export function decodeStickyUserData(userData: Buffer | null): StickyMemberData {
  if (userData === null || userData.length === 0) return { partitions: [], generation: null };
  try {
    const r = new Reader(userData);
    const partitions = readPreviousAssignment(r);
    if (r.remaining < 4) return { partitions, generation: null }; // v0
    return { partitions, generation: r.readInt32() };
  } catch {
    return { partitions: [], generation: DEFAULT_GENERATION };
  }
}

function readPreviousAssignment(r: Reader): TopicPartition[] {
  const topics = r.readArrayLength();
  const partitions: TopicPartition[] = [];
  for (let i = 0; i < topics; i++) {
    const topic = r.readString();
    const count = r.readArrayLength();
    for (let j = 0; j < count; j++) partitions.push({ topic, partition: r.readInt32() });
  }
  return partitions;
}

export function encodeCooperativeStickyUserData(generation: number): Buffer {
  return new Writer(4).writeInt32(generation).toBuffer();
}

/** The generation in cooperative-sticky user data: null without user data, -1 when unreadable. */
export function decodeCooperativeStickyUserData(userData: Buffer | null): number | null {
  if (userData === null) return null;
  return userData.length >= 4 ? userData.readInt32BE(0) : DEFAULT_GENERATION;
}
