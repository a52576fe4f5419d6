/**
 * KafkaJS's partitioners: `createPartitioner` is a factory returning
 * ({ topic, partitionMetadata, message }) => partition.
 *
 * - DefaultPartitioner: Java's murmur2 for keyed messages. brook/kafkajs hands it to Brook's
 *   producer's built-in partitioner, which picks the same partition for a key (unkeyed
 *   messages go to Java's sticky partition, not KafkaJS's round robin).
 * - LegacyPartitioner: KafkaJS 1.x's default, kept for applications whose keys must land
 *   where they always did. Its murmur2 multiplies in floating point (JavaScript's `*`, not a
 *   32-bit multiply) and reads past the key's last full word, so its partitions differ from
 *   Java's; it is reproduced here exactly.
 */
import { murmur2 } from '../client/producer/murmur2.js';
import { randomBytes } from 'node:crypto';

export interface PartitionMetadata {
  partitionErrorCode: number;
  partitionId: number;
  leader: number;
  replicas: number[];
  isr: number[];
  offlineReplicas?: number[];
}

export interface PartitionerArgs {
  topic: string;
  partitionMetadata: PartitionMetadata[];
  message: { key?: Buffer | string | null; value: Buffer | string | null; partition?: number; headers?: unknown; timestamp?: string };
}

export type ICustomPartitioner = () => (args: PartitionerArgs) => number;

const toPositive = (x: number): number => x & 0x7fffffff;

/** KafkaJS 1.x's murmur2, arithmetic included (see above). */
export function legacyMurmur2(key: Buffer | string): number {
  const data = Buffer.isBuffer(key) ? key : Buffer.from(String(key));
  const M = 0x5bd1e995;
  const length = data.length;
  const byte = (i: number): number => (i < length ? data[i]! : 0);
  let h = 0x9747b28c ^ length;
  for (let i = 0; i < length / 4; i++) {
    const i4 = i * 4;
    let k = byte(i4) + (byte(i4 + 1) << 8) + (byte(i4 + 2) << 16) + (byte(i4 + 3) << 24);
    k *= M;
    k ^= k >>> 24;
    k *= M;
    h *= M;
    h ^= k;
  }
  const tail = length & ~3;
  const rest = length % 4;
  if (rest >= 3) h ^= byte(tail + 2) << 16;
  if (rest >= 2) h ^= byte(tail + 1) << 8;
  if (rest >= 1) {
    h ^= byte(tail);
    h *= M;
  }
  h ^= h >>> 13;
  h *= M;
  h ^= h >>> 15;
  return h;
}

function keyedOrRoundRobin(hash: (key: Buffer | string) => number): ICustomPartitioner {
  return () => {
    const counters = new Map<string, number>();
    return ({ topic, partitionMetadata, message }) => {
      if (!counters.has(topic)) counters.set(topic, randomBytes(4).readUInt32BE(0));
      if (message.partition !== null && message.partition !== undefined) return message.partition;
      if (message.key !== null && message.key !== undefined) return toPositive(hash(message.key)) % partitionMetadata.length;
      const available = partitionMetadata.filter((p) => p.leader >= 0);
      const next = counters.get(topic)! + 1;
      counters.set(topic, next);
      if (available.length > 0) return available[toPositive(next) % available.length]!.partitionId;
      return toPositive(next) % partitionMetadata.length;
    };
  };
}

/** Java-compatible: murmur2 with 32-bit multiplication (the hash of Brook's producer). */
export const DefaultPartitioner: ICustomPartitioner = keyedOrRoundRobin((key) => murmur2(Buffer.isBuffer(key) ? key : Buffer.from(String(key))));

export const LegacyPartitioner: ICustomPartitioner = keyedOrRoundRobin(legacyMurmur2);
/** KafkaJS's deprecated name of the default partitioner. */
export const JavaCompatiblePartitioner: ICustomPartitioner = DefaultPartitioner;

export const Partitioners = Object.freeze({ DefaultPartitioner, LegacyPartitioner, JavaCompatiblePartitioner });
