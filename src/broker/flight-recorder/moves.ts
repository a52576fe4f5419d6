/** Which partitions changed owner between two assignments of a group. */
import type { MovedPartition, PartitionsByTopic } from './timeline-entry.js';

/** Each member's partitions, by member id. */
export type Owners = ReadonlyMap<string, PartitionsByTopic>;

/**
 * Partitions whose owner differs between `before` and `after` (null: nobody), sorted by
 * topic and partition. A partition two members claim (a leader's faulty assignment) counts
 * under the first of them.
 */
export function movedPartitions(before: Owners, after: Owners): MovedPartition[] {
  const was = ownerIndex(before);
  const now = ownerIndex(after);
  const moved: MovedPartition[] = [];
  for (const [key, to] of now) {
    const from = was.get(key) ?? null;
    if (from !== to) moved.push(split(key, from, to));
  }
  for (const [key, from] of was) if (!now.has(key)) moved.push(split(key, from, null));
  return moved.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

function ownerIndex(owners: Owners): Map<string, string> {
  const index = new Map<string, string>();
  for (const [memberId, assignment] of owners) {
    for (const topic of Object.keys(assignment)) {
      for (const p of assignment[topic]!) {
        const key = `${p}\u0000${topic}`;
        if (!index.has(key)) index.set(key, memberId);
      }
    }
  }
  return index;
}

function split(key: string, from: string | null, to: string | null): MovedPartition {
  const at = key.indexOf('\u0000');
  return { topic: key.slice(at + 1), partition: Number(key.slice(0, at)), from, to };
}
