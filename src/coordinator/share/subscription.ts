/**
 * What a share group's members subscribe to: the topic names with their subscriber counts
 * (with one member replaced or removed, as Kafka's computeSubscribedTopicNames), and the
 * metadata hash that stands for those topics as the broker has them (Kafka 4.1+'s
 * ShareGroupMetadataValue.MetadataHash: a new hash bumps the group epoch).
 *
 * Kafka hashes each topic with XXH3 over its id, name, partition count and racks and
 * combines them; Brook's hash is its own (FNV-1a over each existing subscribed topic's
 * name, id and partition count, in name order): it is only ever compared with hashes Brook
 * computed, and changes when and only when those topics do (racks aside).
 */
import type { MetadataImage } from '../consumer/metadata.js';
import type { ShareGroup } from './group.js';
import type { ShareGroupMember } from './member.js';

export function computeSubscribedTopicNames(group: ShareGroup, old: ShareGroupMember | undefined, next: ShareGroupMember | undefined): Map<string, number> {
  const counts = new Map(group.subscribedTopicNames);
  for (const t of old?.subscribedTopicNames ?? []) {
    const n = (counts.get(t) ?? 0) - 1;
    if (n <= 0) counts.delete(t);
    else counts.set(t, n);
  }
  for (const t of next?.subscribedTopicNames ?? []) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** 0 when no subscribed topic exists (as Kafka's). */
export function computeMetadataHash(topicNames: Iterable<string>, image: MetadataImage): bigint {
  const names = [...topicNames].filter((n) => image.byName(n) !== undefined).sort();
  if (names.length === 0) return 0n;
  let h = FNV_OFFSET;
  for (const name of names) {
    const t = image.byName(name)!;
    for (const byte of Buffer.from(`${name}\0${t.topicId}\0${t.numPartitions}\0`, 'utf8')) h = ((h ^ BigInt(byte)) * FNV_PRIME) & MASK;
  }
  // Written as a signed long, as Java's.
  return BigInt.asIntN(64, h);
}
